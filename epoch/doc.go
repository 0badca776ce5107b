// Package epoch holds the rules that tell a fresh view of a partition from a
// stale one, on the broker side: whether a Fetch, ListOffsets,
// OffsetForLeaderEpoch or Produce request for a partition may be served by
// this broker according to the current image, and, when it may not, the
// KIP-951 hint that sends the client straight to the current leader.
//
// A request handler resolves the topic once per request and checks each
// partition against it; the check allocates nothing:
//
//	t, _ := img.Topic(name)               // nil when unknown
//	r := epoch.Check(t, partition, currentLeaderEpoch, localBrokerID, true)
//	if r.ErrorCode != 0 {
//	    part.ErrorCode = r.ErrorCode
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
// ReplicaManager.getPartitionOrError (spec §7.2) with "hosted here" meaning
// "this broker is a replica in the image". The client-side rule (an answer
// with an older leader epoch never replaces a newer one) is not here yet.
package epoch
