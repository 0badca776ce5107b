// Package record reads and writes the bytes of Apache Kafka's KRaft metadata:
// every metadata record (apiKeys 0-28) and KRaft control record at every
// version Kafka defines, their frame, Kafka's JSON form, record batches, log
// segments, snapshot files, bootstrap files and whole __cluster_metadata-0
// directories.
package record

//go:generate go run ../internal/recordgen -defs ../internal/recordgen/defs -out zz_generated.go
