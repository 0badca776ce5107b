// One broker's view of configs, as kafka.server.DynamicBrokerConfig and
// kafka.server.ConfigHelper hold and describe it, transcribed from Scala
// (core is not built here) method by method; each method cites its Scala
// source at Kafka 4.4 (87943b2ff874f7186a7a091f7fad13d1ca62fc42). Everything
// beneath is Kafka's Java. Written for kmeta; no Kafka source is copied.
//
// Not transcribed (listed as exceptions in the Go tests): the reconfigurables
// DynamicBrokerConfig.processReconfiguration asks (they need a running
// broker), and KafkaConfig.validateValues' cross-field checks (the broker
// config here is an AbstractKafkaConfig made as KafkaConfig's constructor
// makes it).
package kmetaoracle;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.server.config.AbstractKafkaConfig;
import org.apache.kafka.server.config.DynamicBrokerConfig;
import org.apache.kafka.server.log.remote.storage.RemoteLogManagerConfig;
import org.apache.kafka.common.config.TopicConfig;

final class ConfigBroker {
    /** kafka.server.KafkaConfig as its constructors build it (KafkaConfig.scala 112-116), with the members ConfigHelper reads. */
    static final class KConfig extends AbstractKafkaConfig {
        final Map<?, ?> props;
        final RemoteLogManagerConfig remoteLogManagerConfig;
        final GroupCoordinatorConfig groupCoordinatorConfig;

        KConfig(Map<?, ?> props) {
            this(AbstractKafkaConfig.populateSynonyms(props), true);
        }

        private KConfig(Map<?, ?> populated, boolean unused) {
            super(AbstractKafkaConfig.CONFIG_DEF, populated, Utils.castToStringObjectMap(populated), false);
            this.props = populated;
            // KafkaConfig.scala 153-161
            this.remoteLogManagerConfig = new RemoteLogManagerConfig(this);
            this.groupCoordinatorConfig = new GroupCoordinatorConfig(this);
        }

