// Kafka 4.4's config definitions as data: every broker config
// (AbstractKafkaConfig.CONFIG_DEF and the dynamic-only broker quota configs of
// QuotaConfig.brokerQuotaConfigs), topic config (LogConfig), group config
// (GroupConfig) and client-metrics config (ClientMetricsConfigs), each with
// its type, default, validator, update mode (DynamicBrokerConfig's sets) and
// broker synonyms (ServerTopicConfigSynonyms, GroupConfig.brokerSynonym).
// Documentation strings are not written. Writes config-defs.jsonl.gz, the
// input of internal/configgen.
package kmetaoracle;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.coordinator.group.GroupConfig;
import org.apache.kafka.server.config.AbstractKafkaConfig;
import org.apache.kafka.server.config.ConfigSynonym;
import org.apache.kafka.server.config.DynamicBrokerConfig;
import org.apache.kafka.server.config.QuotaConfig;
import org.apache.kafka.server.config.ServerTopicConfigSynonyms;
import org.apache.kafka.server.metrics.ClientMetricsConfigs;
import org.apache.kafka.storage.internals.log.LogConfig;

public final class ConfigDefs {
    public static void main(String[] argv) throws Exception {
        Common.Args args = Common.Args.parse(argv);
        Map<String, String> modes = DynamicBrokerConfig.dynamicConfigUpdateModes();
        try (Common.Out out = new Common.Out(args, "config-defs")) {
            int order = 0;
            for (ConfigDef.ConfigKey k : AbstractKafkaConfig.CONFIG_DEF.configKeys().values()) {
                Map<String, Object> v = key("broker", k, order++);
                v.put("mode", modes.getOrDefault(k.name, "read-only"));
                if (DynamicBrokerConfig.DYNAMIC_SECURITY_CONFIGS.contains(k.name)) v.put("security", true);
                out.line(v);
            }
            order = 0;
            for (ConfigDef.ConfigKey k : QuotaConfig.brokerQuotaConfigs().configKeys().values()) {
                Map<String, Object> v = key("broker-quota", k, order++);
                v.put("mode", modes.getOrDefault(k.name, "cluster-wide"));
                out.line(v);
            }
            order = 0;
            for (ConfigDef.ConfigKey k : LogConfig.configDefCopy().configKeys().values()) {
                Map<String, Object> v = key("topic", k, order++);
                List<ConfigSynonym> syns = ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS.get(k.name);
                if (syns != null) {
                    List<Object> l = new ArrayList<>();
                    for (ConfigSynonym s : syns) {
                        // The converter is a function; its effect on "1" names it (1, 60000 or 3600000).
                        l.add(List.of(s.name(), s.converter().apply("1")));
                    }
                    v.put("synonyms", l);
                }
                out.line(v);
            }
            order = 0;
            for (ConfigDef.ConfigKey k : GroupConfig.CONFIG_DEF.configKeys().values()) {
                Map<String, Object> v = key("group", k, order++);
                GroupConfig.brokerSynonym(k.name).ifPresent(s -> v.put("synonyms", List.of(List.of(s, "1"))));
                out.line(v);
            }
            order = 0;
            for (ConfigDef.ConfigKey k : clientMetricsDef().configKeys().values()) {
                out.line(key("client-metrics", k, order++));
            }
            System.err.println("config-defs: " + out.lines() + " configs");
        }
    }

    static ConfigDef clientMetricsDef() throws Exception {
        Field f = ClientMetricsConfigs.class.getDeclaredField("CONFIG");
        f.setAccessible(true);
        return (ConfigDef) f.get(null);
    }

    static Map<String, Object> key(String set, ConfigDef.ConfigKey k, int order) throws Exception {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("set", set);
        v.put("name", k.name);
        v.put("order", order);
        v.put("type", k.type.name());
        v.put("internal", k.internalConfig);
        if (k.defaultValue == ConfigDef.NO_DEFAULT_VALUE) {
            v.put("required", true);
        } else {
            Object parsed = k.defaultValue == null ? null : ConfigDef.parseType(k.name, k.defaultValue, k.type);
            v.put("default", k.type == ConfigDef.Type.PASSWORD && parsed != null
                ? ((org.apache.kafka.common.config.types.Password) parsed).value()
                : ConfigDef.convertToString(parsed, k.type));
        }
        if (k.validator != null) v.put("validator", validator(k.validator));
        return v;
    }

    /** A validator as data: its kind and parameters, read from its fields. */
    static Object validator(ConfigDef.Validator val) throws Exception {
        Map<String, Object> v = new LinkedHashMap<>();
        String kind = val.getClass().getSimpleName();
        v.put("kind", kind);
        switch (kind) {
            case "Range":
                Object min = get(val, "min"), max = get(val, "max");
                v.put("min", min == null ? null : min.toString());
                v.put("max", max == null ? null : max.toString());
                break;
            case "ValidString":
                v.put("values", get(val, "validStrings"));
                break;
            case "CaseInsensitiveValidString":
                v.put("values", new TreeSet<>((java.util.Set<?>) get(val, "validStrings")));
                break;
            case "ValidList":
                v.put("values", get(get(val, "validString"), "validStrings"));
                v.put("emptyAllowed", get(val, "isEmptyAllowed"));
                v.put("nullAllowed", get(val, "isNullAllowed"));
                break;
            case "ListSize":
                v.put("max", get(val, "maxSize"));
                break;
            case "CompositeValidator":
                List<Object> parts = new ArrayList<>();
                for (Object p : (List<?>) get(val, "validators")) parts.add(validator((ConfigDef.Validator) p));
                v.put("all", parts);
                break;
            default:
                v.put("text", val.toString());
        }
        return v;
    }

    static Object get(Object o, String field) throws Exception {
        Class<?> c = o.getClass();
        while (c != null) {
            try {
                Field f = c.getDeclaredField(field);
                f.setAccessible(true);
                return f.get(o);
            } catch (NoSuchFieldException e) {
                c = c.getSuperclass();
            }
        }
        throw new NoSuchFieldException(field + " of " + o.getClass());
    }
}
