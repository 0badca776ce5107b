// kafka.server.ConfigHelper (ConfigHelper.scala at Kafka 4.4,
// 87943b2ff874f7186a7a091f7fad13d1ca62fc42) transcribed from Scala method by
// method over ConfigBroker, with Kafka's Java beneath (ConfigHelperUtils,
// LogConfig, GroupConfig, ClientMetricsConfigs, ConfigDef). The image's
// configs stand for ConfigRepository, its topic names for MetadataCache, and
// a set of denied resources for the authorizer. Written for kmeta.
package kmetaoracle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsSynonym;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;
import org.apache.kafka.coordinator.group.GroupConfig;
import org.apache.kafka.server.ConfigHelperUtils;
import org.apache.kafka.server.config.AbstractKafkaConfig;
import org.apache.kafka.server.config.DynamicBrokerConfig;
import org.apache.kafka.server.config.ServerTopicConfigSynonyms;
import org.apache.kafka.server.metrics.ClientMetricsConfigs;
import org.apache.kafka.storage.internals.log.LogConfig;

final class ConfigDescribe {
    final ConfigBroker broker;
    final Set<String> topics;
    final Function<ConfigResource, Properties> configRepository;
    final Set<String> denied; // "type:name"

    ConfigDescribe(ConfigBroker broker, Set<String> topics, Function<ConfigResource, Properties> repo, Set<String> denied) {
        this.broker = broker;
        this.topics = topics;
        this.configRepository = repo;
        this.denied = denied;
    }

    private boolean authorize(String type, String name) { return !denied.contains(type + ":" + name); }

    /** ConfigHelper.handleDescribeConfigsRequest (ConfigHelper.scala 49-80). */
    DescribeConfigsResponseData handle(DescribeConfigsRequestData req) {
        List<DescribeConfigsResource> authorized = new ArrayList<>(), unauthorized = new ArrayList<>();
        for (DescribeConfigsResource r : req.resources()) {
            boolean ok;
            switch (ConfigResource.Type.forId(r.resourceType())) {
                case BROKER: case BROKER_LOGGER: case CLIENT_METRICS: ok = authorize("cluster", "kafka-cluster"); break;
                case TOPIC: ok = authorize("topic", r.resourceName()); break;
                case GROUP: ok = authorize("group", r.resourceName()); break;
                default: throw new InvalidRequestException("Unexpected resource type " + r.resourceType());
            }
            (ok ? authorized : unauthorized).add(r);
        }
        List<DescribeConfigsResult> results = new ArrayList<>(describeConfigs(authorized, req.includeSynonyms(), req.includeDocumentation()));
        for (DescribeConfigsResource r : unauthorized) {
            Errors error;
            switch (ConfigResource.Type.forId(r.resourceType())) {
                case TOPIC: error = Errors.TOPIC_AUTHORIZATION_FAILED; break;
                case GROUP: error = Errors.GROUP_AUTHORIZATION_FAILED; break;
                default: error = Errors.CLUSTER_AUTHORIZATION_FAILED;
            }
            results.add(new DescribeConfigsResult().setErrorCode(error.code()).setErrorMessage(error.message())
                .setConfigs(Collections.emptyList()).setResourceName(r.resourceName()).setResourceType(r.resourceType()));
        }
        return new DescribeConfigsResponseData().setResults(results);
    }

    /** ConfigHelper.describeConfigs (ConfigHelper.scala 82-160). */
    List<DescribeConfigsResult> describeConfigs(List<DescribeConfigsResource> resources, boolean syn, boolean doc) {
        List<DescribeConfigsResult> out = new ArrayList<>();
        for (DescribeConfigsResource resource : resources) {
            DescribeConfigsResult result;
            try {
                result = describeOne(resource, syn, doc);
                result.setResourceName(resource.resourceName()).setResourceType(resource.resourceType());
            } catch (Throwable e) {
                ApiError err = ApiError.fromThrowable(e);
                result = new DescribeConfigsResult().setResourceName(resource.resourceName())
                    .setResourceType(resource.resourceType()).setErrorMessage(err.message())
                    .setErrorCode(err.error().code()).setConfigs(Collections.emptyList());
            }
            out.add(result);
        }
        return out;
    }

