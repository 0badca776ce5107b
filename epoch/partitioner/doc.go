// Package partitioner is Kafka's default partitioner for records with a key:
// the partition a producer picks for a key out of a topic's partition count
// (BuiltInPartitioner.partitionForKey over Utils.murmur2), and which keys
// move to another partition when a topic's partition count grows (per-key
// order holds only while a key's partition stays the same).
//
// It is a function of the key and the partition count alone, so it serves a
// client's view and a broker's image alike (the NumPartitions of a Topic of
// package github.com/kmeta-go/kmeta/epoch/clientview or of package
// github.com/kmeta-go/kmeta/image):
//
//	p := partitioner.ForKey([]byte("customer-42"), t.NumPartitions())
//
// The count to use is every partition of the topic, with or without a
// leader: skipping unavailable partitions would change the partition of
// every key.
package partitioner
