// Package history answers "what happened to my cluster" from a KRaft
// metadata log: who led a partition and when, when a broker was fenced and
// for how long, which ISRs shrank, what a config change did, which raft
// leader wrote it; what the cluster looked like at an offset or a moment
// (time travel); and which records Kafka's replay would reject or which
// invariants of Kafka's controller the log breaks (Check).
//
//	h, err := history.Read("/var/lib/kafka/__cluster_metadata-0", history.Options{})
//	for _, p := range h.Partitions() { ... p.Events ... }  // every leader, epoch, ISR, ELR, replica change
//	for _, b := range h.Brokers() { ... b.Intervals ... }   // registered, fenced, unfenced, shutting down
//
//	img, err := history.ImageAt(dir, history.AtOffset(1234))   // the image as of offset 1234
//	img, err := history.ImageAt(dir, history.AtTime(t))        // ... or as of an append time
//
//	findings, err := history.Check(dir, history.Options{})     // rejected records, broken invariants, in log order
//
//	tl, err := history.ReadTimeline(dir, history.TimelineOptions{})   // the timeline metadump draws, counted as Read counts
//
// Every function reads the same way: a damaged batch, or a batch cut short
// at the end of the last segment, is an error after everything before it
// (Read's History then ends with a RuleUnreadable finding), never left out
// in silence; a segment that starts above offset 0 is replayed from the
// files before it in its directory, or is a *StartError without them; a
// point outside the log is an *OutsideError.
//
// # Why beside the loader, and not a publisher
//
// A publisher (package publisher) is handed one delta per commit: it sees
// what a batch or a transaction changed as a whole, not which record
// changed it, at which offset. A history has to name the record, its
// offset and its batch's append time for every change, and must see the
// records Kafka's loader rejects and skips, which never reach a publisher.
// So the history is a replay of its own, record by record, over the
// batches of a file or directory (metalog.Batch, as the record package's
// readers deliver them), judged by the same rules as the loader: each
// record goes through a delta.Delta, whose lookups (Delta.Partition,
// Delta.Broker) give the state before and after it; a record the delta
// rejects is a Rejection and is skipped, as Kafka's broker does; metadata
// transactions (KIP-868) are held until their EndTransactionRecord and an
// aborted one leaves no trace (MetadataLoader with kmeta's documented
// abort fix, see package publisher); snapshots are loaded as the loader
// loads them (delta.NewSnapshot, FinishSnapshot). The package sits above
// delta and publisher (ImageAt feeds a publisher.Loader so that its images
// are exactly the ones a broker would publish), so it lives under
// publisher as its companion: the loader replays a log for a broker, the
// history replays it for a person. The tools (examples/metadump) only print
// what it returns.
//
// # Bounded memory
//
// The log is streamed batch by batch; only the histories are kept. Every
// list (one per partition, broker and topic, and the lists of other
// changes, raft leaders, rejections and findings) keeps at most
// Options.Limit entries, the newest ones, and counts what it dropped; the
// counters (leader changes, ISR shrinks, fence intervals) always count
// everything.
//
// # Redaction
//
// Changes to configs, SCRAM credentials and delegation tokens keep their
// records with sensitive values replaced as metadump's dump prints them
// (Kafka's MetadataNodeRedactionCriteria.Normal: config values Kafka types
// PASSWORD or does not know, SCRAM salt and keys, token owner, requester
// and renewers; numbers such as a SCRAM credential's iterations are kept,
// as Kafka's RecordRedactor keeps them) unless Options.Unredacted is set.
package history
