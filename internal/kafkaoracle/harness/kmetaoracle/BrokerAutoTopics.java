// DefaultAutoTopicCreationManager.creatableTopic (server module, Java in
// 4.4) for seeded broker configurations and topic names. The method is
// private and its class needs an AbstractKafkaConfig, whose CONFIG_DEF
// cannot load in this build (the OAUTHBEARER JWT classes need jose4j), so
// creatableTopic is transcribed below (server/src/main/java/org/apache/kafka/
// server/DefaultAutoTopicCreationManager.java lines 237-274 and 276-284 at
// 87943b2ff874f7186a7a091f7fad13d1ca62fc42) over an AbstractConfig of the
// config definitions it reads (GroupCoordinatorConfig, TransactionLogConfig,
// ShareCoordinatorConfig, ReplicationConfigs, LogConfig.SERVER_CONFIG_DEF),
// with Kafka's own config classes computing every value. The three coordinator config suppliers BrokerServer passes
// (core/src/main/scala/kafka/server/BrokerServer.scala lines 425-432 at
// 87943b2ff874f7186a7a091f7fad13d1ca62fc42) are called on Kafka's Java
// where they are Java (GroupCoordinatorService.groupMetadataTopicConfigs,
// ShareCoordinatorService.shareGroupStateTopicConfigs, transcribed below
// because the services need a running runtime) and transcribed from Scala
// for TransactionCoordinator.transactionStateTopicConfigs. Writes
// broker-autotopics.jsonl.gz.
package kmetaoracle;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.coordinator.share.ShareCoordinatorConfig;
import org.apache.kafka.coordinator.transaction.TransactionLogConfig;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfigCollection;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.server.config.ReplicationConfigs;
import org.apache.kafka.server.config.ServerLogConfigs;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.server.record.BrokerCompressionType;

public final class BrokerAutoTopics {
    static final String[][] KEYS = {
        {"offsets.topic.num.partitions", "1", "3", "50", "100", "0", "-1", "x"},
        {"offsets.topic.replication.factor", "1", "2", "3", "5", "0", "-1"},
        {"offsets.topic.segment.bytes", "1048576", "104857600", "524288000", "1", "x"},
        {"transaction.state.log.num.partitions", "1", "7", "50", "0"},
        {"transaction.state.log.replication.factor", "1", "3", "0"},
        {"transaction.state.log.min.isr", "1", "2", "3", "0"},
        {"transaction.state.log.segment.bytes", "1048576", "104857600", "100"},
        {"share.coordinator.state.topic.num.partitions", "1", "50", "12", "0"},
        {"share.coordinator.state.topic.replication.factor", "1", "3", "0"},
        {"share.coordinator.state.topic.min.isr", "1", "2", "0"},
        {"share.coordinator.state.topic.segment.bytes", "1048576", "104857600", "10"},
        {"num.partitions", "1", "6", "0", "-1"},
        {"default.replication.factor", "1", "3", "0", "-1"},
    };
    static final String[] TOPICS = {"__consumer_offsets", "__transaction_state", "__share_group_state",
        "orders", "_schemas", "__cluster_metadata", "__remote_log_metadata", "a.b-c_d"};

    static final ConfigDef DEF = Utils.mergeConfigs(List.of(GroupCoordinatorConfig.CONFIG_DEF,
        TransactionLogConfig.CONFIG_DEF, ShareCoordinatorConfig.CONFIG_DEF, ReplicationConfigs.CONFIG_DEF,
        LogConfig.SERVER_CONFIG_DEF));

    /** DefaultAutoTopicCreationManager.creatableTopic, lines 237-274 (the config getters are AbstractKafkaConfig's numPartitions and defaultReplicationFactor). */
    static CreatableTopic creatableTopic(AbstractConfig config, String topic) {
        switch (topic) {
            case Topic.GROUP_METADATA_TOPIC_NAME: {
                GroupCoordinatorConfig g = new GroupCoordinatorConfig(config);
                return new CreatableTopic().setName(topic).setNumPartitions(g.offsetsTopicPartitions())
                    .setReplicationFactor(g.offsetsTopicReplicationFactor()).setConfigs(convert(groupConfigs(config)));
            }
            case Topic.TRANSACTION_STATE_TOPIC_NAME: {
                TransactionLogConfig t = new TransactionLogConfig(config);
                return new CreatableTopic().setName(topic).setNumPartitions(t.transactionTopicPartitions())
                    .setReplicationFactor(t.transactionTopicReplicationFactor()).setConfigs(convert(txnConfigs(config)));
            }
            case Topic.SHARE_GROUP_STATE_TOPIC_NAME: {
                ShareCoordinatorConfig s = new ShareCoordinatorConfig(config);
                return new CreatableTopic().setName(topic).setNumPartitions(s.shareCoordinatorStateTopicNumPartitions())
                    .setReplicationFactor(s.shareCoordinatorStateTopicReplicationFactor()).setConfigs(convert(shareConfigs(config)));
            }
            default: {
                int numPartitions = config.originals().containsKey(ServerLogConfigs.NUM_PARTITIONS_CONFIG)
                    ? config.getInt(ServerLogConfigs.NUM_PARTITIONS_CONFIG) : CreateTopicsRequest.NO_NUM_PARTITIONS;
                short rf = config.originals().containsKey(ReplicationConfigs.DEFAULT_REPLICATION_FACTOR_CONFIG)
                    ? (short) (int) config.getInt(ReplicationConfigs.DEFAULT_REPLICATION_FACTOR_CONFIG) : CreateTopicsRequest.NO_REPLICATION_FACTOR;
                return new CreatableTopic().setName(topic).setNumPartitions(numPartitions).setReplicationFactor(rf);
            }
        }
    }

