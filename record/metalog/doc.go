// Package metalog reads and writes the files of Apache Kafka's KRaft
// metadata log: record batches, log segments, snapshot files, bootstrap
// files and whole __cluster_metadata-0 directories. The records the batches
// hold, and their codecs, are package record's; this package holds the
// layer around them, as franz-go keeps kgo apart from kmsg.
//
// # Batches
//
// A Batch is one record batch v2 (DefaultRecordBatch) as Kafka's raft
// RecordsIterator reads it, with its Entries (offset, key, value); Entry and
// Batch decode their values with record.Decode and record.DecodeControl.
// ParseBatch parses one batch from bytes, BatchReader reads batches (CRC-32C
// checked) from any io.Reader in one reused buffer, and BatchBuilder and
// AppendBatch write them byte for byte as Kafka's raft writers do.
//
// # Files and the file system
//
// Every reader and writer of a file works through one file system, an FS
// in the shape of pebble's vfs.FS (Open, Create, Remove, Rename, MkdirAll,
// ReadDir, Stat): OS{} for the operating system's files, a *MemFS held in
// memory, or FromIOFS over any io/fs file system (an archive,
// testing/fstest.MapFS), read-only. There is one way to choose it: the FS is
// the first argument of OpenDir, OpenSegment, OpenSnapshot, OpenBootstrap,
// ReadBootstrap, CreateSegment, CreateSnapshot and WriteBootstrap.
//
// OpenDir chooses what a broker reads at start-up: the latest snapshot
// (DirReader.Snapshot), then the log after it (DirReader.Next). Readers run
// in Finished mode (a cut-short batch at the end is damage) or Follow mode
// (it is ErrIncompleteTail: wait for more); MemFS files, like the operating
// system's, show bytes appended after they were opened, which Follow mode
// needs. Damage is reported as a *CorruptionError naming the file, the byte
// position and the offset of the batch, wrapping record.ErrCorrupt; nothing
// decoded from bytes that fail their CRC is ever returned.
//
// CreateSegment, CreateSnapshot and WriteBootstrap write files as Kafka's
// raft writers do: a snapshot to a temporary .checkpoint.part file renamed
// into place when frozen, a bootstrap file through bootstrap.checkpoint.tmp.
package metalog
