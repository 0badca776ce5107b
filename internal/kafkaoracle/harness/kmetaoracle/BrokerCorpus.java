// Every corpus metadata file replayed as a broker replays it, one delta per
// data batch (a snapshot or bootstrap file as one delta from the empty
// image; a log segment that does not start at offset 0 after the smallest
// snapshot of its directory that reaches it), and after each delta what
// Kafka 4.4's broker-side publishers decide: BrokerRegistrationTracker
// (metadata, image/publisher) for every broker id involved,
// MetadataVersionConfigValidator with a multi-directory broker, and
// BrokerFeatures.incompatibleFeatures of the finalized features with and
// without unstable versions. After a file's last batch: the group
// coordinator's topic hashes of every topic, the group hash of all of them,
// and KRaftMetadataCache.getPartitionReplicaEndpoints of the first
// partitions. Writes broker-corpus.jsonl.gz.
package kmetaoracle;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metadata.AbortTransactionRecord;
import org.apache.kafka.common.metadata.BeginTransactionRecord;
import org.apache.kafka.common.metadata.EndTransactionRecord;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.coordinator.common.runtime.KRaftCoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.Utils;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
import org.apache.kafka.image.TopicImage;
import org.apache.kafka.image.publisher.BrokerRegistrationTracker;
import org.apache.kafka.metadata.BrokerRegistration;
import org.apache.kafka.metadata.KRaftMetadataCache;
import org.apache.kafka.metadata.MetadataVersionConfigValidator;
import org.apache.kafka.server.BrokerFeatures;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.server.common.KRaftVersion;
import org.apache.kafka.server.fault.FaultHandler;
import org.apache.kafka.server.fault.FaultHandlerException;

public final class BrokerCorpus {
    static final int MAX_PARTITIONS = 30;