    private DescribeConfigsResult describeOne(DescribeConfigsResource resource, boolean syn, boolean doc) {
        String name = resource.resourceName();
        ConfigBroker.KConfig config = broker.currentConfig;
        switch (ConfigResource.Type.forId(resource.resourceType())) {
            case TOPIC: {
                Topic.validate(name);
                if (!topics.contains(name)) {
                    return new DescribeConfigsResult().setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                        .setConfigs(Collections.emptyList());
                }
                Properties topicProps = configRepository.apply(new ConfigResource(ConfigResource.Type.TOPIC, name));
                LogConfig logConfig = LogConfig.fromProps(config.extractLogConfigMap(), topicProps);
                return ConfigHelperUtils.createResponseConfig(resource, logConfig,
                    (n, v) -> topicEntry(logConfig, topicProps, syn, doc, n, v));
            }
            case BROKER:
                if (name == null || name.isEmpty()) {
                    return ConfigHelperUtils.createResponseConfig(resource, broker.dynamicDefaultConfigs,
                        (n, v) -> brokerEntry(false, syn, doc, n, v));
                } else if (resourceNameToBrokerId(name) == broker.brokerId) {
                    return ConfigHelperUtils.createResponseConfig(resource, config,
                        (n, v) -> brokerEntry(true, syn, doc, n, v));
                }
                throw new InvalidRequestException("Unexpected broker id, expected " + broker.brokerId + " or empty string, but received " + name);
            case CLIENT_METRICS: {
                if (name == null || name.isEmpty()) throw new InvalidRequestException("Client metrics subscription name must not be empty");
                Properties props = configRepository.apply(new ConfigResource(ConfigResource.Type.CLIENT_METRICS, name));
                ClientMetricsConfigs cm = ClientMetricsConfigs.fromProps(ClientMetricsConfigs.defaultConfigsMap(), props);
                return ConfigHelperUtils.createResponseConfig(resource, cm, (n, v) -> clientMetricsEntry(cm, props, syn, doc, n, v));
            }
            case GROUP: {
                if (name == null || name.isEmpty()) throw new InvalidRequestException("Group name must not be empty");
                Properties props = configRepository.apply(new ConfigResource(ConfigResource.Type.GROUP, name));
                GroupConfig gc = GroupConfig.fromProps(config.extractGroupConfigMap(config.groupCoordinatorConfig), props);
                return ConfigHelperUtils.createResponseConfig(resource, gc, (n, v) -> groupEntry(gc, props, syn, doc, n, v));
            }
            default:
                throw new InvalidRequestException("Unsupported resource type: " + ConfigResource.Type.forId(resource.resourceType()));
        }
    }

    /** ConfigHelper.createGroupConfigEntry (ConfigHelper.scala 162-194). */
    private DescribeConfigsResourceResult groupEntry(GroupConfig gc, Properties props, boolean syn, boolean doc, String name, Object value) {
        Optional<ConfigDef.Type> type = GroupConfig.configType(name);
        boolean sensitive = AbstractKafkaConfig.maybeSensitive(type);
        String valueAsString = sensitive ? null : ConfigDef.convertToString(value, type.orElse(null));
        List<DescribeConfigsSynonym> all = new ArrayList<>();
        Optional<String> brokerName = GroupConfig.brokerSynonym(name);
        if (brokerName.isPresent()) {
            all.addAll(configSynonyms(brokerName.get(), brokerSynonyms(brokerName.get()), sensitive));
        } else {
            Object v = GroupConfig.CONFIG_DEF.defaultValues().get(name);
            if (v != null) {
                all.add(new DescribeConfigsSynonym().setName(name)
                    .setValue(sensitive ? null : ConfigDef.convertToString(v, type.orElse(null)))
                    .setSource(ConfigSource.DEFAULT_CONFIG.id()));
            }
        }
        if (props.containsKey(name)) {
            all.add(0, new DescribeConfigsSynonym().setName(name).setValue(valueAsString).setSource(ConfigSource.GROUP_CONFIG.id()));
        }
        return entry(name, valueAsString, all, sensitive, false, syn, type, doc ? gc.documentationOf(name) : null);
    }

    /** ConfigHelper.createClientMetricsConfigEntry (ConfigHelper.scala 196-216). */
    private DescribeConfigsResourceResult clientMetricsEntry(ClientMetricsConfigs cm, Properties props, boolean syn, boolean doc, String name, Object value) {
        Optional<ConfigDef.Type> type = ClientMetricsConfigs.configType(name);
        String valueAsString = ConfigDef.convertToString(value, type.orElse(null));
        List<DescribeConfigsSynonym> all = new ArrayList<>();
        if (props.containsKey(name)) {
            all.add(new DescribeConfigsSynonym().setName(name).setValue(valueAsString).setSource(ConfigSource.CLIENT_METRICS_CONFIG.id()));
        }
        return entry(name, valueAsString, all, false, false, syn, type, doc ? cm.documentationOf(name) : null);
    }

    /** ConfigHelper.createTopicConfigEntry (ConfigHelper.scala 218-241). */
    DescribeConfigsResourceResult topicEntry(LogConfig lc, Properties props, boolean syn, boolean doc, String name, Object value) {
        Optional<ConfigDef.Type> type = LogConfig.configType(name);
        boolean sensitive = AbstractKafkaConfig.maybeSensitive(type);
        String valueAsString = sensitive ? null : ConfigDef.convertToString(value, type.orElse(null));
        List<DescribeConfigsSynonym> all = new ArrayList<>();
        String s = ServerTopicConfigSynonyms.TOPIC_CONFIG_SYNONYMS.get(name);
        if (s != null) all.addAll(configSynonyms(s, brokerSynonyms(s), sensitive));
        if (props.containsKey(name)) {
            all.add(0, new DescribeConfigsSynonym().setName(name).setValue(valueAsString).setSource(ConfigSource.TOPIC_CONFIG.id()));
        }
        return entry(name, valueAsString, all, sensitive, false, syn, type, doc ? lc.documentationOf(name) : null);
    }

