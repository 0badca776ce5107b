// Package clientview is a Kafka client's (or proxy's) cluster view: built
// from Metadata answers and the KIP-951 hints of Produce and Fetch errors,
// not from the metadata log, and never going backwards on a leader epoch. It
// also decides when to refresh the view. The broker side of the same rules
// (serving a request whose leader epoch is stale or ahead) is package
// github.com/kmeta-go/kmeta/epoch; Kafka's key partitioner, which picks a
// partition out of a topic's partition count, is package
// github.com/kmeta-go/kmeta/epoch/partitioner.
//
// # Merging answers
//
// A View is an immutable value: Merge turns a view and one
// kmsg.MetadataResponse (any version) into the next view, sharing every
// unchanged topic, and reports what changed; the receiver is never
// modified, so readers need no lock:
//
//	v := clientview.NewView(clientview.ViewConfig{})     // RewindAfter 5
//	v, rep := v.Merge(resp, clientview.MergeOptions{Node: answeredBy, HasNode: true})
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
//     not change (kafka_ex#594); growth is reported as PartitionsGrew.
//   - The broker list, controller id and cluster id are replaced per answer,
//     as the Java client does.
//
// # Hints
//
// ApplyProduce, ApplyFetch and ApplyHints take the KIP-951 CurrentLeader and
// NodeEndpoints of Produce and Fetch errors under the same epoch rule
// (Metadata.updatePartitionLeadership): a hint moves a leader only at an
// epoch above any the view has seen, without a Metadata round trip; a hint
// that cannot be taken marks the partition for refresh.
//
// # Reading a view, and who owns what
//
// A *View, and every *Topic and *Partition read from it, never changes once
// returned: keep them as long as you like, from any goroutine. Topics,
// partitions and brokers are read through methods only (Partition.Leader,
// LeaderEpoch, SeenEpoch, Flags...); every slice a method returns
// (Replicas, ISR, Brokers, RetiredIDs, RefreshTopics) is the caller's own
// copy. Merge and the hint methods do not retain the answer they are given;
// a Broker is a plain value that shares nothing with the view.
//
// # Refreshing
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
// FetchFunc, the only networking involved:
//
//	r := clientview.NewRefresher(clientview.RefresherConfig{Fetch: sendMetadata, AllTopics: true})
//	v, err := r.MaybeRefresh(ctx) // at most one request in flight, within the policy
//	rep := r.ObserveProduce(produceResp)
//
// Where the request goes is the embedder's, or a Rebootstrap's: KIP-899's
// metadata recovery as a policy whose Fetch is a FetchFunc. Each attempt dials
// the view's brokers, each address once, and goes back to the configured
// bootstrap servers when none answers; attempts without an answer back off
// (reconnect.backoff.ms, capped, jittered). LookupTopic (LookupTopicID for a
// topic id) refreshes a view that does not have a topic before calling it
// unknown:
//
//	rb := clientview.NewRebootstrap(clientview.RebootstrapConfig{Bootstrap: servers, Send: sendTo, View: r.View})
//	t, ok, err := r.LookupTopic(ctx, "orders") // ok false only after a fresh answer
//
// TestSimulationEpochsNeverGoBack
// and TestSimulationStorm check the promises against the controller
// simulator (package delta/deltatest) with answers built by package image/answer.
//
// # Deliberate differences from the Java client
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
package clientview