        /** KafkaConfig.extractLogConfigMap (KafkaConfig.scala 606-641). */
        Map<String, Object> extractLogConfigMap() {
            Map<String, Object> p = new HashMap<>();
            p.put(TopicConfig.SEGMENT_BYTES_CONFIG, logSegmentBytes());
            p.put(TopicConfig.SEGMENT_MS_CONFIG, logRollTimeMillis());
            p.put(TopicConfig.SEGMENT_JITTER_MS_CONFIG, logRollTimeJitterMillis());
            p.put(TopicConfig.SEGMENT_INDEX_BYTES_CONFIG, logIndexSizeMaxBytes());
            p.put(TopicConfig.FLUSH_MESSAGES_INTERVAL_CONFIG, logFlushIntervalMessages());
            p.put(TopicConfig.FLUSH_MS_CONFIG, logFlushIntervalMs());
            p.put(TopicConfig.RETENTION_BYTES_CONFIG, logRetentionBytes());
            p.put(TopicConfig.RETENTION_MS_CONFIG, logRetentionTimeMillis());
            p.put(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, getInt("message.max.bytes"));
            p.put(TopicConfig.INDEX_INTERVAL_BYTES_CONFIG, logIndexIntervalBytes());
            p.put(TopicConfig.DELETE_RETENTION_MS_CONFIG, logCleanerDeleteRetentionMs());
            p.put(TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG, logCleanerMinCompactionLagMs());
            p.put(TopicConfig.MAX_COMPACTION_LAG_MS_CONFIG, logCleanerMaxCompactionLagMs());
            p.put(TopicConfig.FILE_DELETE_DELAY_MS_CONFIG, logDeleteDelayMs());
            p.put(TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG, logCleanerMinCleanRatio());
            p.put(TopicConfig.CLEANUP_POLICY_CONFIG, logCleanupPolicy());
            p.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, minInSyncReplicas());
            p.put(TopicConfig.COMPRESSION_TYPE_CONFIG, getString("compression.type"));
            p.put(TopicConfig.COMPRESSION_GZIP_LEVEL_CONFIG, getInt("compression.gzip.level"));
            p.put(TopicConfig.COMPRESSION_LZ4_LEVEL_CONFIG, getInt("compression.lz4.level"));
            p.put(TopicConfig.COMPRESSION_ZSTD_LEVEL_CONFIG, getInt("compression.zstd.level"));
            p.put(TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, getBoolean("unclean.leader.election.enable"));
            p.put(TopicConfig.PREALLOCATE_CONFIG, logPreAllocateEnable());
            p.put(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, logMessageTimestampType().name);
            p.put(TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, logMessageTimestampBeforeMaxMs());
            p.put(TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, logMessageTimestampAfterMaxMs());
            p.put(TopicConfig.LOCAL_LOG_RETENTION_MS_CONFIG, remoteLogManagerConfig.logLocalRetentionMs());
            p.put(TopicConfig.LOCAL_LOG_RETENTION_BYTES_CONFIG, remoteLogManagerConfig.logLocalRetentionBytes());
            p.put(TopicConfig.REMOTE_COPY_LAG_MS_CONFIG, remoteLogManagerConfig.logRemoteCopyLagMs());
            p.put(TopicConfig.REMOTE_COPY_LAG_BYTES_CONFIG, remoteLogManagerConfig.logRemoteCopyLagBytes());
            return p;
        }
    }

    final int brokerId;
    final KConfig kafkaConfig;
    // DynamicBrokerConfig.scala 146-149
    final Map<String, String> staticBrokerConfigs;
    final Map<String, String> staticDefaultConfigs;
    final Map<String, String> dynamicBrokerConfigs = new HashMap<>();
    final Map<String, String> dynamicDefaultConfigs = new HashMap<>();
    KConfig currentConfig;
    /** What DynamicBrokerConfig logged as ignored, by key (the embedder's diagnostics). */
    final Map<String, String> ignored = new LinkedHashMap<>();
    /** Set when building the new KafkaConfig failed and the previous one was kept. */
    String failed;

    ConfigBroker(Map<String, String> staticProps) {
        kafkaConfig = new KConfig(staticProps);
        brokerId = kafkaConfig.brokerId();
        staticBrokerConfigs = ConfigDef.convertToStringMapWithPasswordValues(kafkaConfig.originals());
        staticDefaultConfigs = ConfigDef.convertToStringMapWithPasswordValues(AbstractKafkaConfig.CONFIG_DEF.defaultValues());
        // DynamicBrokerConfig.initialize (DynamicBrokerConfig.scala 159-162)
        currentConfig = new KConfig(kafkaConfig.props);
    }

    /** DynamicBrokerConfig.updateBrokerConfig (DynamicBrokerConfig.scala 277-286). */
    void updateBrokerConfig(Properties persistentProps) {
        Properties props = fromPersistentProps(persistentProps, true);
        dynamicBrokerConfigs.clear();
        props.forEach((k, v) -> dynamicBrokerConfigs.put((String) k, (String) v));
        updateCurrentConfig();
    }

    /** DynamicBrokerConfig.updateDefaultConfig (DynamicBrokerConfig.scala 288-297). */
    void updateDefaultConfig(Properties persistentProps) {
        Properties props = fromPersistentProps(persistentProps, false);
        dynamicDefaultConfigs.clear();
        props.forEach((k, v) -> dynamicDefaultConfigs.put((String) k, (String) v));
        updateCurrentConfig();
    }

    /** DynamicBrokerConfig.fromPersistentProps (DynamicBrokerConfig.scala 322-341). */
    Properties fromPersistentProps(Properties persistentProps, boolean perBrokerConfig) {
        Properties props = (Properties) persistentProps.clone();
        removeInvalidConfigs(props, perBrokerConfig);
        removeInvalidProps(props, DynamicBrokerConfig.nonDynamicConfigs(props), "non-dynamic");
        removeInvalidProps(props, DynamicBrokerConfig.securityConfigsWithoutListenerPrefix(props), "security config without listener prefix");
        if (!perBrokerConfig) {
            removeInvalidProps(props, DynamicBrokerConfig.perBrokerConfigs(props), "per-broker config at default cluster level");
        }
        return props;
    }

    private void removeInvalidProps(Properties props, java.util.Set<String> names, String why) {
        for (String n : names) {
            props.remove(n);
            ignored.put(n, why);
        }
    }

    /** DynamicBrokerConfig.removeInvalidConfigs (DynamicBrokerConfig.scala 369-389). */
    void removeInvalidConfigs(Properties props, boolean perBrokerConfig) {
        try {
            DynamicBrokerConfig.validateConfigTypes(props);
        } catch (Exception e) {
            for (String k : props.stringPropertyNames()) {
                Properties one = new Properties();
                one.put(k, props.getProperty(k));
                try {
                    DynamicBrokerConfig.validateConfigTypes(one);
                } catch (Exception bad) {
                    props.remove(k);
                    ignored.put(k, "invalid value");
                }
            }
        }
    }

    /** DynamicBrokerConfig.overrideProps (DynamicBrokerConfig.scala 414-427). */
    static void overrideProps(Map<String, String> props, Map<String, String> propsOverride) {
        propsOverride.forEach((k, v) -> {
            DynamicBrokerConfig.brokerConfigSynonyms(k, false).forEach(props::remove);
            props.put(k, v);
        });
    }

    /**
     * DynamicBrokerConfig.updateCurrentConfig (DynamicBrokerConfig.scala 429-445) and
     * processReconfiguration (447-482) without the reconfigurables: a new config that does
     * not build keeps the current one (ConfigException("Invalid dynamic configuration")).
     */
    void updateCurrentConfig() {
        Map<String, String> newProps = new HashMap<>(staticBrokerConfigs);
        overrideProps(newProps, dynamicDefaultConfigs);
        overrideProps(newProps, dynamicBrokerConfigs);
        // updateBrokerConfig and updateDefaultConfig catch what this throws, clampDynamicConfigs'
        // NumberFormatException on an untrimmed number included.
        try {
            GroupCoordinatorConfig.clampDynamicConfigs(newProps);
            currentConfig = new KConfig(newProps);
            failed = null;
        } catch (Exception e) {
            failed = String.valueOf(e.getMessage());
        }
    }
}
