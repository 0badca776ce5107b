package redact

// topicConfigs is LogConfig.configDefCopy(), the ConfigDef Kafka's
// KafkaRaftServer gives KafkaConfigSchema for TOPIC resources: the topic
// configs of TopicConfig plus the two replica throttle lists of QuotaConfig
// and LogConfig's internal.segment.bytes. Read from the Kafka tags 4.0.0,
// 4.1.1, 4.2.0 and 4.3.1 and the 4.4 branch; notes as in brokerConfigs. No
// topic config is a PASSWORD.
//
// Kafka 4.0 removed message.timestamp.difference.max.ms and
// message.format.version (with message.downconversion.enable); Kafka 4.x does
// not know them, so their values are redacted.
var topicConfigs = [...]entry{
	{"cleanup.policy", List},
	{"compression.gzip.level", Int},
	{"compression.lz4.level", Int},
	{"compression.type", String},
	{"compression.zstd.level", Int},
	{"delete.retention.ms", Long},
	{"errors.deadletterqueue.group.enable", Boolean}, // 4.4+ (KIP-1191: the topic may be a share group's DLQ)
	{"file.delete.delay.ms", Long},
	{"flush.messages", Long},
	{"flush.ms", Long},
	{"follower.replication.throttled.replicas", List},
	{"index.interval.bytes", Int},
	{"internal.segment.bytes", Int}, // 4.1+, internal
	{"leader.replication.throttled.replicas", List},
	{"local.retention.bytes", Long},
	{"local.retention.ms", Long},
	{"max.compaction.lag.ms", Long},
	{"max.message.bytes", Int},
	{"message.timestamp.after.max.ms", Long},
	{"message.timestamp.before.max.ms", Long},
	{"message.timestamp.type", String},
	{"min.cleanable.dirty.ratio", Double},
	{"min.compaction.lag.ms", Long},
	{"min.insync.replicas", Int},
	{"preallocate", Boolean},
	{"remote.copy.lag.bytes", Long}, // 4.4+
	{"remote.copy.lag.ms", Long},    // 4.4+
	{"remote.log.copy.disable", Boolean},
	{"remote.log.delete.on.disable", Boolean},
	{"remote.storage.enable", Boolean},
	{"retention.bytes", Long},
	{"retention.ms", Long},
	{"segment.bytes", Int},
	{"segment.index.bytes", Int},
	{"segment.jitter.ms", Long},
	{"segment.ms", Long},
	{"unclean.leader.election.enable", Boolean},
}
