// Package deltatest is a test kit for code that depends on cluster metadata:
// a deterministic simulator of Kafka's KRaft active controller.
//
// (Package documentation is completed below in a later commit.)
package deltatest
