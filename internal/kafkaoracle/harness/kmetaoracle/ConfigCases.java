// The inputs of the config generators: seeded random broker, topic, group
// and client-metrics config sets with DescribeConfigs requests, the fixed
// cases issue 22 reported, and the configs of a corpus image. Values are
// drawn from Kafka's own ConfigDefs (type, validator), with some of the
// wrong type or outside their range. Written for kmeta.
package kmetaoracle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.coordinator.group.GroupConfig;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.server.config.AbstractKafkaConfig;
import org.apache.kafka.server.config.DynamicConfig;
import org.apache.kafka.storage.internals.log.LogConfig;

final class ConfigCases {
    private ConfigCases() { }

    static final class Case {
        String name;
        Map<String, String> staticProps = new TreeMap<>();
        List<String[]> configs = new ArrayList<>(); // type id, resource name, key, value
        List<String> topics = new ArrayList<>();
        List<String> denied = new ArrayList<>();
        List<DescribeConfigsRequestData> requests = new ArrayList<>();
    }

    static final String[] NON_DYNAMIC = {
        "log.retention.hours", "log.retention.minutes", "log.roll.hours", "log.roll.jitter.hours",
        "log.flush.scheduler.interval.ms", "num.partitions", "broker.rack", "log.dirs", "auto.create.topics.enable",
    };
    static final String[] LISTENER_BASES = {
        "ssl.keystore.type", "ssl.protocol", "max.connections", "num.network.threads", "max.connection.creation.rate",
        "plain.sasl.jaas.config", "scram-sha-256.sasl.jaas.config", "ssl.client.auth", "sasl.enabled.mechanisms",
    };
    static final String[] REMOVED = {
        "log.message.format.version", "log.message.timestamp.difference.max.ms", "log.message.downconversion.enable",
    };

    static Map<String, String> baseStatic(int id) {
        Map<String, String> s = new TreeMap<>();
        s.put("process.roles", "broker");
        s.put("node.id", String.valueOf(id));
        s.put("controller.listener.names", "CONTROLLER");
        s.put("controller.quorum.bootstrap.servers", "localhost:9093");
        s.put("listeners", "PLAINTEXT://:9092");
        s.put("log.dirs", "/tmp/kraft-logs");
        return s;
    }

    static void put(Case c, ConfigResource.Type t, String res, String k, String v) {
        c.configs.add(new String[]{String.valueOf(t.id()), res, k, v});
    }

