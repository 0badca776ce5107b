// meta.properties as Kafka 4.4 writes, reads and verifies it. Writes
// embed_metaprops.jsonl.gz: lines of kind "file" (a text, what
// MetaProperties.Builder(Properties).build() makes of it or the exception it
// throws) and of kind "ensemble" (two or three files in log directories,
// what MetaPropertiesEnsemble.Loader.load().verify(...) says). The files are
// written by Kafka's own PropertiesUtils.writePropertiesFile and then
// mutated (lines dropped, values replaced, separators, comments, escapes and
// continuations varied), so that both Kafka's output and malformed input
// are covered.
package kmetaoracle;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.metadata.properties.MetaProperties;
import org.apache.kafka.metadata.properties.MetaPropertiesEnsemble;
import org.apache.kafka.metadata.properties.MetaPropertiesVersion;
import org.apache.kafka.metadata.properties.PropertiesUtils;

public final class EmbedMetaProps {
    public static void main(String[] argv) throws Exception {
        Common.Args args = Common.Args.parse(argv);
        Random rnd = args.random("EmbedMetaProps");
        Path tmp = Files.createTempDirectory("kmeta-metaprops");
        try (Common.Out out = new Common.Out(args, "embed_metaprops")) {
            for (int i = 0; i < 400; i++) {
                String text = written(rnd, tmp.resolve("f" + i), randomProps(rnd, null, -1));
                if (i % 4 != 0) {
                    text = mutate(rnd, text);
                }
                Map<String, Object> v = new LinkedHashMap<>();
                v.put("kind", "file");
                v.put("text", text);
                v.putAll(parse(text.getBytes(StandardCharsets.ISO_8859_1)));
                out.line(v);
            }
            for (int i = 0; i < 150; i++) {
                out.line(ensemble(rnd, tmp.resolve("e" + i)));
            }
        }
    }

    static MetaProperties randomProps(Random rnd, String clusterId, int nodeId) {
        MetaProperties.Builder b = new MetaProperties.Builder();
        boolean v1 = rnd.nextInt(4) != 0;
        b.setVersion(v1 ? MetaPropertiesVersion.V1 : MetaPropertiesVersion.V0);
        if (v1 || rnd.nextBoolean()) {
            b.setClusterId(clusterId != null ? clusterId : Uuid.randomUuid().toString());
        }
        if (v1 || rnd.nextBoolean()) {
            b.setNodeId(nodeId >= 0 ? nodeId : rnd.nextInt(10));
        }
        int d = rnd.nextInt(6);
        if (d == 0) {
            b.setDirectoryId(new Uuid(0, rnd.nextInt(120)));
        } else if (d < 4) {
            b.setDirectoryId(Uuid.randomUuid());
        }
        return b.build();
    }

    static String written(Random rnd, Path file, MetaProperties mp) throws Exception {
        PropertiesUtils.writePropertiesFile(mp.toProperties(), file.toString(), false);
        return new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
    }

    static final String[] VALUES = {"", "x", "-1", "2", "1 ", " 1", "+3", "99999999999", "0x10", "1.0",
        "AAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAQ", "not-a-uuid", "\\u0031", "\\u00zz", "a\\\nb", "abc=def"};
    static final String[] KEYS = {"version", "cluster.id", "node.id", "broker.id", "directory.id"};

    static String mutate(Random rnd, String text) {
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        int n = 1 + rnd.nextInt(3);
        for (int k = 0; k < n; k++) {
            int i = rnd.nextInt(lines.size());
            String l = lines.get(i);
            switch (rnd.nextInt(8)) {
                case 0: lines.remove(i); if (lines.isEmpty()) lines.add(""); break;
                case 1: lines.set(i, KEYS[rnd.nextInt(KEYS.length)] + "=" + VALUES[rnd.nextInt(VALUES.length)]); break;
                case 2: lines.add(i, KEYS[rnd.nextInt(KEYS.length)] + pick(rnd, "=", ":", " ", " = ", "\t:") + VALUES[rnd.nextInt(VALUES.length)]); break;
                case 3: lines.set(i, l.replaceFirst("=", pick(rnd, ":", " ", " = ", "\t", "=  "))); break;
                case 4: lines.add(i, pick(rnd, "# version=1", "! node.id=7", "   ", "")); break;
                case 5: lines.set(i, "  " + l); break;
                case 6: {
                    int c = l.indexOf('=');
                    if (c > 0 && c + 2 < l.length()) lines.set(i, l.substring(0, c + 2) + "\\\n   " + l.substring(c + 2));
                    break;
                }
                default: lines.set(i, l.replace(".", "\\.")); break;
            }
        }
        String sep = rnd.nextInt(5) == 0 ? "\r\n" : "\n";
        return String.join(sep, lines);
    }

    static String pick(Random rnd, String... s) { return s[rnd.nextInt(s.length)]; }

    static Map<String, Object> parse(byte[] text) {
        Map<String, Object> v = new LinkedHashMap<>();
        try {
            Properties props = new Properties();
            props.load(new ByteArrayInputStream(text));
            MetaProperties mp = new MetaProperties.Builder(props).build();
            v.put("ok", true);
            v.put("version", mp.version().number());
            v.put("clusterId", mp.clusterId().orElse(null));
            v.put("nodeId", mp.nodeId().isPresent() ? mp.nodeId().getAsInt() : null);
            v.put("directoryId", mp.directoryId().map(Uuid::toString).orElse(null));
        } catch (Exception e) {
            v.put("ok", false);
            v.put("error", e.getMessage());
        }
        return v;
    }

    static Map<String, Object> ensemble(Random rnd, Path root) throws Exception {
        int n = 2 + rnd.nextInt(2);
        String cluster = Uuid.randomUuid().toString();
        int node = rnd.nextInt(5);
        List<String> dirs = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        Uuid shared = Uuid.randomUuid();
        for (int i = 0; i < n; i++) {
            Path dir = root.resolve("d" + i);
            Files.createDirectories(dir);
            String c = rnd.nextInt(6) == 0 ? Uuid.randomUuid().toString() : cluster;
            int id = rnd.nextInt(6) == 0 ? node + 1 : node;
            MetaProperties mp = randomProps(rnd, c, id);
            if (rnd.nextInt(6) == 0) {
                mp = new MetaProperties.Builder(mp).setDirectoryId(shared).build();
            }
            texts.add(written(rnd, dir.resolve("meta.properties"), mp));
            dirs.add(dir.toString());
        }
        Optional<String> expCluster = rnd.nextInt(4) == 0 ? Optional.of(rnd.nextBoolean() ? cluster : "other") : Optional.empty();
        OptionalInt expNode = rnd.nextInt(4) == 0 ? OptionalInt.of(rnd.nextBoolean() ? node : node + 2) : OptionalInt.empty();
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("kind", "ensemble");
        v.put("texts", texts);
        v.put("expectedClusterId", expCluster.orElse(""));
        v.put("expectedNodeId", expNode.isPresent() ? expNode.getAsInt() : -1);
        try {
            MetaPropertiesEnsemble ens = new MetaPropertiesEnsemble.Loader().addLogDirs(dirs).load();
            ens.verify(expCluster, expNode, EnumSet.noneOf(MetaPropertiesEnsemble.VerificationFlag.class));
            v.put("ok", true);
            v.put("clusterId", ens.clusterId().orElse(null));
            v.put("nodeId", ens.nodeId().isPresent() ? ens.nodeId().getAsInt() : null);
        } catch (Exception e) {
            v.put("ok", false);
            v.put("error", e.getMessage().replace(root.toString(), "ROOT"));
        }
        return v;
    }
}
