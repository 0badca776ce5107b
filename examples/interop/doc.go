// Package interop tests kmeta's proxy example (examples/proxy) with real
// Kafka clients: franz-go (kgo, kadm), IBM/sarama and kcat. It is a module
// of its own so that the client libraries stay test dependencies here and
// never become requirements of kmeta itself.
package interop