    /** A value for config key k: valid for its type and validator, or (rarely) not. */
    static String value(Random r, ConfigDef.ConfigKey k) {
        if (r.nextInt(25) == 0) return r.nextBoolean() ? "not-a-value" : "";
        Object min = null, max = null;
        List<String> valid = null;
        try {
            if (k.validator != null) {
                switch (k.validator.getClass().getSimpleName()) {
                    case "Range": min = ConfigDefs.get(k.validator, "min"); max = ConfigDefs.get(k.validator, "max"); break;
                    case "ValidString": valid = castList(ConfigDefs.get(k.validator, "validStrings")); break;
                    case "ValidList": valid = castList(ConfigDefs.get(ConfigDefs.get(k.validator, "validString"), "validStrings")); break;
                    case "CaseInsensitiveValidString":
                        valid = new ArrayList<>();
                        for (Object o : (Iterable<?>) ConfigDefs.get(k.validator, "validStrings")) valid.add(String.valueOf(o).toLowerCase());
                        break;
                    default:
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        Object def = k.defaultValue == ConfigDef.NO_DEFAULT_VALUE ? null : k.defaultValue;
        switch (k.type) {
            case BOOLEAN: return new String[]{"true", "false", "TRUE", " false"}[r.nextInt(4)];
            case INT: case SHORT: case LONG: {
                long lo = min == null ? -5 : ((Number) min).longValue();
                long hi = max == null ? lo + 100000 : ((Number) max).longValue();
                if (k.type == ConfigDef.Type.SHORT) hi = Math.min(hi, Short.MAX_VALUE);
                if (k.type == ConfigDef.Type.INT) hi = Math.min(hi, Integer.MAX_VALUE);
                long x = r.nextInt(3) == 0 && def != null ? ((Number) def).longValue() : lo + (long) (r.nextDouble() * (double) (hi - lo));
                if (r.nextInt(30) == 0) x = lo - 1; // outside the range
                return r.nextInt(10) == 0 ? " " + x + " " : String.valueOf(x);
            }
            case DOUBLE: {
                double lo = min == null ? 0 : ((Number) min).doubleValue();
                double hi = max == null ? lo + 10 : ((Number) max).doubleValue();
                double x = lo + r.nextDouble() * (hi - lo);
                return new String[]{String.valueOf(x), String.format("%.2f", x), String.valueOf((long) x), String.valueOf(x * 1e-4)}[r.nextInt(4)];
            }
            case LIST: {
                if (valid != null && !valid.isEmpty()) {
                    List<String> pick = new ArrayList<>();
                    for (String v : valid) if (r.nextBoolean()) pick.add(v);
                    if (pick.isEmpty()) pick.add(valid.get(0));
                    return String.join(r.nextBoolean() ? "," : ", ", pick);
                }
                return def == null ? "a,b" : ConfigDef.convertToString(def, k.type);
            }
            case STRING:
                if (valid != null && !valid.isEmpty()) return valid.get(r.nextInt(valid.size()));
                return def != null && r.nextBoolean() ? String.valueOf(def) : "v" + r.nextInt(100);
            case PASSWORD: return "secret-" + r.nextInt(1000);
            case CLASS:
                return def == null ? "java.lang.Object" : ConfigDef.convertToString(def, k.type);
            default: return "x";
        }
    }

    @SuppressWarnings("unchecked")
    static List<String> castList(Object o) { return new ArrayList<>((List<String>) o); }

    static <T> T pick(Random r, List<T> l) { return l.get(r.nextInt(l.size())); }

    /** Keys for a dynamic broker resource: dynamic ones mostly, plus every kind DynamicBrokerConfig ignores. */
    static void brokerConfigs(Random r, Case c, String res, int n) {
        List<ConfigDef.ConfigKey> dyn = new ArrayList<>(DynamicConfig.Broker.configKeys().values());
        dyn.sort((a, b) -> a.name.compareTo(b.name));
        for (int i = 0; i < n; i++) {
            int kind = r.nextInt(20);
            String k, v;
            if (kind < 13) {
                ConfigDef.ConfigKey key = pick(r, dyn);
                k = key.name;
                v = value(r, key);
            } else if (kind < 15) {
                k = NON_DYNAMIC[r.nextInt(NON_DYNAMIC.length)];
                ConfigDef.ConfigKey key = AbstractKafkaConfig.CONFIG_DEF.configKeys().get(k);
                v = value(r, key);
            } else if (kind < 17) {
                String base = LISTENER_BASES[r.nextInt(LISTENER_BASES.length)];
                k = "listener.name." + (r.nextBoolean() ? "plaintext" : "external") + "." + base;
                ConfigDef.ConfigKey key = AbstractKafkaConfig.CONFIG_DEF.configKeys().get(base);
                v = key == null ? "x" : value(r, key);
            } else if (kind < 18) {
                k = REMOVED[r.nextInt(REMOVED.length)];
                v = "1";
            } else {
                k = "x.custom." + r.nextInt(5);
                v = "c" + r.nextInt(10);
            }
            put(c, ConfigResource.Type.BROKER, res, k, v);
        }
    }

    static Case random(Random r) {
        Case c = new Case();
        int id = r.nextInt(4);
        c.staticProps = baseStatic(id);
        List<ConfigDef.ConfigKey> all = new ArrayList<>(AbstractKafkaConfig.CONFIG_DEF.configKeys().values());
        List<ConfigDef.ConfigKey> logKeys = new ArrayList<>();
        for (ConfigDef.ConfigKey k : all) if (k.name.startsWith("log.") || k.name.startsWith("compression.") || k.name.equals("message.max.bytes") || k.name.equals("min.insync.replicas")) logKeys.add(k);
        for (int i = r.nextInt(6); i > 0; i--) {
            ConfigDef.ConfigKey k = pick(r, logKeys);
            if (k.name.equals("log.dirs") || k.name.equals("log.dir")) continue;
            String v = value(r, k);
            if (!v.equals("not-a-value") && !v.isEmpty()) c.staticProps.put(k.name, v);
        }
        if (r.nextInt(4) == 0) c.staticProps.put("x.static.custom", "s");
        brokerConfigs(r, c, "", r.nextInt(7));
        brokerConfigs(r, c, String.valueOf(r.nextInt(5) == 0 ? id + 1 : id), r.nextInt(6));
        List<ConfigDef.ConfigKey> topicKeys = new ArrayList<>(LogConfig.configDefCopy().configKeys().values());
        for (int t = r.nextInt(3) + 1; t > 0; t--) {
            String name = "topic-" + r.nextInt(100);
            if (c.topics.contains(name)) continue;
            c.topics.add(name);
            for (int i = r.nextInt(5); i > 0; i--) {
                ConfigDef.ConfigKey k = pick(r, topicKeys);
                if (k.internalConfig) continue;
                String v = value(r, k);
                if (r.nextInt(4) != 0 && (v.equals("not-a-value") || v.isEmpty())) continue;
                put(c, ConfigResource.Type.TOPIC, name, k.name, v);
            }
        }
        List<ConfigDef.ConfigKey> groupKeys = new ArrayList<>(GroupConfig.CONFIG_DEF.configKeys().values());
        for (int g = r.nextInt(2); g > 0; g--) {
            for (int i = r.nextInt(3); i > 0; i--) {
                ConfigDef.ConfigKey k = pick(r, groupKeys);
                if (k.internalConfig || k.validator != null && k.validator.getClass().getSimpleName().equals("Validator")) continue;
                String v = value(r, k);
                if (v.equals("not-a-value") || v.isEmpty()) continue;
                put(c, ConfigResource.Type.GROUP, "group-" + g, k.name, v);
            }
        }
        if (r.nextBoolean()) {
            put(c, ConfigResource.Type.CLIENT_METRICS, "sub-1", "interval.ms", String.valueOf(1000 + r.nextInt(100000)));
            if (r.nextBoolean()) put(c, ConfigResource.Type.CLIENT_METRICS, "sub-1", "metrics", "org.apache.kafka.producer., org.apache.kafka.consumer.");
            if (r.nextBoolean()) put(c, ConfigResource.Type.CLIENT_METRICS, "sub-1", "match", "client_id=a.*");
        }
        requests(r, c, id);
        return c;
    }

    static void requests(Random r, Case c, int id) {
        List<String[]> resources = new ArrayList<>();
        for (String t : c.topics) resources.add(new String[]{"2", t});
        resources.add(new String[]{"2", "missing-topic"});
        resources.add(new String[]{"2", "bad/name"});
        resources.add(new String[]{"4", ""});
        resources.add(new String[]{"4", String.valueOf(id)});
        resources.add(new String[]{"4", String.valueOf(id + 1)});
        resources.add(new String[]{"4", "abc"});
        resources.add(new String[]{"32", "group-1"});
        resources.add(new String[]{"32", ""});
        resources.add(new String[]{"16", "sub-1"});
        resources.add(new String[]{"16", ""});
        if (r.nextInt(3) == 0) c.denied.add("cluster:kafka-cluster");
        if (!c.topics.isEmpty() && r.nextInt(3) == 0) c.denied.add("topic:" + c.topics.get(0));
        if (r.nextInt(4) == 0) c.denied.add("group:group-1");
        for (int q = r.nextInt(2) + 1; q > 0; q--) {
            DescribeConfigsRequestData req = new DescribeConfigsRequestData()
                .setIncludeSynonyms(r.nextBoolean()).setIncludeDocumentation(r.nextBoolean());
            for (int i = r.nextInt(4) + 1; i > 0; i--) {
                String[] res = pick(r, resources);
                DescribeConfigsRequestData.DescribeConfigsResource x = new DescribeConfigsRequestData.DescribeConfigsResource()
                    .setResourceType(Byte.parseByte(res[0])).setResourceName(res[1]);
                int keys = res[0].equals("4") && !res[1].isEmpty() && r.nextInt(3) != 0 ? 1 : r.nextInt(4);
                if (keys == 0) {
                    x.setConfigurationKeys(null);
                } else if (keys == 1) {
                    x.setConfigurationKeys(new ArrayList<>(List.of("retention.ms", "log.retention.ms", "segment.ms",
                        "interval.ms", "consumer.session.timeout.ms", "x.custom.1", "compression.gzip.level", "log.retention.hours")));
                } else {
                    x.setConfigurationKeys(new ArrayList<>());
                }
                req.resources().add(x);
            }
            c.requests.add(req);
        }
    }

    /** The fixed cases of issue 22: what answer.TopicConfig got wrong. */
    static List<Case> issue22() {
        List<Case> out = new ArrayList<>();
        Case a = fixed("issue22:dynamic-log.retention.hours");
        put(a, ConfigResource.Type.BROKER, "", "log.retention.hours", "2");
        out.add(a);
        Case b = fixed("issue22:synonyms");
        for (String k : new String[]{"compression.gzip.level", "compression.lz4.level", "compression.zstd.level"}) {
            put(b, ConfigResource.Type.BROKER, "", k, "5");
        }
        put(b, ConfigResource.Type.BROKER, "", "log.remote.copy.lag.ms", "12345");
        put(b, ConfigResource.Type.BROKER, "", "log.remote.copy.lag.bytes", "67890");
        out.add(b);
        Case e = fixed("issue22:removed-synonyms");
        for (String k : REMOVED) put(e, ConfigResource.Type.BROKER, "", k, "1");
        out.add(e);
        Case d = fixed("issue22:per-broker-above-default");
        put(d, ConfigResource.Type.BROKER, "", "log.retention.ms", "1000");
        put(d, ConfigResource.Type.BROKER, "1", "log.retention.ms", "2000");
        out.add(d);
        return out;
    }

    static Case fixed(String name) {
        Case c = new Case();
        c.name = name;
        c.staticProps = baseStatic(1);
        c.topics.add("orders");
        DescribeConfigsRequestData req = new DescribeConfigsRequestData().setIncludeSynonyms(true);
        req.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 2).setResourceName("orders"));
        req.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 4).setResourceName("1"));
        req.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 4).setResourceName(""));
        c.requests.add(req);
        return c;
    }

    /** A corpus image's configs and topics, described by a broker with the base static config and node id 1. */
    static Case fromImage(MetadataImage img, Random r) {
        Case c = new Case();
        c.staticProps = baseStatic(1);
        img.configs().resourceData().forEach((res, data) -> data.data().forEach((k, v) ->
            put(c, res.type(), res.name(), k, v)));
        img.topics().topicsByName().keySet().stream().sorted().forEach(c.topics::add);
        if (c.configs.isEmpty() && c.topics.isEmpty()) return null;
        DescribeConfigsRequestData req = new DescribeConfigsRequestData().setIncludeSynonyms(true);
        for (String t : c.topics) {
            req.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 2).setResourceName(t));
        }
        req.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 4).setResourceName(""));
        c.requests.add(req);
        return c;
    }
}
