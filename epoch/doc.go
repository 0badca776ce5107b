// Package epoch holds the rules that tell a fresh view of a partition from a
// stale one. On the broker side: whether a Fetch, ListOffsets,
// OffsetForLeaderEpoch or Produce request for a partition may be served by
// this broker according to the current image, and, when it may not, the
// KIP-951 hint that sends the client straight to the current leader. The
// rule both sides share is InvalidMetadata: the errors by which a broker
// tells a client its metadata is out of date, each of which makes a client
// refresh. The client side (a cluster view built from Metadata answers that
// never goes backwards, and its refresh policy) is package
// github.com/kmeta-go/kmeta/epoch/clientview.
//
// A request handler resolves the topic once per request and checks each
// partition against it; the check allocates nothing:
//
//	t, _ := img.Topic(name)               // nil when unknown
//	r := epoch.Check(t, partition, currentLeaderEpoch, localBrokerID, true)
//	if r.ErrorCode != 0 {
//	    part.ErrorCode = int16(r.ErrorCode)
//	    if r.HasLeaderHint() {             // NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH
//	        part.CurrentLeader.LeaderID, part.CurrentLeader.LeaderEpoch = r.LeaderID, r.LeaderEpoch
//	        resp.Brokers = epoch.AppendFetchNode(resp.Brokers, img, r.LeaderID, listener)
//	    }
//	}
//
// Produce carries no leader epoch, so CheckProduce checks leadership only.
//
// The image stands for the broker's local partition state (Kafka's
// Partition object, which a broker updates from the same image), so the
// rules are those of Partition.checkCurrentLeaderEpoch and
// ReplicaManager.getPartitionOrError with "hosted here" meaning
// "this broker is a replica in the image".
package epoch
