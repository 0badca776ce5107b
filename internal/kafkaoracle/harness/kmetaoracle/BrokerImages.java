// Seeded images (brokers with random listeners, racks and fencing; topics
// with random replicas, ISR and leaders) and what Kafka 4.4 answers over
// them: KRaftMetadataCache.getPartitionReplicaEndpoints,
// getPartitionLeaderEndpoint and getAliveBrokerNode; the preferred read
// replica of KIP-392 (ReplicaManager.findPreferredReadReplica, transcribed
// below, over Kafka's RackAwareReplicaSelector); the group coordinator's
// Utils.computeTopicHash and computeGroupHash and the partition racks
// (KRaftCoordinatorMetadataImage.partitionRacks); and the stray-replica
// rule (LogManager.isStrayReplica over TopicsImage.partitionReplicas, as
// BrokerMetadataPublisher calls it). Writes broker-images.jsonl.gz.
package kmetaoracle;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.replica.ClientMetadata;
import org.apache.kafka.common.replica.PartitionView;
import org.apache.kafka.common.replica.RackAwareReplicaSelector;
import org.apache.kafka.common.replica.ReplicaView;
import org.apache.kafka.coordinator.common.runtime.KRaftCoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.Utils;
import org.apache.kafka.common.metadata.BrokerRegistrationChangeRecord;
import org.apache.kafka.common.metadata.FeatureLevelRecord;
import org.apache.kafka.common.metadata.RegisterBrokerRecord;
import org.apache.kafka.common.metadata.UnregisterBrokerRecord;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
import org.apache.kafka.image.publisher.BrokerRegistrationTracker;
import org.apache.kafka.metadata.MetadataVersionConfigValidator;
import org.apache.kafka.server.fault.FaultHandler;
import org.apache.kafka.server.fault.FaultHandlerException;
import org.apache.kafka.metadata.KRaftMetadataCache;
import org.apache.kafka.server.common.KRaftVersion;

public final class BrokerImages {
    static final String[] LISTENERS = {"PLAINTEXT", "SSL", "INTERNAL", "EXTERNAL"};
    static final String[] RACKS = {"rack-a", "rack-b", "rack-c", "", "az1", "\u00e9t\u00e9", "\ud83d\ude00", "\uff21", "Zz", "a,b", "rack-a "};

    static Object node(Optional<Node> n) {
        return n.map(BrokerImages::node).orElse(null);
    }