    /** The snapshot of dir with the smallest end offset at or after base, or null. */
    static Path snapshotFor(Path dir, long base) throws Exception {
        Path best = null;
        long bestEnd = Long.MAX_VALUE;
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String n = p.getFileName().toString();
                if (!n.endsWith(".checkpoint") || !n.contains("-")) continue;
                long end = Long.parseLong(n.substring(0, n.indexOf('-')));
                if (end >= base && end < bestEnd) {
                    best = p;
                    bestEnd = end;
                }
            }
        }
        return best;
    }

    static Map<String, Short> finalized(MetadataImage img) {
        Map<String, Short> f = new HashMap<>(img.features().finalizedVersions());
        img.features().metadataVersion().ifPresent(mv -> f.put("metadata.version", mv.featureLevel()));
        return f;
    }

    static Map<String, Object> update(Path rel, int batch, long offset, MetadataDelta d, MetadataImage before, MetadataImage img) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("file", rel.toString());
        v.put("batch", batch);
        v.put("offset", offset);
        v.put("mvChanged", d.metadataVersionChanged().map(mv -> (Object) mv.featureLevel()).orElse(null));
        TreeSet<Integer> changed = new TreeSet<>();
        if (d.clusterDelta() != null) changed.addAll(d.clusterDelta().changedBrokers().keySet());
        v.put("changedBrokers", new ArrayList<>(changed));
        TreeSet<Integer> ids = new TreeSet<>(changed);
        ids.addAll(before.cluster().brokers().keySet());
        ids.addAll(img.cluster().brokers().keySet());
        ids.add(ids.isEmpty() ? 1 : ids.last() + 1);
        v.put("ids", new ArrayList<>(ids));
        List<Integer> refresh = new ArrayList<>();
        List<Integer> errors = new ArrayList<>();
        for (int id : ids) {
            boolean[] fired = {false};
            try {
                new BrokerRegistrationTracker(id, () -> fired[0] = true).onMetadataUpdate(d, img, null);
            } catch (RuntimeException e) {
                errors.add(id);
            }
            if (fired[0]) refresh.add(id);
        }
        v.put("refresh", refresh);
        v.put("trackerErrors", errors);
        String[] fault = {null};
        FaultHandler fh = new FaultHandler() {
            @Override public RuntimeException handleFault(String msg, Throwable cause) {
                fault[0] = msg + ": " + cause.getMessage();
                return new FaultHandlerException(msg, cause);
            }
        };
        try {
            new MetadataVersionConfigValidator(1, () -> true, fh).onMetadataUpdate(d, img, null);
            v.put("validatorFault", fault[0]);
        } catch (RuntimeException e) {
            v.put("validatorFault", "throws");
        }
        if (d.featuresDelta() != null) {
            Map<String, Short> f = finalized(img);
            v.put("finalized", new TreeMap<>(f));
            v.put("incompatibleProduction", new TreeMap<>(BrokerFeatures.createDefault(false).incompatibleFeatures(f)));
            v.put("incompatibleTesting", new TreeMap<>(BrokerFeatures.createDefault(true).incompatibleFeatures(f)));
        }
        return v;
    }

    static Map<String, Object> last(Path rel, MetadataImage img) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("file", rel.toString());
        v.put("final", true);
        KRaftCoordinatorMetadataImage cimg = new KRaftCoordinatorMetadataImage(img);
        Map<String, Long> hashes = new TreeMap<>();
        for (String name : img.topics().topicsByName().keySet()) hashes.put(name, Utils.computeTopicHash(name, cimg));
        v.put("topicHashes", hashes);
        v.put("groupHash", Utils.computeGroupHash(hashes));
        KRaftMetadataCache cache = new KRaftMetadataCache(1, () -> KRaftVersion.KRAFT_VERSION_1);
        cache.setImage(img);
        TreeSet<String> listeners = new TreeSet<>();
        for (BrokerRegistration b : img.cluster().brokers().values()) listeners.addAll(b.listeners().keySet());
        listeners.add("MISSING");
        List<Object> eps = new ArrayList<>();
        int n = 0;
        for (TopicImage t : new TreeMap<>(img.topics().topicsByName()).values()) {
            for (int p : new TreeSet<>(t.partitions().keySet())) {
                if (n++ >= MAX_PARTITIONS) break;
                for (String l : listeners) {
                    Map<String, Object> m = new TreeMap<>();
                    cache.getPartitionReplicaEndpoints(new TopicPartition(t.name(), p), new ListenerName(l))
                        .forEach((k, nd) -> m.put(k.toString(), BrokerImages.node(nd)));
                    eps.add(List.of(t.name(), p, l, m));
                }
            }
        }
        v.put("replicaEndpoints", eps);
        return v;
    }

    public static void main(String[] argv) throws Exception {
        Common.Args args = Common.Args.parse(argv);
        try (Common.Out out = new Common.Out(args, "broker-corpus")) {
            for (Path rel : BrokerCommon.corpusFiles(args.shared)) {
                Path file = args.shared.resolve(rel);
                String name = file.getFileName().toString();
                MetadataImage img = MetadataImage.EMPTY;
                long start = 0;
                int batch = 0;
                if (name.endsWith(".log")) {
                    long base = Long.parseLong(name.substring(0, name.length() - 4));
                    if (base > 0) {
                        Path snap = snapshotFor(file.getParent(), base);
                        if (snap == null) continue;
                        List<ApiMessageAndVersion> recs = new ArrayList<>();
                        for (BrokerCommon.FileBatch b : BrokerCommon.readBatches(snap)) recs.addAll(b.records);
                        String sn = snap.getFileName().toString();
                        start = Long.parseLong(sn.substring(0, sn.indexOf('-')));
                        img = BrokerCommon.apply(img, recs, start - 1);
                    }
                }
                List<BrokerCommon.FileBatch> batches = BrokerCommon.readBatches(file);
                if (name.endsWith(".checkpoint")) {
                    List<ApiMessageAndVersion> recs = new ArrayList<>();
                    long lastOffset = -1;
                    for (BrokerCommon.FileBatch b : batches) {
                        recs.addAll(b.records);
                        lastOffset = b.lastOffset;
                    }
                    batches = List.of(new BrokerCommon.FileBatch(lastOffset, recs));
                }
                boolean failed = false;
                for (BrokerCommon.FileBatch b : batches) {
                    if (b.lastOffset < start) continue;
                    MetadataDelta d = new MetadataDelta.Builder().setImage(img).build();
                    MetadataImage next;
                    try {
                        for (ApiMessageAndVersion r : b.records) {
                            // Transaction markers are MetadataBatchLoader's, never MetadataDelta's; a per-batch
                            // replay passes over them as kmeta's delta does.
                            if (r.message() instanceof BeginTransactionRecord || r.message() instanceof EndTransactionRecord
                                || r.message() instanceof AbortTransactionRecord) continue;
                            d.replay(r.message());
                        }
                        next = d.apply(new MetadataProvenance(b.lastOffset, 1, 0, true));
                    } catch (RuntimeException e) {
                        Map<String, Object> v = new LinkedHashMap<>();
                        v.put("file", rel.toString());
                        v.put("batch", batch);
                        v.put("offset", b.lastOffset);
                        v.put("replayError", e.toString());
                        out.line(v);
                        failed = true;
                        break;
                    }
                    Map<String, Object> u = update(rel, batch, b.lastOffset, d, img, next);
                    // Only the batches where a publisher has something to decide are written; the test checks
                    // that every other batch decides nothing.
                    if (u.get("mvChanged") != null || !((List<?>) u.get("changedBrokers")).isEmpty() || u.containsKey("finalized")
                        || !((List<?>) u.get("trackerErrors")).isEmpty() || u.get("validatorFault") != null) out.line(u);
                    img = next;
                    batch++;
                }
                if (!failed) out.line(last(rel, img));
            }
        }
    }
}
