// kmeta's oracle harness, quotas: seeded random client-quota images (entities of user, client-id and ip,
// defaults, empty names, odd characters), Kafka's ClientQuotasImage built from them by ClientQuotasDelta, the
// quotas of the snapshot scenarios' images, and the JSON form the Go tests read back.
package kmetaoracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.metadata.ClientQuotaRecord;
import org.apache.kafka.image.ClientQuotasDelta;
import org.apache.kafka.image.ClientQuotasImage;

final class QuotaImages {
    private QuotaImages() { }

    static final String[] USERS = {"alice", "bob", "carol", "", "a b", "x*y", "\u00fc-ser", "User:z", "d+e", "%41", "\u65e5\u672c", "u.v_w"};
    static final String[] CLIENTS = {"app", "app-1", "", "c d", "*", "bob", "x/y", "\u00fcn\u00ef", "%20", "alice"};
    static final String[] CLIENT_KEYS = {"producer_byte_rate", "consumer_byte_rate", "request_percentage", "controller_mutation_rate"};
    /** Addresses (as bytes) the IP entities and the connecting clients are drawn from. */
    static final String[] ADDRS = {"10.0.0.1", "10.0.0.2", "192.168.1.10", "127.0.0.1", "1.2.3.4", "0.0.0.0",
        "255.255.255.255", "::1", "fe80::1", "2001:db8::7", "2001:db8:0:0:1:0:0:1", "::1.2.3.4"};

    /** One entity: its parts (type to name, null for the default) and quotas. */
    static final class Entity {
        final TreeMap<String, String> parts = new TreeMap<>();
        final TreeMap<String, Double> values = new TreeMap<>();
    }

