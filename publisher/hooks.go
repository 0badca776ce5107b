package publisher

import (
	"log/slog"
	"time"

	"github.com/kmeta-go/kmeta/image"
)

// ReplayErrorMode says what the loader does with a record it cannot replay
// (Kafka's MetadataLoader reports the fault and skips the record).
type ReplayErrorMode int8

const (
	// Skip reports the record to the fault handler, counts it and goes on
	// without it: the commit is published without the bad record. This is
	// what Kafka's broker does (MetadataBatchLoader: "Error loading
	// metadata log record", fault handler logs only on a broker). A record
	// only a newer Kafka can have written (delta.ErrNewerVersion: a
	// metadata.version level kmeta does not know) halts even in this mode.
	Skip ReplayErrorMode = iota
	// Halt reports the record, keeps serving the last good image, discards
	// everything loaded since, and refuses further input (ErrHalted) until
	// a snapshot is loaded. Kafka's controllers halt the process instead.
	Halt
)

// Config is what NewLoader keeps for the life of a Loader. The zero value
// gives Kafka's defaults.
type Config struct {
	// Logger receives the loader's log lines; nil discards them.
	Logger *slog.Logger
	// Hooks are optional callbacks for metrics and tracing.
	Hooks Hooks
	// ReplayErrors chooses Skip (the default) or Halt.
	ReplayErrors ReplayErrorMode
	// FaultHandler is called for every fault, on the goroutine that is
	// feeding the loader (or installing a publisher). It may call
	// l.Remove(f.Publisher) to drop a failing publisher, or Install; it
	// must not feed the loader. Nil logs the fault at level Error.
	FaultHandler func(l *Loader, f *Fault)
}

// Hooks are optional callbacks, in the style of pebble's EventListener: set
// the ones you need. They run on the loader's goroutine, during the
// operation that raised them: keep them short and do not call back into the
// loader's input methods. Together they carry the metrics of Kafka's
// MetadataLoader and broker-metadata-metrics.
type Hooks struct {
	// BatchLoaded: one log batch was replayed (MetadataBatchSizes and
	// MetadataBatchProcessingTimeUs, measured per batch, where Kafka's
	// MetadataLoader records the whole commit's time for each batch).
	BatchLoaded func(BatchInfo)
	// CommitHandled: one commit (HandleCommit or HandleCommitReader) was
	// handled, published or not.
	CommitHandled func(CommitInfo)
	// SnapshotLoaded: a snapshot was loaded (HandleLoadSnapshotCount).
	SnapshotLoaded func(SnapshotInfo)
	// Published: every installed publisher was given a new image
	// (last-applied-record-offset, -timestamp, CurrentMetadataVersion).
	Published func(PublishInfo)
	// CaughtUp: the loader reached the high watermark for the first time
	// and starts publishing.
	CaughtUp func(image.Provenance)
	// LeaderChanged: a new raft leader or epoch (CurrentControllerId).
	LeaderChanged func(LeaderAndEpoch)
	// Fault: every fault, before the fault handler sees it
	// (metadata-load-error-count for replay and apply faults,
	// metadata-apply-error-count for publisher faults).
	Fault func(*Fault)
}

// BatchInfo describes one loaded batch.
type BatchInfo struct {
	BaseOffset, LastOffset int64
	Epoch                  int32
	Records                int
	Bytes                  int
	Control                bool
	Elapsed                time.Duration
}

// CommitInfo describes one handled commit.
type CommitInfo struct {
	// LastOffset and Epoch: where the loader stands after the commit.
	LastOffset int64
	Epoch      int32
	Batches    int
	// Published is false while catching up, while a transaction is open,
	// and after a halt.
	Published bool
	// Elapsed covers loading, applying and publishing.
	Elapsed time.Duration
}

// SnapshotInfo describes one loaded snapshot.
type SnapshotInfo struct {
	Provenance image.Provenance
	Records    int
	Elapsed    time.Duration
	// Loads counts the snapshots loaded since the loader was made.
	Loads int64
}

// PublishInfo describes one publication.
type PublishInfo struct {
	Manifest Manifest
	// MetadataVersion of the published image (0 when it has none).
	MetadataVersion image.MetadataVersion
	// Publishers is the number of publishers given the image; Failed of
	// them returned an error or panicked.
	Publishers, Failed int
	// Apply is the time delta.Apply took; Publish the time all publishers
	// took together.
	Apply, Publish time.Duration
}

// Stats are the loader's counters and position, read at any time with
// Loader.Stats.
type Stats struct {
	// LastApplied is the provenance of the last published image
	// (last-applied-record-offset and -timestamp); LastContainedOffset is
	// -1 before the first publication.
	LastApplied image.Provenance
	// Loaded is the provenance of the loader's current image, published or
	// not (it runs ahead of LastApplied while catching up).
	Loaded image.Provenance
	// CaughtUp reports whether the loader has reached the high watermark.
	CaughtUp bool
	// HighWatermark is the last one reported, -1 if none.
	HighWatermark int64
	// Leader is the last raft leader heard of (CurrentControllerId).
	Leader LeaderAndEpoch
	// KRaftVersion is the kraft.version of the last KRaftVersion control
	// record, -1 if none was seen.
	KRaftVersion int16
	// Counters.
	Commits, Publications, SnapshotLoads int64
	ReplayErrors, ApplyErrors            int64 // metadata-load-error-count (with ReadErrors; see Metrics)
	PublisherErrors                      int64 // metadata-apply-error-count
	// ReadErrors counts the faults reported with ReportReadError.
	ReadErrors int64
	// Halted is non-nil while the loader refuses input (Halt mode).
	Halted error
}
