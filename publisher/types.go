package publisher

import (
	"time"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// Snapshot is a snapshot held in memory: the records of an image and the log
// position it covers (Kafka's SnapshotReader: lastContainedLogOffset,
// lastContainedLogEpoch, lastContainedLogTimestamp).
type Snapshot struct {
	// LastContainedOffset is the offset of the last log record the snapshot
	// covers: its id's end offset minus one.
	LastContainedOffset int64
	// LastContainedEpoch is the epoch of that record (the id's epoch).
	LastContainedEpoch int32
	// LastContainedLogTime is the append time of that record's batch, in
	// milliseconds (SnapshotHeaderRecord.LastContainedLogTimestamp).
	LastContainedLogTime int64
	// Records are the snapshot's metadata records.
	Records []record.Record
}

// LeaderAndEpoch is the raft leader as the loader last heard of it (Kafka's
// LeaderAndEpoch). LeaderID is -1 when no leader is known.
type LeaderAndEpoch struct {
	LeaderID int32
	Epoch    int32
}

// UnknownLeader is LeaderAndEpoch.UNKNOWN.
var UnknownLeader = LeaderAndEpoch{LeaderID: -1, Epoch: 0}

// ManifestType says where an update comes from (LoaderManifestType).
type ManifestType int8

const (
	// LogDelta: records read from the log (LOG_DELTA).
	LogDelta ManifestType = iota
	// SnapshotLoad: a snapshot, or the whole current image given to a newly
	// installed publisher as a delta from the empty image (SNAPSHOT).
	SnapshotLoad
)

// String returns Kafka's name for the type.
func (t ManifestType) String() string {
	if t == SnapshotLoad {
		return "SNAPSHOT"
	}
	return "LOG_DELTA"
}

// Manifest describes one update (Kafka's LogDeltaManifest and
// SnapshotManifest).
type Manifest struct {
	Type ManifestType
	// Provenance is the log position of the new image.
	Provenance image.Provenance
	// Leader is the raft leader when the delta was built (log deltas).
	Leader LeaderAndEpoch
	// NumBatches and NumBytes count the log batches behind a log delta.
	NumBatches int
	NumBytes   int64
	// Elapsed is the time spent building the delta (for a log delta, the
	// time spent loading its batches; for a snapshot, reading and
	// replaying it).
	Elapsed time.Duration
}