    /** ConfigHelper.createBrokerConfigEntry (ConfigHelper.scala 243-265). */
    private DescribeConfigsResourceResult brokerEntry(boolean perBroker, boolean syn, boolean doc, String name, Object value) {
        List<String> allNames = brokerSynonyms(name);
        Optional<ConfigDef.Type> type = AbstractKafkaConfig.configType(name);
        boolean sensitive = AbstractKafkaConfig.maybeSensitive(type);
        String valueAsString = sensitive ? null : value instanceof String ? (String) value : ConfigDef.convertToString(value, type.orElse(null));
        List<DescribeConfigsSynonym> all = new ArrayList<>();
        for (DescribeConfigsSynonym x : configSynonyms(name, allNames, sensitive)) {
            if (perBroker || x.source() == ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG.id()) all.add(x);
        }
        boolean readOnly = !DynamicBrokerConfig.ALL_DYNAMIC_CONFIGS.contains(name);
        return entry(name, valueAsString, all, sensitive, readOnly, syn, type, doc ? broker.currentConfig.documentationOf(name) : null);
    }

    private static DescribeConfigsResourceResult entry(String name, String value, List<DescribeConfigsSynonym> all, boolean sensitive,
            boolean readOnly, boolean syn, Optional<ConfigDef.Type> type, String documentation) {
        byte source = all.isEmpty() ? ConfigSource.DEFAULT_CONFIG.id() : all.get(0).source();
        return new DescribeConfigsResourceResult().setName(name).setValue(value).setConfigSource(source)
            .setIsSensitive(sensitive).setReadOnly(readOnly).setSynonyms(syn ? all : List.of())
            .setDocumentation(documentation).setConfigType(configResponseType(type).id());
    }

    /** ConfigHelper.configSynonyms (ConfigHelper.scala 267-283). */
    private List<DescribeConfigsSynonym> configSynonyms(String name, List<String> synonyms, boolean sensitive) {
        List<DescribeConfigsSynonym> all = new ArrayList<>();
        addSynonyms(all, synonyms, broker.dynamicBrokerConfigs, ConfigSource.DYNAMIC_BROKER_CONFIG, sensitive);
        addSynonyms(all, synonyms, broker.dynamicDefaultConfigs, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, sensitive);
        addSynonyms(all, synonyms, broker.staticBrokerConfigs, ConfigSource.STATIC_BROKER_CONFIG, sensitive);
        addSynonyms(all, synonyms, broker.staticDefaultConfigs, ConfigSource.DEFAULT_CONFIG, sensitive);
        int i = 0;
        while (i < all.size() && !all.get(i).name().equals(name)) i++;
        return new ArrayList<>(all.subList(i, all.size()));
    }

    private static void addSynonyms(List<DescribeConfigsSynonym> all, List<String> names, Map<String, String> map, ConfigSource src, boolean sensitive) {
        for (String n : names) {
            String v = map.get(n);
            if (v != null) all.add(new DescribeConfigsSynonym().setName(n).setValue(sensitive ? null : v).setSource(src.id()));
        }
    }

    /** ConfigHelper.brokerSynonyms (ConfigHelper.scala 285-287). */
    private static List<String> brokerSynonyms(String name) { return DynamicBrokerConfig.brokerConfigSynonyms(name, true); }

    /** ConfigHelper.configResponseType (ConfigHelper.scala 293-308). */
    static ConfigType configResponseType(Optional<ConfigDef.Type> t) {
        if (t.isEmpty()) return ConfigType.UNKNOWN;
        switch (t.get()) {
            case BOOLEAN: return ConfigType.BOOLEAN;
            case STRING: return ConfigType.STRING;
            case INT: return ConfigType.INT;
            case SHORT: return ConfigType.SHORT;
            case LONG: return ConfigType.LONG;
            case DOUBLE: return ConfigType.DOUBLE;
            case LIST: return ConfigType.LIST;
            case CLASS: return ConfigType.CLASS;
            case PASSWORD: return ConfigType.PASSWORD;
            default: return ConfigType.UNKNOWN;
        }
    }

    /** ConfigHelper.resourceNameToBrokerId (ConfigHelper.scala 310-315). */
    private static int resourceNameToBrokerId(String name) {
        try {
            return Integer.parseInt(name);
        } catch (NumberFormatException e) {
            throw new InvalidRequestException("Broker id must be an integer, but it is: " + name);
        }
    }
}
