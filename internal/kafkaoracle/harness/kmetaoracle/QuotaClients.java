// Generator QuotaClients: the quotas a broker applies to clients, from seeded random quota images and from every
// snapshot scenario's image. Each image's quotas are replayed by Kafka's ClientQuotasDelta and handed to a
// broker's quota managers (QuotaBroker: Kafka's ClientQuotaManager and its subclasses, behind the harness's
// transcription of ClientQuotaMetadataManager and ConnectionQuotas); then clients (principal, client id) and
// connecting addresses are looked up. A hundred brokers more load a random image and then a second delta over it
// (quotas changed and removed), so that the managers' state after a history is checked against the final image.
// Writes quota-clients.jsonl.gz, one image a line:
//
//   {"name", "entities": [{"parts": [{"type", "name"}], "values": {key: value}}],
//    "enabled": [quotaTypesEnabled of produce, fetch, request, controller mutation],
//    "clients": [{"user": principal name, "sanitized", "clientId",
//                 "results": [{"user", "clientId" (metric tags), "bound"} per manager, same order]}],
//    "ips": [{"addr": address, "rate", "enabled", "tag"}], "names": [{"name": ip entity name, "host"}]}
//
// "bound" is ClientQuotaManager.quota(principal, clientId).bound(): Long.MAX_VALUE when no quota applies.
package kmetaoracle;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.image.ClientQuotasDelta;
import org.apache.kafka.image.ClientQuotasImage;
import org.apache.kafka.network.Session;
import org.apache.kafka.server.quota.ClientQuotaManager;

public final class QuotaClients {
    public static void main(String[] argv) throws Exception {
        Common.Args args = Common.Args.parse(argv);
        Random rnd = args.random("QuotaClients");
        try (Common.Out out = new Common.Out(args, "quota-clients")) {
            out.line(run("issue22: only client-id=<default>", onlyDefaultClient(), rnd));
            for (Map.Entry<String, List<QuotaImages.Entity>> s : QuotaImages.scenarios(args.shared).entrySet()) {
                out.line(run("scenario " + s.getKey(), s.getValue(), rnd));
            }
            for (int i = 0; i < 300; i++) {
                out.line(run("seed " + args.seed + " image " + i, QuotaImages.random(rnd, i < 100 ? 6 : 40), rnd));
            }
            for (int i = 0; i < 100; i++) {
                out.line(history("seed " + args.seed + " history " + i, rnd));
            }
            System.err.println("quota-clients: " + out.lines() + " images");
        }
        System.exit(0); // the managers' reaper threads are shut down; nothing else holds the JVM
    }

    /** The wrong result of issue 22: only client-id=<default> has a quota (producer_byte_rate 100). */
    static List<QuotaImages.Entity> onlyDefaultClient() {
        QuotaImages.Entity e = new QuotaImages.Entity();
        e.parts.put("client-id", null);
        e.values.put("producer_byte_rate", 100.0);
        return List.of(e);
    }

    /**
     * A broker that loaded a random image and then a second delta over it (quotas set, changed and removed, whole
     * entities removed, new client entities), as ClientQuotaMetadataManager receives each delta; the vector's
     * entities are the final image's (Kafka's ClientQuotasDelta.apply).
     */
    static Map<String, Object> history(String name, Random rnd) throws Exception {
        List<QuotaImages.Entity> first = QuotaImages.random(rnd, 30);
        ClientQuotasDelta d1 = QuotaImages.delta(first);
        ClientQuotasImage img1 = d1.apply();
        ClientQuotasDelta d2 = new ClientQuotasDelta(img1);
        for (QuotaImages.Entity e : first) {
            for (String k : new ArrayList<>(e.values.keySet())) {
                int r = rnd.nextInt(4);
                if (r == 0) d2.replay(QuotaImages.record(e, k, null));
                else if (r == 1) d2.replay(QuotaImages.record(e, k, QuotaImages.value(rnd)));
            }
            if (rnd.nextInt(3) == 0) d2.replay(QuotaImages.record(e, QuotaImages.pick(rnd, QuotaImages.CLIENT_KEYS), QuotaImages.value(rnd)));
        }
        for (QuotaImages.Entity e : QuotaImages.random(rnd, 10)) {
            if (e.parts.containsKey("ip") || e.parts.containsKey("group")) continue; // no second spelling of an address
            for (Map.Entry<String, Double> v : e.values.entrySet()) d2.replay(QuotaImages.record(e, v.getKey(), v.getValue()));
        }
        List<QuotaImages.Entity> last = QuotaImages.entities(d2.apply());
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("name", name);
        v.put("entities", QuotaImages.json(last));
        try (QuotaBroker broker = new QuotaBroker()) {
            broker.accept(d1);
            broker.accept(d2);
            results(v, broker, last, rnd);
        }
        return v;
    }

