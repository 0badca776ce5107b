// Package kafkaoracle replays vectors that Kafka's own Java code wrote.
//
// The harness beside this package (harness/, run.sh; see README.md) runs
// Kafka 4.4's classes on seeded random inputs and on the corpus and writes
// one gzip-compressed file of JSON lines per generator into testdata/. Go
// tests read those files through Lines and compare kmeta's result with
// Kafka's line by line; they need neither the harness nor a Java toolchain.
//
// Setting KMETA_ORACLE_DIR to a directory written by run.sh with another
// seed makes every test replay that directory's vectors instead of the
// committed ones, which is how fresh cases are checked:
//
//	internal/kafkaoracle/run.sh KBUILD /tmp/fresh 12345
//	KMETA_ORACLE_DIR=/tmp/fresh go test ./...
package kafkaoracle
