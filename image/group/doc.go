// Package group is what Kafka's group coordinator reads from the metadata
// image, bit for bit: the topic hash and group hash the consumer, share and
// streams group protocols persist as a group's metadata hash
// (org.apache.kafka.coordinator.group.Utils.computeTopicHash and
// computeGroupHash, XXH3 64-bit as hash4j computes it), and the racks of a
// partition's replicas that rack-aware assignors use
// (KRaftCoordinatorMetadataImage.partitionRacks,
// SubscribedTopicDescriberImpl.racksForPartition).
//
// A Go broker beside Java ones must compute the same hashes: a group whose
// stored hash differs from the one a coordinator computes is rebalanced.
//
//	h := group.TopicHash(img, "orders")            // 0 when the topic does not exist
//	g := group.GroupHash(map[string]int64{"orders": h})
//
// Strings are hashed and ordered as Java's: UTF-16 code units (String's
// chars, String.compareTo). A rack or topic name that is not valid UTF-8
// is hashed from the runes Go decodes (each bad byte a U+FFFD), which may
// differ from how Kafka's UTF-8 decoder replaced it.
package group