    /** DefaultAutoTopicCreationManager.convertToTopicConfigCollections, lines 276-284. */
    static CreatableTopicConfigCollection convert(Map<String, String> config) {
        CreatableTopicConfigCollection c = new CreatableTopicConfigCollection();
        config.forEach((k, v) -> c.add(new CreatableTopicConfig().setName(k).setValue(v)));
        return c;
    }

    /** GroupCoordinatorService.groupMetadataTopicConfigs (group-coordinator, GroupCoordinatorService.java). */
    static Map<String, String> groupConfigs(AbstractConfig c) {
        return Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
            TopicConfig.COMPRESSION_TYPE_CONFIG, BrokerCompressionType.PRODUCER.name,
            TopicConfig.SEGMENT_BYTES_CONFIG, String.valueOf(new GroupCoordinatorConfig(c).offsetsTopicSegmentBytes()));
    }

    /** TransactionCoordinator.transactionStateTopicConfigs: core/src/main/scala/kafka/coordinator/transaction/TransactionCoordinator.scala lines 1015-1023, with txnConfig made from TransactionLogConfig as in lines 54-66. */
    static Map<String, String> txnConfigs(AbstractConfig c) {
        TransactionLogConfig t = new TransactionLogConfig(c);
        return Map.of(TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "false",
            TopicConfig.COMPRESSION_TYPE_CONFIG, BrokerCompressionType.UNCOMPRESSED.name,
            TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
            TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, String.valueOf(t.transactionTopicMinISR()),
            TopicConfig.SEGMENT_BYTES_CONFIG, String.valueOf(t.transactionTopicSegmentBytes()));
    }

    /** ShareCoordinatorService.shareGroupStateTopicConfigs (share-coordinator, ShareCoordinatorService.java). */
    static Map<String, String> shareConfigs(AbstractConfig c) {
        ShareCoordinatorConfig s = new ShareCoordinatorConfig(c);
        return Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
            TopicConfig.COMPRESSION_TYPE_CONFIG, BrokerCompressionType.PRODUCER.name,
            TopicConfig.SEGMENT_BYTES_CONFIG, String.valueOf(s.shareCoordinatorStateTopicSegmentBytes()),
            TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, String.valueOf(s.shareCoordinatorStateTopicMinIsr()),
            TopicConfig.RETENTION_MS_CONFIG, "-1");
    }

    public static void main(String[] argv) throws Exception {
        Common.Args args = Common.Args.parse(argv);
        Random rnd = args.random("BrokerAutoTopics");
        try (Common.Out out = new Common.Out(args, "broker-autotopics")) {
            for (int i = 0; i < 300; i++) {
                Map<String, String> props = new HashMap<>();
                props.put("process.roles", "broker");
                props.put("node.id", "1");
                props.put("controller.listener.names", "CONTROLLER");
                props.put("controller.quorum.bootstrap.servers", "localhost:9093");
                Map<String, String> chosen = new TreeMap<>();
                for (String[] k : KEYS) {
                    if (i > 0 && rnd.nextInt(3) == 0) {
                        String val = k[1 + rnd.nextInt(k.length - 1)];
                        props.put(k[0], val);
                        chosen.put(k[0], val);
                    }
                }
                Map<String, Object> v = new LinkedHashMap<>();
                v.put("config", chosen);
                AbstractConfig c;
                try {
                    c = new AbstractConfig(DEF, props, false);
                } catch (RuntimeException e) {
                    v.put("error", e.getMessage());
                    out.line(v);
                    continue;
                }
                Map<String, Object> topics = new TreeMap<>();
                for (String name : TOPICS) {
                    Map<String, Object> t = new LinkedHashMap<>();
                    try {
                        CreatableTopic ct = creatableTopic(c, name);
                        t.put("numPartitions", ct.numPartitions());
                        t.put("replicationFactor", ct.replicationFactor());
                        Map<String, String> cfg = new TreeMap<>();
                        for (CreatableTopicConfig e : ct.configs()) cfg.put(e.name(), e.value());
                        t.put("configs", cfg);
                    } catch (RuntimeException e) {
                        t.put("error", String.valueOf(e.getMessage()));
                    }
                    topics.put(name, t);
                }
                v.put("topics", topics);
                out.line(v);
            }
        }
    }
}