    /** A seeded random quota image: a profile of entity shapes, then entities of those shapes. */
    static List<Entity> random(Random rnd, int maxEntities) {
        // The eight user/client-id shapes: bit 0..7 = U, <d>U, C, <d>C, U+C, U+<d>C, <d>U+C, <d>U+<d>C.
        int shapes = rnd.nextInt(4) == 0 ? 1 << rnd.nextInt(8) : 1 + rnd.nextInt(255);
        int n = rnd.nextInt(maxEntities + 1);
        Map<String, Entity> byKey = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            int shape;
            do { shape = rnd.nextInt(8); } while ((shapes & (1 << shape)) == 0);
            Entity e = new Entity();
            String u = pick(rnd, USERS), c = pick(rnd, CLIENTS);
            switch (shape) {
                case 0: e.parts.put("user", u); break;
                case 1: e.parts.put("user", null); break;
                case 2: e.parts.put("client-id", c); break;
                case 3: e.parts.put("client-id", null); break;
                case 4: e.parts.put("user", u); e.parts.put("client-id", c); break;
                case 5: e.parts.put("user", u); e.parts.put("client-id", null); break;
                case 6: e.parts.put("user", null); e.parts.put("client-id", c); break;
                default: e.parts.put("user", null); e.parts.put("client-id", null); break;
            }
            fillClientValues(rnd, e);
            byKey.put(key(e), e);
        }
        if (rnd.nextInt(4) == 0) { // an entity of no supported type: ignored
            Entity e = new Entity();
            e.parts.put("group", "g");
            e.values.put("producer_byte_rate", 5.0);
            byKey.put(key(e), e);
        }
        if (rnd.nextInt(4) == 0) { // a user entity with a part of another type, under a user no other entity names
            Entity e = new Entity();
            e.parts.put("user", "zed");
            if (rnd.nextBoolean()) e.parts.put("client-id", pick(rnd, CLIENTS));
            e.parts.put("group", "g");
            fillClientValues(rnd, e);
            byKey.put(key(e), e);
        }
        addIpEntities(rnd, byKey);
        return new ArrayList<>(byKey.values());
    }

    private static void fillClientValues(Random rnd, Entity e) {
        for (String k : CLIENT_KEYS) {
            if (rnd.nextInt(3) != 0) e.values.put(k, value(rnd));
        }
        if (rnd.nextInt(10) == 0) e.values.put("connection_creation_rate", value(rnd)); // unexpected here: ignored
        if (rnd.nextInt(10) == 0) e.values.put("other_rate", value(rnd));
        if (e.values.isEmpty()) e.values.put(pick(rnd, CLIENT_KEYS), value(rnd));
    }

    private static void addIpEntities(Random rnd, Map<String, Entity> byKey) {
        List<String> addrs = new ArrayList<>(Arrays.asList(ADDRS));
        java.util.Collections.shuffle(addrs, rnd);
        int n = rnd.nextInt(5);
        for (int i = 0; i < n; i++) {
            Entity e = new Entity();
            e.parts.put("ip", QuotaIps.spelling(rnd, addrs.get(i)));
            if (rnd.nextInt(8) == 0) e.parts.put("user", "bob"); // routed as an IP quota all the same
            e.values.put("connection_creation_rate", ipValue(rnd));
            if (rnd.nextInt(8) == 0) e.values.put("producer_byte_rate", value(rnd)); // unexpected on ip: ignored
            byKey.put(key(e), e);
        }
        if (rnd.nextInt(3) == 0) {
            Entity e = new Entity();
            e.parts.put("ip", null);
            e.values.put("connection_creation_rate", ipValue(rnd));
            byKey.put(key(e), e);
        }
    }

    static double value(Random rnd) {
        switch (rnd.nextInt(5)) {
            case 0: return 1 + rnd.nextInt(100);
            case 1: return (1 + rnd.nextInt(1 << 20)) * 1024.0;
            case 2: return rnd.nextInt(1000) / 8.0;
            case 3: return 1e-3 * (1 + rnd.nextInt(9));
            default: return 1 + rnd.nextInt(10_000_000);
        }
    }

    static double ipValue(Random rnd) {
        switch (rnd.nextInt(6)) {
            case 0: return 2147483647.0;   // Integer.MAX_VALUE: no throttling
            case 1: return 3e9;            // cut to Integer.MAX_VALUE
            case 2: return 7.9;            // cut to 7
            default: return 1 + rnd.nextInt(1000);
        }
    }

    static <T> T pick(Random rnd, T[] xs) { return xs[rnd.nextInt(xs.length)]; }

    /** kmeta's canonical key of an entity (image.QuotaEntityKey): "type=name" or "type", by type, NUL-joined. */
    static String key(Entity e) {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, String> p : e.parts.entrySet()) {
            if (b.length() > 0) b.append('\0');
            b.append(p.getKey());
            if (p.getValue() != null) b.append('=').append(p.getValue());
        }
        return b.toString();
    }

    /** Compares strings by their UTF-8 bytes, as Go compares strings. */
    static final Comparator<String> UTF8 = (a, b) -> Arrays.compareUnsigned(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

    /** Kafka's ClientQuotasDelta replaying one ClientQuotaRecord per entity and key, from the empty image. */
    static ClientQuotasDelta delta(List<Entity> entities) {
        ClientQuotasDelta d = new ClientQuotasDelta(ClientQuotasImage.EMPTY);
        for (Entity e : entities) {
            for (Map.Entry<String, Double> v : e.values.entrySet()) d.replay(record(e, v.getKey(), v.getValue()));
        }
        return d;
    }

    /** The ClientQuotaRecord setting key of e to value, or removing it when value is null. */
    static ClientQuotaRecord record(Entity e, String key, Double value) {
        ClientQuotaRecord r = new ClientQuotaRecord().setKey(key).setValue(value == null ? 0 : value).setRemove(value == null);
        List<ClientQuotaRecord.EntityData> parts = new ArrayList<>();
        for (Map.Entry<String, String> p : e.parts.entrySet()) {
            parts.add(new ClientQuotaRecord.EntityData().setEntityType(p.getKey()).setEntityName(p.getValue()));
        }
        return r.setEntity(parts);
    }

    /** The entities of a Kafka ClientQuotasImage, in kmeta's key order. */
    static List<Entity> entities(ClientQuotasImage image) {
        Map<String, Entity> byKey = new TreeMap<>(UTF8);
        image.entities().forEach((entity, q) -> {
            Entity e = new Entity();
            e.parts.putAll(entity.entries());
            e.values.putAll(q.quotas());
            byKey.put(key(e), e);
        });
        return new ArrayList<>(byKey.values());
    }

    /** The entities as the Go tests read them. */
    static List<Object> json(List<Entity> entities) {
        List<Object> out = new ArrayList<>();
        for (Entity e : entities) {
            List<Object> parts = new ArrayList<>();
            for (Map.Entry<String, String> p : e.parts.entrySet()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("type", p.getKey());
                m.put("name", p.getValue());
                parts.add(m);
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("parts", parts);
            m.put("values", e.values);
            out.add(m);
        }
        return out;
    }

    /**
     * The client quotas of each snapshot scenario's image as Kafka wrote it (vectors/snapshots*\/NAME/
     * snapshot-records.jsonl, MetadataImage.write's CLIENT_QUOTA_RECORDs), by scenario "folder/NAME".
     */
    static Map<String, List<Entity>> scenarios(Path shared) throws IOException {
        Map<String, List<Entity>> out = new TreeMap<>();
        ObjectMapper om = new ObjectMapper();
        for (String folder : new String[] {"snapshots", "snapshots-4.4"}) {
            Path dir = shared.resolve("vectors").resolve(folder);
            if (!Files.isDirectory(dir)) continue;
            try (Stream<Path> s = Files.list(dir)) {
                for (Path p : (Iterable<Path>) s.sorted()::iterator) {
                    Path f = p.resolve("snapshot-records.jsonl");
                    if (!Files.exists(f)) continue;
                    Map<String, Entity> byKey = new TreeMap<>();
                    for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                        if (!line.contains("\"CLIENT_QUOTA_RECORD\"")) continue;
                        JsonNode data = om.readTree(line).get("data");
                        Entity e = new Entity();
                        for (JsonNode part : data.get("entity")) {
                            e.parts.put(part.get("entityType").asText(), part.get("entityName").isNull() ? null : part.get("entityName").asText());
                        }
                        byKey.computeIfAbsent(key(e), k -> e).values.put(data.get("key").asText(), data.get("value").asDouble());
                    }
                    out.put(folder + "/" + p.getFileName(), new ArrayList<>(byKey.values()));
                }
            }
        }
        return out;
    }
}
