// Package xxh3 is the 64-bit XXH3 hash (xxHash 0.8's XXH3_64bits and
// XXH3_64bits_withSeed), as hash4j's Hashing.xxh3_64() and
// Hashing.xxh3_64(seed) compute it: the hash Kafka's group coordinator
// (org.apache.kafka.coordinator.group.Utils.computeTopicHash and
// computeGroupHash) persists in group metadata. It has no dependency and no
// state; the tests replay hash4j 0.22.0's own values.
package xxh3
