package record

// Batch is one batch of the metadata log decoded: the records a raft commit
// hands to a metadata loader (raft's Batch<ApiMessageAndVersion>, as
// RaftClient.Listener.handleCommit passes it), with the fields of its header
// that the loader uses. It is the one decoded batch of kmeta: the readers of
// package record/metalog decode into it (metalog.Batch.Decode) and write it
// (metalog.AppendDecoded), delta/deltatest's simulator writes it, and
// publisher's Loader loads it. Either Records (a data batch) or Control (a
// control batch) is set.
type Batch struct {
	// BaseOffset is the offset of the first record.
	BaseOffset int64
	// LeaderEpoch is the raft leader epoch that wrote the batch (the batch
	// header's partitionLeaderEpoch).
	LeaderEpoch int32
	// AppendTime is the batch's append time in milliseconds
	// (Batch.appendTimestamp, the header's maxTimestamp).
	AppendTime int64
	// Size is the number of bytes the batch takes in the log, 0 when
	// unknown (publisher's Loader then estimates it from the records'
	// encoded sizes, for its snapshot generator's byte trigger).
	Size int
	// Records are the data records, in offset order, with the versions they
	// are written at. A loader keeps references to them (they become part
	// of images): do not modify them after handing them over.
	Records []VersionedRecord
	// Control are the control records of a control batch.
	Control []ControlRecord
}

// VersionedRecord is a metadata record with the version it is written at
// (Kafka's ApiMessageAndVersion).
type VersionedRecord struct {
	Record  Record
	Version int16
}

// Len is the number of records (offsets) in the batch.
func (b *Batch) Len() int { return len(b.Records) + len(b.Control) }

// LastOffset is the offset of the batch's last record.
func (b *Batch) LastOffset() int64 { return b.BaseOffset + int64(b.Len()) - 1 }
