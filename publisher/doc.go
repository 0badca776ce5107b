// Package publisher is kmeta's loader and the publishers it feeds: Kafka's
// MetadataLoader and MetadataBatchLoader (metadata/.../image/loader), made
// to be embedded. A broker, a proxy or a test hands the Loader committed
// batches and snapshots; the Loader keeps the current image, and tells each
// publisher what changed.
//
// # Feeding the loader
//
// Make a loader and give it what your raft client (or a file reader)
// delivers, in log order:
//
//	l := publisher.NewLoader(publisher.Config{Logger: logger})
//
//	// handleLoadSnapshot: a snapshot as a source of batches (SnapshotReader)
//	l.LoadSnapshot(snapshotReader) // a *metalog.SnapshotReader, read batch by batch
//	l.LoadSnapshot(publisher.Snapshot{LastContainedOffset: 99, LastContainedEpoch: 3, Records: recs}.Reader())
//
//	// handleCommit: one raft commit, one or more batches
//	l.HandleCommit(record.Batch{BaseOffset: 100, LeaderEpoch: 3, AppendTime: ms, Records: vrecs}) // []record.VersionedRecord
//	// a commit streamed from a file (a BatchReader), each batch read by
//	// metalog.OpenDir / OpenSegment and decoded with DecodeBatch
//	l.HandleCommitReader(batchReader)
//
//	// highWatermark(), handleLeaderChange
//	l.SetHighWatermark(hw)
//	l.SetLeader(publisher.LeaderAndEpoch{LeaderID: 3001, Epoch: 4})
//
// These are the Loader's whole input, what raft's listener hands over
// (RaftClient.Listener: handleCommit, handleLoadSnapshot,
// handleLeaderChange; the high watermark), with ReportReadError for what a
// reader could not read and Close. HandleCommitReader is HandleCommit for a
// commit too big to hold decoded (a whole segment, a directory's
// MaxCommitBytes, history's log up to a point): the loader replays each
// batch before it asks for the next. A metalog.Batch that is a commit of
// its own is decoded with DecodeBatch and handed to HandleCommit.
//
// Package publisher/dirfollow does all of this for a __cluster_metadata-0
// directory.
//
// The rules are Kafka's:
//
//   - Nothing is published until the loader has caught up: the high
//     watermark is known, the image reaches it, and a record has been seen
//     (MetadataLoader.stillNeedToCatchUp, with Kafka 4.x's hasSeenRecord).
//   - Then one new image per commit. Records before a BeginTransactionRecord
//     are published on their own; an open metadata transaction (KIP-868)
//     defers publication until its EndTransactionRecord.
//   - An AbortTransactionRecord discards the transaction's records at once.
//     Kafka discards them only when the Abort ends a commit and publishes
//     them when more records follow it in the same commit;
//     kmeta fixes this on purpose: an aborted transaction leaves no trace.
//   - A snapshot is a delta from the current image that deletes whatever the
//     snapshot does not re-assert (delta.NewSnapshot, FinishSnapshot).
//   - Control batches (LeaderChange, KRaftVersion) change no data; they
//     advance the log position and tell the loader of the raft leader. A
//     controller failover is therefore an update with no change.
//   - A record the image rejects (delta.Replay's *delta.RecordError) is a
//     fault. With Config.ReplayErrors = Skip, Kafka's broker behaviour,
//     the commit is published without it and it is counted; with Halt the
//     last good image keeps being served and the loader refuses input until
//     a snapshot is loaded. A metadata.version only a newer Kafka than kmeta
//     knows writes (delta.ErrNewerVersion) halts in both modes: an image
//     without it would be wrong, so none is published.
//   - A batch that does not continue the log (ErrOffset) is refused and
//     changes nothing; Kafka trusts its raft client here.
//
// The Loader is a single-goroutine core, as raft's RawNode is: no
// goroutine, no lock around its state; each call does its work,
// publication included, on the caller's goroutine, and its methods are
// called from one goroutine at a time (Image, Watch, WaitForOffset and
// Stats excepted: readers call them from anywhere). Runner is the one
// concurrent wrapper, as raft's node is: NewRunner puts the loader on a
// goroutine of its own behind a queue, for raft clients that must not wait
// and for installing and removing publishers from other goroutines.
//
// The package starts a goroutine only when asked: NewRunner's, and, with
// SnapshotGeneratorConfig.Async, one per snapshot being written.
//
// # Publishers
//
// A Publisher has a Name, OnUpdate(Update) and Close. An Update is a value,
// as raft's Ready is: the new image, its manifest, and Changes, a read-only
// view of the delta that has no method to replay into it: topics,
// partitions and brokers changed, a change set for every other part of the
// image (configs, client quotas, SCRAM, tokens, ACLs in replay order,
// features, controllers), and for one broker id what Kafka's
// ReplicaManager.applyDelta and updateCoordinator do (ReplicaChanges,
// Coordinators). Install publishers at any time on the loader's
// goroutine (Runner.Install from others); they run in install order. A newly installed
// publisher first receives the whole current image as a delta from the
// empty image (a SnapshotLoad manifest), then every later commit (LogDelta
// manifests saying how many batches and bytes and how long they took). A
// publisher that returns an error or panics is reported to
// Config.FaultHandler and counted; the others still get the update, and it
// keeps getting later ones unless the handler calls l.Remove. Publishers
// implementing ControllerListener hear of raft leader changes.
//
//	cache := publisher.NewCache("")
//	gen := publisher.NewSnapshotGenerator(&publisher.DirEmitter{Dir: dir}, publisher.SnapshotGeneratorConfig{})
//	l.Install(gen, cache, myPublisher)
//
// Shipped publishers:
//
//   - Cache: the latest image behind an atomic pointer. Load never blocks
//     nor allocates; an image once loaded never changes.
//   - SnapshotGenerator: writes a snapshot after 20 MiB of log or an hour
//     (Kafka's defaults) through a SnapshotEmitter; DirEmitter
//     writes a .checkpoint that Kafka reads.
//   - ACLPublisher: Kafka's AclPublisher, an incremental StandardAuthorizer
//     (authz.Incremental) loaded from snapshots and changed ACL by ACL in
//     replay order, not ready until its first update.
//   - Func: a function as a publisher.
//
// # Waiting and reading
//
// Readers never wait for the loader, and may be on any goroutine:
//
//	img := cache.Load()                      // the latest image
//	img, next := cache.Watch()               // ... and a channel closed when a newer one arrives
//	img, err := l.WaitForOffset(ctx, offset) // block until an image containing offset is published
//
// WaitForOffset is a broker's wait to be caught up to its own
// RegisterBrokerRecord before it asks to be unfenced: it
// returns once every publisher has been given an image containing offset.
//
// # Observing
//
// Config.Logger takes a *slog.Logger. Config.Hooks is a struct of optional
// callbacks (batch loaded, commit handled, snapshot loaded, published,
// caught up, leader changed, fault) that carry Kafka's loader metrics
// (MetadataLoaderMetrics, BrokerServerMetrics): offset and epoch of the last published image, batch and publish
// times (per batch), publisher errors, replay errors.
// Loader.Stats returns the same counters at any time. No metrics library is
// imported.
package publisher