    static Map<String, Object> run(String name, List<QuotaImages.Entity> entities, Random rnd) throws Exception {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("name", name);
        v.put("entities", QuotaImages.json(entities));
        try (QuotaBroker broker = new QuotaBroker()) {
            broker.accept(QuotaImages.delta(entities));
            results(v, broker, entities, rnd);
        }
        return v;
    }

    private static void results(Map<String, Object> v, QuotaBroker broker, List<QuotaImages.Entity> entities, Random rnd) throws Exception {
        List<Integer> enabled = new ArrayList<>();
        for (ClientQuotaManager m : broker.managers()) enabled.add(m.quotaTypesEnabled());
        v.put("enabled", enabled);
        v.put("clients", clients(broker, entities, rnd));
        v.put("ips", ips(broker, rnd));
        v.put("names", names(entities));
    }

    /** The clients looked up: every (user, client id) the entities name, then random ones. */
    private static List<Object> clients(QuotaBroker broker, List<QuotaImages.Entity> entities, Random rnd) throws Exception {
        LinkedHashSet<List<String>> who = new LinkedHashSet<>();
        who.add(List.of("bob", ""));
        for (QuotaImages.Entity e : entities) {
            String u = e.parts.get("user"), c = e.parts.get("client-id");
            who.add(List.of(u == null ? QuotaImages.pick(rnd, QuotaImages.USERS) : u, c == null ? QuotaImages.pick(rnd, QuotaImages.CLIENTS) : c));
        }
        for (int i = 0; i < 24; i++) {
            String u = rnd.nextInt(6) == 0 ? "zed" : rnd.nextInt(8) == 0 ? "new" + rnd.nextInt(9) : QuotaImages.pick(rnd, QuotaImages.USERS);
            String c = rnd.nextInt(8) == 0 ? "fresh" + rnd.nextInt(9) : QuotaImages.pick(rnd, QuotaImages.CLIENTS);
            who.add(List.of(u, c));
        }
        List<Object> out = new ArrayList<>();
        InetAddress addr = InetAddress.getByName("10.9.8.7");
        for (List<String> w : who) {
            KafkaPrincipal principal = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, w.get(0));
            Session session = new Session(principal, addr);
            List<Object> results = new ArrayList<>();
            for (ClientQuotaManager m : broker.managers()) {
                Map<String, String> tags = m.getOrCreateQuotaSensors(session, w.get(1)).metricTags();
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("user", tags.get(ClientQuotaManager.USER_TAG));
                r.put("clientId", tags.get(ClientQuotaManager.CLIENT_ID_TAG));
                r.put("bound", m.quota(principal, w.get(1)).bound());
                results.add(r);
            }
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("user", w.get(0));
            c.put("sanitized", session.sanitizedUser);
            c.put("clientId", w.get(1));
            c.put("results", results);
            out.add(c);
        }
        return out;
    }

    /** Connections from each address of the pool and from a few random ones. */
    private static List<Object> ips(QuotaBroker broker, Random rnd) throws Exception {
        List<InetAddress> addrs = new ArrayList<>();
        for (String a : QuotaImages.ADDRS) addrs.add(InetAddress.getByAddress(QuotaIps.bytes(a)));
        for (int i = 0; i < 3; i++) {
            byte[] b = new byte[rnd.nextBoolean() ? 4 : 16];
            rnd.nextBytes(b);
            addrs.add(InetAddress.getByAddress(b));
        }
        List<Object> out = new ArrayList<>();
        for (InetAddress a : addrs) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("addr", a.getHostAddress());
            m.put("rate", broker.ip.connectionRateForIp(a));
            m.put("enabled", broker.ip.quotaEnabled(a));
            m.put("tag", QuotaBroker.IpRates.tag(a));
            out.add(m);
        }
        return out;
    }

    /** Each ip entity's name as InetAddress.getByName reads it. */
    private static List<Object> names(List<QuotaImages.Entity> entities) throws Exception {
        List<Object> out = new ArrayList<>();
        for (QuotaImages.Entity e : entities) {
            if (!e.parts.containsKey("ip") || e.parts.get("ip") == null) continue;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", e.parts.get("ip"));
            m.put("host", InetAddress.getByName(e.parts.get("ip")).getHostAddress());
            out.add(m);
        }
        return out;
    }
}
