// Package epoch holds the rules that tell a fresh view of a partition from a
// stale one. On the broker side: whether a Fetch, ListOffsets,
// OffsetForLeaderEpoch or Produce request for a partition may be served by
// this broker according to the current image, and, when it may not, the
// KIP-951 hint that sends the client straight to the current leader. On the
// client side (see Client side below): a cluster view built from Metadata
// answers that never goes backwards.
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
//
// # Client side
//
// Proxies and clients build their cluster view from Metadata answers and
// KIP-951 error hints, not from the log. A View is an
// immutable value: Merge turns a view and one kmsg.MetadataResponse (any
// version) into the next view, sharing every unchanged topic, and reports
// what changed; the receiver is never modified, so readers need no lock:
//
//	v := epoch.NewView(epoch.ViewConfig{})     // RewindAfter 5
//	v, rep := v.Merge(resp, epoch.MergeOptions{Node: answeredBy, HasNode: true})
//	leader, leaderEpoch, ok := v.Leader("orders", 3)
//	for _, e := range rep.Events { /* LeaderMoved, PartitionsGrew, StaleAnswer... */ }
//
// An answer identical to the view returns the receiver itself without an
// allocation. The rules, per partition, each guarding against a failure seen
// in the field (the table of TestMergeRules names them):
//
//   - An answer with an older leader epoch never replaces a newer one
//     (Metadata.updateLatestMetadata, KAFKA-7738); the partition is flagged
//     Stale and NeedsRefresh so the client asks again soon (redpanda#27629),
//     unless the topic id changed (the topic was recreated, KAFKA-12257) or
//     ViewConfig.RewindAfter consecutive answers agree on the same older
//     epoch and leader, the escape from a cluster that really went back
//     (franz-go#119).
//   - Leader −1 means "no leader known": the last leader and epoch are kept,
//     the partition is flagged NoLeader and NeedsRefresh, and this is never
//     counted as a rewind (franz-go#1331); an answer where every partition
//     is leaderless is asked again after the backoff, neither spun on nor
//     taken as success until max age (sarama#3514).
//   - Epochs of Metadata answers below v9 are unreliable (KAFKA-9212): the
//     leader is taken without its epoch (librdkafka#4796).
//   - An equal epoch naming another leader is flagged Suspect; the view keeps
//     its leader (redpanda#31668).
//   - Leaderless and errored partitions are never dropped and the partition
//     count of one topic id never shrinks, so key → partition mapping does
//     not change (kafka_ex#594); growth is reported as
//     PartitionsGrew.
//   - The broker list, controller id and cluster id are replaced per answer,
//     as the Java client does.
//
// ApplyProduce, ApplyFetch and ApplyHints take the KIP-951 CurrentLeader and
// NodeEndpoints of Produce and Fetch errors under the same epoch rule
// (Metadata.updatePartitionLeadership): a hint moves a leader only at an
// epoch above any the view has seen, without a Metadata round trip; a hint
// that cannot be taken marks the partition for refresh.
//
// Deciding when to refresh needs no goroutine either. A Policy holds
// metadata.max.age.ms (with jitter against synchronised refreshes),
// retry.backoff.ms and retry.backoff.max.ms (KIP-580's exponential backoff)
// and a MinInterval floor; it documents its promises (MaxRefreshes, the most
// refreshes in a window; ConvergenceBound, the longest a client holds
// leaders older than every broker's). A Schedule is one client's state: the
// caller passes the time, asks Wait, calls Start, then Succeeded with the
// merge's Report or Failed; "last refreshed" is stamped only on success. A
// Refresher wraps a Schedule and a View for concurrent callers: they call
// MaybeRefresh from their own goroutines, and concurrent needs share one
// Metadata request (golang.org/x/sync/singleflight) sent by the embedder's
// FetchFunc, the only networking involved. TestSimulationEpochsNeverGoBack
// and TestSimulationStorm check the promises against the controller
// simulator (delta/deltatest) with answers built by image/answer.
//
// KeyPartition is Kafka's default partitioner for keyed records
// (Utils.murmur2); KeyMove and MovedFraction tell which keys move
// when a topic's partitions grow.
//
// Deliberate differences from the Java client:
//
//   - SeenEpoch, the highest reliable epoch seen, is kept after an answer
//     without a reliable epoch (Java forgets it), so a later answer older
//     than what the view saw is still refused.
//   - When the embedder says which broker answered (MergeOptions.Node), the
//     rewind escape needs agreeing answers from at least two brokers, so one
//     lagging broker cannot roll a view back alone.
//   - A topic missing from full answers (or answered as unknown) is removed
//     only after RewindAfter consecutive such answers, not at once: a lagging
//     broker that has not seen a new topic does not make it vanish.
//   - Policy.MinInterval puts a floor between two refreshes, and failures and
//     answers without progress grow one backoff: Java resets each of its two
//     counts when the other grows, so a client alternating between a dead
//     broker and answers with nothing new refreshes every retry.backoff.ms.
package epoch
