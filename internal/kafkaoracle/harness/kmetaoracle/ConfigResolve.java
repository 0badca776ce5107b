// Effective broker and topic configs and DescribeConfigs answers as a Kafka
// 4.4 broker computes them (ConfigBroker: DynamicBrokerConfig; ConfigDescribe:
// ConfigHelper; LogConfig.fromProps beneath), over seeded random config sets
// (static props, the cluster-wide dynamic default, per-broker configs, topic,
// group and client-metrics configs) and over every corpus image's configs
// loaded with Kafka's MetadataLoader. Writes config-resolve.jsonl.gz.
//
// Each vector holds its inputs, the dynamic configs DynamicBrokerConfig kept
// and ignored, the effective broker config (KafkaConfig.originals), each
// topic's LogConfig values, and DescribeConfigs requests with the encoded
// response at every version. Documentation strings are Kafka's text: the
// harness replaces them with null before encoding (never copied into kmeta)
// and counts them.
package kmetaoracle;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.storage.internals.log.LogConfig;

public final class ConfigResolve {
    static final int RANDOM_CASES = 200;

    public static void main(String[] argv) throws Exception {
        Common.Args args = Common.Args.parse(argv);
        Random rnd = args.random("ConfigResolve");
        try (Common.Out out = new Common.Out(args, "config-resolve")) {
            int made = 0;
            for (ConfigCases.Case c : ConfigCases.issue22()) out.line(run(c));
            for (int i = 0; made < RANDOM_CASES && i < RANDOM_CASES * 4; i++) {
                ConfigCases.Case c = ConfigCases.random(rnd);
                c.name = "random:" + i;
                Map<String, Object> v = run(c);
                if (v != null) {
                    out.line(v);
                    made++;
                }
            }
            int corpus = 0;
            for (Path p : corpusFiles(args.shared.resolve("corpus"))) {
                MetadataImage img;
                try {
                    img = Images.load(p);
                } catch (Exception e) {
                    System.err.println("skip " + p + ": " + e);
                    continue;
                }
                ConfigCases.Case c = ConfigCases.fromImage(img, rnd);
                if (c == null) continue;
                c.name = "corpus:" + args.shared.resolve("corpus").relativize(p);
                Map<String, Object> v = run(c);
                if (v != null) {
                    out.line(v);
                    corpus++;
                }
            }
            System.err.println("config-resolve: " + made + " random, " + corpus + " corpus");
        }
    }

    static List<Path> corpusFiles(Path root) throws Exception {
        List<Path> out = new ArrayList<>();
        if (!Files.isDirectory(root)) return out;
        try (Stream<Path> s = Files.walk(root)) {
            s.filter(Files::isRegularFile).filter(p -> {
                String n = p.getFileName().toString();
                return n.endsWith(".checkpoint") || n.endsWith(".log");
            }).sorted().forEach(out::add);
        }
        return out;
    }

    static Properties props(Map<String, String> m) {
        Properties p = new Properties();
        if (m != null) p.putAll(m);
        return p;
    }

    static Map<String, Object> run(ConfigCases.Case c) throws Exception {
        ConfigBroker b;
        try {
            b = new ConfigBroker(c.staticProps);
        } catch (Exception e) {
            return null;
        }
        Map<ConfigResource, Map<String, String>> repo = new LinkedHashMap<>();
        for (String[] e : c.configs) {
            ConfigResource r = new ConfigResource(ConfigResource.Type.forId(Byte.parseByte(e[0])), e[1]);
            repo.computeIfAbsent(r, k -> new TreeMap<>()).put(e[2], e[3]);
        }
        b.updateDefaultConfig(props(repo.get(new ConfigResource(ConfigResource.Type.BROKER, ""))));
        Map<String, String> ignoredDefault = new LinkedHashMap<>(b.ignored);
        b.ignored.clear();
        b.updateBrokerConfig(props(repo.get(new ConfigResource(ConfigResource.Type.BROKER, String.valueOf(b.brokerId)))));
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("name", c.name);
        v.put("static", new TreeMap<>(c.staticProps));
        v.put("configs", c.configs);
        v.put("topics", c.topics);
        v.put("dynamicDefault", new TreeMap<>(b.dynamicDefaultConfigs));
        v.put("dynamicBroker", new TreeMap<>(b.dynamicBrokerConfigs));
        v.put("ignoredDefault", ignoredDefault);
        v.put("ignoredBroker", new LinkedHashMap<>(b.ignored));
        v.put("failed", b.failed != null);
        v.put("effective", new TreeMap<>(ConfigDef.convertToStringMapWithPasswordValues(b.currentConfig.originals())));
        Map<String, Object> topicConfigs = new TreeMap<>();
        for (String t : c.topics) {
            Properties tp = props(repo.get(new ConfigResource(ConfigResource.Type.TOPIC, t)));
            try {
                LogConfig lc = LogConfig.fromProps(b.currentConfig.extractLogConfigMap(), tp);
                Map<String, String> vals = new TreeMap<>();
                lc.nonInternalValues().forEach((k, x) -> vals.put(k, ConfigDef.convertToString(x, LogConfig.configType(k).orElse(null))));
                topicConfigs.put(t, vals);
            } catch (Exception e) {
                topicConfigs.put(t, "error");
            }
        }
        v.put("topicConfigs", topicConfigs);
        Set<String> topicSet = new HashSet<>(c.topics);
        ConfigDescribe d = new ConfigDescribe(b, topicSet, r -> props(repo.get(r)), new HashSet<>(c.denied));
        v.put("denied", c.denied);
        List<Object> reqs = new ArrayList<>();
        for (DescribeConfigsRequestData req : c.requests) reqs.add(describe(d, req));
        v.put("requests", reqs);
        return v;
    }

    static Map<String, Object> describe(ConfigDescribe d, DescribeConfigsRequestData req) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("synonyms", req.includeSynonyms());
        r.put("documentation", req.includeDocumentation());
        List<Object> res = new ArrayList<>();
        for (DescribeConfigsRequestData.DescribeConfigsResource x : req.resources()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", x.resourceType());
            m.put("name", x.resourceName());
            m.put("keys", x.configurationKeys());
            res.add(m);
        }
        r.put("resources", res);
        DescribeConfigsResponseData resp = d.handle(req);
        int docs = 0;
        for (DescribeConfigsResponseData.DescribeConfigsResult x : resp.results()) {
            for (DescribeConfigsResponseData.DescribeConfigsResourceResult e : x.configs()) {
                if (e.documentation() != null) {
                    docs++;
                    e.setDocumentation(null);
                }
            }
        }
        r.put("docs", docs);
        Map<String, String> enc = new TreeMap<>();
        for (short ver = ApiKeys.DESCRIBE_CONFIGS.oldestVersion(); ver <= ApiKeys.DESCRIBE_CONFIGS.latestVersion(); ver++) {
            enc.put(String.valueOf(ver), Base64.getEncoder().encodeToString(
                MessageUtil.byteBufferToArray(MessageUtil.toByteBufferAccessor(resp, ver).buffer())));
        }
        r.put("responses", enc);
        return r;
    }
}
