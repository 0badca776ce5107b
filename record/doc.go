// Package record reads and writes the bytes of Apache Kafka's KRaft metadata:
// every metadata record (apiKeys 0-29) and KRaft control record at every
// version Kafka 4.4 defines, their frame, Kafka's JSON form, record batches, log
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
// it, as Kafka's writers do; tagged fields no version of a record defines are
// kept and written back, while a tag the record defines only at other
// versions is refused, as Kafka's generated readers refuse it.
//
// # Files of a newer Kafka
//
// The record versions and apiKeys are those of Kafka 4.4 (RegisterBrokerRecord
// v4 and BrokerRegistrationChangeRecord v3 with CordonedLogDirs, KIP-1066;
// UnregisterControllerRecord, apiKey 29, KIP-1312). A record of a version or
// apiKey kmeta does not know, as a newer Kafka may write, is never skipped:
// decoding it is an error wrapping ErrUnsupportedVersion or ErrUnknownType
// that names the record's offset, type and version. Package delta refuses a
// metadata.version level kmeta does not know (delta.ErrNewerVersion).
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
// fail their CRC is ever returned.
//
// The readers read through io/fs: OpenDir, OpenSegment and OpenSnapshot take
// paths of the operating system's files (os.DirFS behind them); OpenDirFS,
// OpenSegmentFS and OpenSnapshotFS take any fs.FS, so a directory can be read
// from memory or an archive. MemFS is an in-memory fs.FS whose open files see
// later appends and truncations, as a live directory's do, which Follow mode
// needs (OpenDirFS says what an fs.FS must provide for it).
//
// BatchBuilder, CreateSegment, CreateSnapshot and WriteBootstrap write
// batches and files byte for byte as Kafka's raft writers do.
//
// Decoding copies what it keeps: a record never aliases the buffer it was
// decoded from. Decoder is the exception, for pipelines that copy each record
// at once: it reuses one record per type.
package record

//go:generate go run ../internal/recordgen -defs ../internal/recordgen/defs -out zz_generated.go
