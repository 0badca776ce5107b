// Package record reads and writes the bytes of Apache Kafka's KRaft metadata
// records: every metadata record (apiKeys 0-29) and KRaft control record at
// every version Kafka 4.4 defines, their frame and Kafka's JSON form. The
// batches and files that hold them are package record/metalog's.
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
// Record batches, log segments, snapshot files, bootstrap files and whole
// __cluster_metadata-0 directories are package record/metalog's, which reads
// and writes them through one file-system seam (metalog.FS). This package
// holds the records and their codecs only, and imports no file layer.
//
// Decoding copies what it keeps: a record never aliases the buffer it was
// decoded from. Decoder is the exception, for pipelines that copy each record
// at once: it reuses one record per type.
package record

//go:generate go run ../internal/recordgen -defs ../internal/recordgen/defs -out zz_generated.go