    static Object node(Node n) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", n.id());
        m.put("host", n.host());
        m.put("port", n.port());
        m.put("rack", n.rack());
        return m;
    }


    /** One seeded image. */
    static BrokerCommon.Spec spec(Random rnd) {
        short mv = (short) (7 + rnd.nextInt(27));
        BrokerCommon.Spec s = new BrokerCommon.Spec(mv);
        int nb = 2 + rnd.nextInt(6);
        for (int id = 0; id < nb; id++) {
            if (rnd.nextInt(6) == 0) continue; // a gap in the ids
            List<String[]> ls = new ArrayList<>();
            for (String l : LISTENERS) {
                if (rnd.nextInt(l.equals("PLAINTEXT") ? 10 : 2) == 0) continue;
                String host = rnd.nextInt(8) == 0 ? "" : "b" + id + "-" + l.toLowerCase();
                int port = rnd.nextInt(10) == 0 ? 0 : 9000 + id * 10 + rnd.nextInt(10);
                ls.add(new String[] {l, host, Integer.toString(port)});
            }
            String rack = rnd.nextInt(5) == 0 ? null : RACKS[rnd.nextInt(rnd.nextInt(10) < 7 ? 3 : RACKS.length)];
            s.broker(id, rnd.nextInt(4) == 0, rack, ls, List.of());
        }
        int nt = 1 + rnd.nextInt(5);
        for (int t = 0; t < nt; t++) {
            int np = 1 + rnd.nextInt(6);
            List<int[][]> parts = new ArrayList<>();
            for (int p = 0; p < np; p++) {
                int rf = 1 + rnd.nextInt(Math.min(nb + 1, 5));
                List<Integer> pool = new ArrayList<>();
                for (int i = 0; i < nb + (rnd.nextInt(4) == 0 ? 2 : 0); i++) pool.add(i);
                if (pool.isEmpty()) pool.add(0);
                rf = Math.min(rf, pool.size());
                java.util.Collections.shuffle(pool, rnd);
                int[] replicas = new int[rf];
                for (int i = 0; i < rf; i++) replicas[i] = pool.get(i);
                int ni = rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(rf) : rf;
                int[] isr = java.util.Arrays.copyOf(replicas, ni);
                int leader = rnd.nextInt(5) == 0 ? -1 : isr[rnd.nextInt(ni)];
                parts.add(new int[][] {replicas, isr, {leader}});
            }
            String name = (rnd.nextInt(5) == 0 ? "\u00fcml-" : "topic-") + t + (rnd.nextInt(3) == 0 ? "-x" : "");
            s.topic(name, new Uuid(rnd.nextLong(), rnd.nextLong()), parts);
        }
        return s;
    }

    /**
     * ReplicaManager.findPreferredReadReplica: core/src/main/scala/kafka/server/ReplicaManager.scala lines
     * 1964-2013 at 87943b2ff874f7186a7a091f7fad13d1ca62fc42, with the partition's remote replicas (every
     * assigned replica but the local leader) and their states given.
     */
    static Integer preferredReadReplica(KRaftMetadataCache cache, TopicPartition tp, int local, int leader, int[] replicas,
                                        Set<Integer> isr, Map<Integer, long[]> states, long leaderLeo, String rack,
                                        String listener, int replicaId, long fetchOffset, long now) {
        if (leader != local) return null; // partition.leaderIdIfLocal
        if (replicaId >= 0) return null; // FetchRequest.isValidBrokerId
        Map<Integer, Node> endpoints = cache.getPartitionReplicaEndpoints(tp, new ListenerName(listener));
        Set<ReplicaView> views = new HashSet<>();
        for (int r : replicas) {
            if (r == local) continue;
            long[] st = states.get(r); // logEndOffset, logStartOffset, lastCaughtUpTimeMs
            if (isr.contains(r) && st[0] >= fetchOffset && st[1] <= fetchOffset) {
                views.add(new ReplicaView.DefaultReplicaView(endpoints.getOrDefault(r, Node.noNode()), st[0], now - st[2]));
            }
        }
        ReplicaView leaderView = new ReplicaView.DefaultReplicaView(endpoints.getOrDefault(local, Node.noNode()), leaderLeo, 0L);
        views.add(leaderView);
        PartitionView pv = new PartitionView.DefaultPartitionView(views, leaderView);
        ClientMetadata cm = new ClientMetadata.DefaultClientMetadata(rack, "client", null, null, listener);
        Optional<ReplicaView> sel = new RackAwareReplicaSelector().select(tp, cm, pv);
        if (sel.isPresent() && !sel.get().endpoint().isEmpty() && !sel.get().equals(leaderView)) {
            return sel.get().endpoint().id();
        }
        return null;
    }

    /**
     * A seeded delta over the image (metadata.version changes, registrations with and without directories, fencing,
     * directory changes, unregistrations) and what BrokerRegistrationTracker decides for every broker id and
     * MetadataVersionConfigValidator for a broker with and without several log directories.
     */
    static Map<String, Object> tracker(Random rnd, BrokerCommon.Spec s, MetadataImage img) {
        Map<Integer, Long> epochs = new TreeMap<>();
        Map<Integer, Boolean> fencedNow = new TreeMap<>();
        for (Map<String, Object> b : s.brokers) {
            epochs.put((Integer) b.get("id"), 100L + (Integer) b.get("id"));
            fencedNow.put((Integer) b.get("id"), (Boolean) b.get("fenced"));
        }
        List<Object> ops = new ArrayList<>();
        MetadataDelta d = new MetadataDelta.Builder().setImage(img).build();
        int nops = 1 + rnd.nextInt(4);
        for (int i = 0; i < nops; i++) {
            int id = rnd.nextInt(9);
            Long ep = epochs.get(id);
            switch (rnd.nextInt(5)) {
                case 0: {
                    short level = (short) (7 + rnd.nextInt(27));
                    d.replay(new FeatureLevelRecord().setName("metadata.version").setFeatureLevel(level));
                    ops.add(List.of("mv", level));
                    break;
                }
                case 1: {
                    boolean dirs = rnd.nextBoolean();
                    d.replay(new RegisterBrokerRecord().setBrokerId(id).setBrokerEpoch(500 + id).setIncarnationId(new Uuid(8, id))
                        .setFenced(true).setLogDirs(dirs ? List.of(new Uuid(1, id)) : List.of()));
                    epochs.put(id, 500L + id);
                    fencedNow.put(id, true);
                    ops.add(List.of("register", id, dirs));
                    break;
                }
                case 2: {
                    if (ep == null) break;
                    if (rnd.nextInt(4) == 0) {
                        // A change the next record undoes: Kafka's changedBrokers keeps the id.
                        boolean cur = fencedNow.get(id);
                        d.replay(new BrokerRegistrationChangeRecord().setBrokerId(id).setBrokerEpoch(ep).setFenced(cur ? (byte) -1 : (byte) 1));
                        ops.add(List.of("fence", id, !cur));
                    }
                    // Half the time the broker's current state: a redundant record, as Kafka 4.x writes them.
                    boolean fenced = rnd.nextBoolean() ? fencedNow.get(id) : rnd.nextBoolean();
                    fencedNow.put(id, fenced);
                    d.replay(new BrokerRegistrationChangeRecord().setBrokerId(id).setBrokerEpoch(ep).setFenced(fenced ? (byte) 1 : (byte) -1));
                    ops.add(List.of("fence", id, fenced));
                    break;
                }
                case 3: {
                    if (ep == null) break;
                    d.replay(new BrokerRegistrationChangeRecord().setBrokerId(id).setBrokerEpoch(ep).setLogDirs(List.of(new Uuid(2, id))));
                    ops.add(List.of("dirs", id));
                    break;
                }
                default: {
                    if (ep == null) break;
                    d.replay(new UnregisterBrokerRecord().setBrokerId(id).setBrokerEpoch(ep));
                    epochs.remove(id);
                    fencedNow.remove(id);
                    ops.add(List.of("unregister", id));
                }
            }
        }
        MetadataImage next = d.apply(new MetadataProvenance(1000, 1, 0, true));
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("ops", ops);
        List<Integer> refresh = new ArrayList<>();
        List<Integer> errors = new ArrayList<>();
        for (int id = -1; id < 9; id++) {
            boolean[] fired = {false};
            try {
                new BrokerRegistrationTracker(id, () -> fired[0] = true).onMetadataUpdate(d, next, null);
            } catch (RuntimeException e) {
                errors.add(id);
            }
            if (fired[0]) refresh.add(id);
        }
        v.put("refresh", refresh);
        v.put("errors", errors);
        for (boolean multi : new boolean[] {false, true}) {
            String[] fault = {null};
            FaultHandler fh = (msg, cause) -> {
                fault[0] = msg + ": " + cause.getMessage();
                return new FaultHandlerException(msg, cause);
            };
            new MetadataVersionConfigValidator(1, () -> multi, fh).onMetadataUpdate(d, next, null);
            v.put(multi ? "faultMulti" : "faultSingle", fault[0]);
        }
        return v;
    }

    public static void main(String[] argv) throws Exception {
        Common.Args args = Common.Args.parse(argv);
        Random rnd = args.random("BrokerImages");
        try (Common.Out out = new Common.Out(args, "broker-images")) {
            for (int n = 0; n < 150; n++) {
                BrokerCommon.Spec s = spec(rnd);
                MetadataImage img = s.image();
                KRaftMetadataCache cache = new KRaftMetadataCache(1, () -> KRaftVersion.KRAFT_VERSION_1);
                cache.setImage(img);
                KRaftCoordinatorMetadataImage cimg = new KRaftCoordinatorMetadataImage(img);
                Map<String, Object> v = new LinkedHashMap<>();
                v.put("image", s.json);
                List<Object> brokerNodes = new ArrayList<>();
                for (int id = -1; id < 9; id++) {
                    for (String l : LISTENERS) {
                        brokerNodes.add(List.of(id, l, Optional.ofNullable(node(cache.getAliveBrokerNode(id, new ListenerName(l)))).orElse("none")));
                    }
                }
                v.put("aliveBrokerNode", brokerNodes);
                List<Object> parts = new ArrayList<>();
                List<Object> selections = new ArrayList<>();
                Map<String, Long> hashes = new TreeMap<>();
                List<Object> racks = new ArrayList<>();
                List<Object> stray = new ArrayList<>();
                for (Map<String, Object> t : s.topics) {
                    String name = (String) t.get("name");
                    Uuid id = Uuid.fromString((String) t.get("id"));
                    @SuppressWarnings("unchecked") List<Map<String, Object>> ps = (List<Map<String, Object>>) t.get("partitions");
                    hashes.put(name, Utils.computeTopicHash(name, cimg));
                    for (int p = -1; p <= ps.size(); p++) {
                        TopicPartition tp = new TopicPartition(name, p);
                        Map<String, Object> pe = new LinkedHashMap<>();
                        pe.put("topic", name);
                        pe.put("partition", p);
                        Map<String, Object> re = new TreeMap<>();
                        Map<String, Object> le = new TreeMap<>();
                        for (String l : LISTENERS) {
                            Map<String, Object> m = new TreeMap<>();
                            cache.getPartitionReplicaEndpoints(tp, new ListenerName(l)).forEach((k, nd) -> m.put(k.toString(), node(nd)));
                            re.put(l, m);
                            Optional<Node> ln = cache.getPartitionLeaderEndpoint(name, p, new ListenerName(l));
                            le.put(l, ln.isEmpty() ? "none" : ln.get().isEmpty() && ln.get().id() == -1 ? "noNode" : node(ln.get()));
                        }
                        pe.put("replicaEndpoints", re);
                        pe.put("leaderEndpoint", le);
                        parts.add(pe);
                        racks.add(List.of(name, p, cimg.topicMetadata(name).get().partitionRacks(p)));
                        for (int b = -1; b < 9; b += 1 + rnd.nextInt(3)) {
                            // BrokerMetadataPublisher.initializeManagers: core/src/main/scala/kafka/server/metadata/
                            // BrokerMetadataPublisher.scala lines 317-328, then LogManager.isStrayReplica
                            // (storage, LogManager.java lines 1884-1896): no replicas, or broker not among them.
                            Uuid tid = rnd.nextInt(6) == 0 ? new Uuid(rnd.nextLong(), 1) : id;
                            List<Integer> reps = img.topics().partitionReplicas(tid, p);
                            stray.add(List.of(tid.toString(), p, b, reps.isEmpty() || !reps.contains(b)));
                        }
                    }
                    for (int k = 0; k < ps.size() * 2; k++) {
                        int p = rnd.nextInt(ps.size());
                        Map<String, Object> pj = ps.get(p);
                        @SuppressWarnings("unchecked") List<Integer> reps = (List<Integer>) pj.get("replicas");
                        @SuppressWarnings("unchecked") List<Integer> isrL = (List<Integer>) pj.get("isr");
                        int leader = (Integer) pj.get("leader");
                        int local = rnd.nextInt(5) == 0 ? reps.get(rnd.nextInt(reps.size())) : leader;
                        Map<Integer, long[]> states = new TreeMap<>();
                        Map<String, Object> stj = new TreeMap<>();
                        long fetchOffset = 100 + rnd.nextInt(50);
                        long now = 1_000_000;
                        for (int r : reps) {
                            long leo = 90 + rnd.nextInt(80);
                            if (rnd.nextInt(3) == 0) leo = 150; // ties
                            long lso = rnd.nextInt(8) == 0 ? fetchOffset + 1 : rnd.nextInt(100);
                            long caught = now - (rnd.nextInt(3) == 0 ? 500 : rnd.nextInt(2000));
                            states.put(r, new long[] {leo, lso, caught});
                            stj.put(Integer.toString(r), List.of(leo, lso, caught));
                        }
                        String rack = rnd.nextInt(8) == 0 ? null : rnd.nextInt(8) == 0 ? "" : RACKS[rnd.nextInt(rnd.nextInt(10) < 7 ? 3 : RACKS.length)];
                        String listener = rnd.nextInt(4) != 0 ? "PLAINTEXT" : LISTENERS[rnd.nextInt(LISTENERS.length)];
                        int replicaId = rnd.nextInt(8) == 0 ? reps.get(0) : -1;
                        long leaderLeo = 100 + rnd.nextInt(60);
                        Integer sel = preferredReadReplica(cache, new TopicPartition(name, p), local, leader,
                            reps.stream().mapToInt(Integer::intValue).toArray(), new HashSet<>(isrL), states, leaderLeo,
                            rack, listener, replicaId, fetchOffset, now);
                        Map<String, Object> c = new LinkedHashMap<>();
                        c.put("topic", name);
                        c.put("partition", p);
                        c.put("local", local);
                        c.put("states", stj);
                        c.put("leaderLeo", leaderLeo);
                        c.put("rack", rack);
                        c.put("listener", listener);
                        c.put("replicaId", replicaId);
                        c.put("fetchOffset", fetchOffset);
                        c.put("now", now);
                        c.put("selected", sel);
                        selections.add(c);
                    }
                }
                hashes.put("missing-topic", Utils.computeTopicHash("missing-topic", cimg));
                v.put("partitions", parts);
                v.put("selections", selections);
                v.put("topicHashes", hashes);
                v.put("partitionRacks", racks);
                v.put("stray", stray);
                List<Object> groups = new ArrayList<>();
                List<String> names = new ArrayList<>(hashes.keySet());
                for (int g = 0; g < 4; g++) {
                    Map<String, Long> sub = new HashMap<>();
                    for (String nm : names) if (rnd.nextBoolean()) sub.put(nm, hashes.get(nm));
                    if (g == 0) sub.clear();
                    groups.add(List.of(new ArrayList<>(new TreeMap<>(sub).keySet()), Utils.computeGroupHash(sub)));
                }
                v.put("groupHashes", groups);
                v.put("tracker", tracker(rnd, s, img));
                out.line(v);
            }
        }
    }
}
