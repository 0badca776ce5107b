// Package record reads and writes the bytes of Apache Kafka's KRaft metadata:
// every metadata record (apiKeys 0-28) and KRaft control record at every
// version Kafka defines, their frame, Kafka's JSON form, record batches, log
// segments, snapshot files, bootstrap files and whole __cluster_metadata-0
// directories.
//
// # Records
//
// Every record type is generated from kmeta's own transcription of Kafka's
// schemas (internal/recordgen/defs): PartitionRecord, PartitionChangeRecord,
// RegisterBrokerRecord, ... and the control records LeaderChangeMessage,
// SnapshotHeaderRecord, SnapshotFooterRecord, KRaftVersionRecord and
// VotersRecord. Build them with their New function, which sets Kafka's
// defaults (a struct literal does not: PartitionChangeRecord.Leader must be -2
// to mean "unchanged"). Append and Decode read and write the framed value of
// the log (MetadataRecordSerde); AppendEnvelopeJSON and ParseEnvelopeJSON the
// JSON line Kafka's tools print. A version that cannot carry a value refuses
// it, as Kafka's writers do; tagged fields this version of kmeta does not know
// are kept and written back.
//
// # Files
//
// A BatchReader reads record batches (v2, CRC-32C checked) from any
// io.Reader in one reused buffer. OpenSegment, OpenSnapshot, ReadBootstrap and
// OpenDir read the files of a metadata log directory; OpenDir chooses what a
// broker reads at start-up: the latest snapshot (DirReader.Snapshot), then the
// log after it (DirReader.Next). Readers run in Finished mode (a cut-short
// batch at the end is damage) or Follow mode (it is ErrIncompleteTail: wait
// for more). Damage is reported as a *CorruptionError naming the file, the
// byte position and the offset of the batch; nothing decoded from bytes that
// fail their CRC is ever returned. BatchBuilder, CreateSegment,
// CreateSnapshot and WriteBootstrap write batches and files byte for byte as
// Kafka's raft writers do.
//
// Decoding copies what it keeps: a record never aliases the buffer it was
// decoded from. Decoder is the exception, for pipelines that copy each record
// at once: it reuses one record per type.
package record

//go:generate go run ../internal/recordgen -defs ../internal/recordgen/defs -out zz_generated.go
