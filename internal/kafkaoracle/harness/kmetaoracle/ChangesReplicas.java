// ChangesReplicas: what a broker's ReplicaManager and coordinators do with each metadata delta, computed by Kafka
// 4.4's own TopicsDelta.localChanges (metadata module, Java) and by a transcription of the Scala that calls it:
// ReplicaManager.applyDelta / applyLocalFollowersDelta, Partition.makeLeader / makeFollower (the state they keep)
// and BrokerMetadataPublisher.updateCoordinator. Written for kmeta; no Kafka source is copied here.
//
// Inputs: every __cluster_metadata-0 directory of the corpus (../shared/corpus/*), and seeded runs of kmeta's
// simulator (delta/deltatest) written as metadata directories by the Go test TestWriteOracleSimLogs (run here with
// `go test`, or read from $KMETA_SIMLOGS). Each directory is replayed as a broker replays it: the latest snapshot as
// one delta from the empty image, then every data batch of the log after it as one delta. For every delta and every
// broker id registered before or after it, one vector holds Kafka's answers (nothing when they are all empty).
package kmetaoracle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metadata.MetadataRecordType;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.image.LocalReplicaChanges;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
import org.apache.kafka.image.TopicDelta;
import org.apache.kafka.image.TopicImage;
import org.apache.kafka.image.TopicsDelta;
import org.apache.kafka.metadata.LeaderConstants;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.metadata.PartitionRegistration;
import org.apache.kafka.metadata.Replicas;
import org.apache.kafka.raft.Batch;
import org.apache.kafka.raft.KafkaRaftClient;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.snapshot.FileRawSnapshotReader;
import org.apache.kafka.snapshot.RecordsSnapshotReader;
import org.apache.kafka.snapshot.SnapshotPath;
import org.apache.kafka.snapshot.Snapshots;

public final class ChangesReplicas {
    private static final String[] COORDINATOR_TOPICS = {"__consumer_offsets", "__transaction_state", "__share_group_state"};

    public static void main(String[] argv) throws Exception {
        Common.Args args = Common.Args.parse(argv);
        Path simlogs = simLogs(args);
        try (Common.Out out = new Common.Out(args, "changes-replicas")) {
            List<Path[]> inputs = new ArrayList<>();
            Path corpus = args.shared.resolve("corpus");
            if (Files.isDirectory(corpus)) {
                for (Path d : metadataDirs(corpus)) inputs.add(new Path[] {corpus, d});
            }
            for (Path d : metadataDirs(simlogs)) inputs.add(new Path[] {simlogs, d});
            for (Path[] in : inputs) {
                String name = (in[0] == simlogs ? "sim:" : "corpus:") + in[0].relativize(in[1]).toString().replace('\\', '/');
                new Run(name, out).dir(in[1]);
            }
            System.err.println("changes-replicas: " + inputs.size() + " directories, " + out.lines() + " vectors");
        }
        if (System.getenv("KMETA_SIMLOGS") == null) {
            try (Stream<Path> s = Files.walk(simlogs)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The simulator's metadata directories: $KMETA_SIMLOGS, or written now by the Go test into OUTDIR/.simlogs. */
    static Path simLogs(Common.Args args) throws Exception {
        String env = System.getenv("KMETA_SIMLOGS");
        if (env != null && !env.isEmpty()) return Path.of(env);
        Path dir = args.out.toAbsolutePath().resolve(".simlogs");
        Path repo = Path.of(Optional.ofNullable(System.getenv("KMETA_REPO")).orElse(".")).toAbsolutePath();
        ProcessBuilder pb = new ProcessBuilder("go", "test", "./delta/deltatest/", "-count=1", "-run", "^TestWriteOracleSimLogs$",
            "-args", "-kmeta.simlogs=" + dir, "-kmeta.simseed=" + args.seed).directory(repo.toFile()).inheritIO();
        if (pb.start().waitFor() != 0) throw new IllegalStateException("go test TestWriteOracleSimLogs failed in " + repo);
        return dir;
    }

    static List<Path> metadataDirs(Path root) throws IOException {
        List<Path> dirs = new ArrayList<>();
        if (!Files.isDirectory(root)) return dirs;
        try (Stream<Path> s = Files.walk(root)) {
            s.filter(p -> Files.isDirectory(p) && p.getFileName().toString().equals("__cluster_metadata-0")).forEach(dirs::add);
        }
        dirs.sort(Comparator.comparing(Path::toString));
        return dirs;
    }

    /** One directory's replay, and the state each broker's ReplicaManager keeps across deltas. */
    static final class Run {
        final String name;
        final Common.Out out;
        MetadataImage image = MetadataImage.EMPTY;
        int batch;
        /** Per broker id: ReplicaManager.allPartitions, as the Partition state makeLeader/makeFollower read. */
        final Map<Integer, Map<TopicPartition, PartitionState>> hosted = new HashMap<>();
        final TreeSet<Integer> everSeen = new TreeSet<>();

        Run(String name, Common.Out out) {
            this.name = name;
            this.out = out;
        }

        void dir(Path dir) throws Exception {
            List<SnapshotPath> snapshots = new ArrayList<>();
            List<Path> segments = new ArrayList<>();
            try (Stream<Path> s = Files.list(dir)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    String n = p.getFileName().toString();
                    Optional<SnapshotPath> sp = Snapshots.parse(p);
                    if (sp.isPresent() && !sp.get().partial() && !sp.get().deleted()) snapshots.add(sp.get());
                    else if (n.endsWith(".log") && n.length() == 24) segments.add(p);
                }
            }
            segments.sort(Comparator.comparing(p -> p.getFileName().toString()));
            Optional<SnapshotPath> latest = snapshots.stream().max(Comparator.comparing(SnapshotPath::snapshotId));
            long start = 0;
            if (latest.isPresent()) {
                start = latest.get().snapshotId().offset();
                MetadataDelta delta = new MetadataDelta.Builder().setImage(image).build();
                try (RecordsSnapshotReader<ApiMessageAndVersion> r = RecordsSnapshotReader.of(
                        FileRawSnapshotReader.open(dir, latest.get().snapshotId()), MetadataRecordSerde.INSTANCE,
                        BufferSupplier.create(), KafkaRaftClient.MAX_BATCH_SIZE_BYTES, true, new LogContext())) {
                    while (r.hasNext()) {
                        Batch<ApiMessageAndVersion> b = r.next();
                        for (ApiMessageAndVersion m : b.records()) replay(delta, m.message());
                    }
                }
                delta.finishSnapshot();
                publish(delta, -1, new MetadataProvenance(start - 1, latest.get().snapshotId().epoch(), -1, true));
            }
            for (Path seg : segments) {
                try (FileRecords fr = FileRecords.open(seg.toFile(), false)) {
                    for (FileChannelRecordBatch b : fr.batches()) {
                        if (b.lastOffset() < start || b.isControlBatch()) continue;
                        MetadataDelta delta = new MetadataDelta.Builder().setImage(image).build();
                        boolean any = false;
                        for (Record rec : b) {
                            ApiMessageAndVersion m = MetadataRecordSerde.INSTANCE.read(new ByteBufferAccessor(rec.value()), rec.valueSize());
                            any |= replay(delta, m.message());
                        }
                        if (!any) continue;
                        publish(delta, b.baseOffset(), new MetadataProvenance(b.lastOffset(), b.partitionLeaderEpoch(), b.maxTimestamp(), true));
                    }
                }
            }
        }

        /** MetadataDelta.replay, skipping the transaction markers the loader consumes; true if the record is replayed. */
        static boolean replay(MetadataDelta delta, ApiMessage m) {
            MetadataRecordType t = MetadataRecordType.fromId(m.apiKey());
            switch (t) {
                case BEGIN_TRANSACTION_RECORD: case END_TRANSACTION_RECORD: case ABORT_TRANSACTION_RECORD:
                case NO_OP_RECORD:
                    return false;
                default:
                    delta.replay(m);
                    return true;
            }
        }

        void publish(MetadataDelta delta, long baseOffset, MetadataProvenance prov) throws IOException {
            MetadataImage next = delta.apply(prov);
            TreeSet<Integer> ids = new TreeSet<>(image.cluster().brokers().keySet());
            ids.addAll(next.cluster().brokers().keySet());
            addReplicaIds(delta, ids);
            everSeen.addAll(ids);
            Map<String, Object> brokers = new TreeMap<>();
            // Every broker id seen so far applies the delta, registered or not, so that its Partition state is
            // always that of a broker that applied every delta; the vectors hold the ids registered before or after.
            for (int id : everSeen) {
                Map<String, Object> v = broker(id, delta, next);
                if (!v.isEmpty() && ids.contains(id)) brokers.put(Integer.toString(id), v);
            }
            if (!brokers.isEmpty()) {
                Map<String, Object> line = new TreeMap<>();
                line.put("input", name);
                line.put("batch", batch);
                line.put("baseOffset", baseOffset);
                line.put("brokers", brokers);
                out.line(line);
            }
            batch++;
            image = next;
        }

        /**
         * Adds every replica id of the partitions the delta touches, before and after (registered or not): the
         * broker ids localChanges can report anything for.
         */
        void addReplicaIds(MetadataDelta delta, TreeSet<Integer> ids) {
            TopicsDelta td = delta.topicsDelta();
            if (td == null) return;
            for (TopicDelta t : td.changedTopics().values()) {
                t.partitionChanges().forEach((p, reg) -> {
                    for (int r : reg.replicas) ids.add(r);
                    PartitionRegistration prev = t.image().partitions().get(p);
                    if (prev != null) for (int r : prev.replicas) ids.add(r);
                });
            }
            for (Uuid id : td.deletedTopicIds()) {
                td.image().getTopic(id).partitions().values().forEach(reg -> {
                    for (int r : reg.replicas) ids.add(r);
                });
            }
        }

        Map<String, Object> broker(int id, MetadataDelta delta, MetadataImage next) {
            Map<String, Object> v = new TreeMap<>();
            TopicsDelta td = delta.topicsDelta();
            if (td != null) {
                applyDelta(id, td, next, v);
            }
            List<Object> coord = new ArrayList<>();
            for (String topic : COORDINATOR_TOPICS) updateCoordinator(id, next, delta, topic, coord);
            if (!coord.isEmpty()) v.put("coordinators", coord);
            return v;
        }

        /**
         * ReplicaManager.applyDelta (core/src/main/scala/kafka/server/ReplicaManager.scala:2360-2416 at 87943b2f):
         * the local changes (TopicsDelta.localChanges, Kafka's Java), the deletes with deleteRemoteLog
         * (2368-2388), the leaders (applyLocalLeadersDelta, 2418-2447) and followers (applyLocalFollowersDelta,
         * 2449-2554, with the controlled-shutdown rule at 2475-2479) with the Partition state they update, and the
         * directory ids (2411-2414).
         */
        void applyDelta(int brokerId, TopicsDelta delta, MetadataImage newImage, Map<String, Object> v) {
            LocalReplicaChanges lc = delta.localChanges(brokerId);
            Map<TopicPartition, PartitionState> parts = hosted.computeIfAbsent(brokerId, k -> new HashMap<>());
            List<List<Object>> deletes = new ArrayList<>();
            for (TopicPartition tp : lc.deletes()) {
                boolean isCurrentLeader = Optional.ofNullable(delta.image().getTopic(tp.topic()))
                    .map(image -> image.partitions().get(tp.partition()))
                    .map(p -> p.leader == brokerId).orElse(false);
                boolean deleteRemoteLog = delta.topicWasDeleted(tp.topic()) && isCurrentLeader;
                deletes.add(List.of(tp.topic(), tp.partition(), deleteRemoteLog));
                parts.remove(tp); // stopPartitions with deleteLocalLog: allPartitions.remove (ReplicaManager.scala:395-400)
            }
            List<List<Object>> leaders = new ArrayList<>();
            for (Map.Entry<TopicPartition, LocalReplicaChanges.PartitionInfo> e : lc.leaders().entrySet()) {
                TopicPartition tp = e.getKey();
                PartitionState st = getOrCreate(parts, tp, e.getValue().topicId());
                st.makeLeader(e.getValue().partition());
                leaders.add(List.of(tp.topic(), tp.partition(), e.getValue().topicId().toString(),
                    lc.electedLeaders().containsKey(tp)));
            }
            List<List<Object>> followers = new ArrayList<>();
            for (Map.Entry<TopicPartition, LocalReplicaChanges.PartitionInfo> e : lc.followers().entrySet()) {
                TopicPartition tp = e.getKey();
                PartitionRegistration reg = e.getValue().partition();
                PartitionState st = getOrCreate(parts, tp, e.getValue().topicId());
                Integer prevLeader = st.leader;
                boolean isNewLeaderEpoch = st.makeFollower(reg);
                boolean leaderChanged = prevLeader == null || prevLeader != reg.leader;
                // ReplicaManager.scala:2475-2479: in controlled shutdown, a replica with no leader or out of the
                // ISR is stopped (its log kept); otherwise a new leader epoch (re)starts the fetcher.
                boolean stopInShutdown = reg.leader == LeaderConstants.NO_LEADER || !Replicas.contains(reg.isr, brokerId);
                followers.add(List.of(tp.topic(), tp.partition(), e.getValue().topicId().toString(),
                    leaderChanged, isNewLeaderEpoch, stopInShutdown));
            }
            List<List<Object>> dirs = new ArrayList<>();
            for (Map.Entry<TopicIdPartition, Uuid> e : lc.directoryIds().entrySet()) {
                dirs.add(List.of(e.getKey().topic(), e.getKey().partition(), e.getKey().topicId().toString(), e.getValue().toString()));
            }
            Comparator<List<Object>> byTP = Comparator.<List<Object>, String>comparing(l -> (String) l.get(0))
                .thenComparing(l -> (Integer) l.get(1));
            deletes.sort(byTP);
            leaders.sort(byTP);
            followers.sort(byTP);
            dirs.sort(byTP);
            if (!deletes.isEmpty()) v.put("deletes", deletes);
            if (!leaders.isEmpty()) v.put("leaders", leaders);
            if (!followers.isEmpty()) v.put("followers", followers);
            if (!dirs.isEmpty()) {
                v.put("directories", dirs);
                v.put("assignDirectories", newImage.features().metadataVersion().map(mv -> mv.isDirectoryAssignmentSupported()).orElse(false));
            }
        }

        /**
         * ReplicaManager.getOrCreatePartition (ReplicaManager.scala:2309-2353): the hosted partition, or a new one.
         * A hosted partition of another topic id throws there; the corpus and the simulator never reach it.
         */
        static PartitionState getOrCreate(Map<TopicPartition, PartitionState> parts, TopicPartition tp, Uuid topicId) {
            PartitionState st = parts.get(tp);
            if (st != null && !st.topicId.equals(topicId)) {
                throw new IllegalStateException("Topic " + tp + " exists, but its ID is " + st.topicId + ", not " + topicId);
            }
            if (st == null) {
                st = new PartitionState(topicId);
                parts.put(tp, st);
            }
            return st;
        }

        /**
         * BrokerMetadataPublisher.updateCoordinator (core/src/main/scala/kafka/server/metadata/BrokerMetadataPublisher.scala:276-308
         * at 87943b2f) with getTopicDelta (57-65): each call as [topic, partition, "election"|"resignation", epoch or
         * null]. Within one step the calls are sorted by partition (Kafka walks hash maps there).
         */
        void updateCoordinator(int brokerId, MetadataImage image, MetadataDelta delta, String topicName, List<Object> calls) {
            TopicsDelta topicsDelta = delta.topicsDelta();
            if (topicsDelta != null && topicsDelta.topicWasDeleted(topicName)) {
                List<List<Object>> step = new ArrayList<>();
                topicsDelta.image().getTopic(topicName).partitions().forEach((p, reg) -> {
                    if (reg.leader == brokerId) step.add(call(topicName, p, false, null));
                });
                addSorted(calls, step);
            }
            TopicImage topicImage = image.topics().getTopic(topicName);
            if (topicImage == null || topicsDelta == null) return;
            TopicDelta topicDelta = topicsDelta.changedTopic(topicImage.id());
            if (topicDelta == null) return;
            LocalReplicaChanges changes = topicDelta.localChanges(brokerId);
            List<List<Object>> step = new ArrayList<>();
            for (TopicPartition tp : changes.deletes()) step.add(call(topicName, tp.partition(), false, null));
            addSorted(calls, step);
            step = new ArrayList<>();
            for (Map.Entry<TopicPartition, LocalReplicaChanges.PartitionInfo> e : changes.electedLeaders().entrySet()) {
                step.add(call(topicName, e.getKey().partition(), true, e.getValue().partition().leaderEpoch));
            }
            addSorted(calls, step);
            step = new ArrayList<>();
            for (Map.Entry<TopicPartition, LocalReplicaChanges.PartitionInfo> e : changes.followers().entrySet()) {
                step.add(call(topicName, e.getKey().partition(), false, e.getValue().partition().leaderEpoch));
            }
            addSorted(calls, step);
        }

        static List<Object> call(String topic, int partition, boolean election, Integer epoch) {
            List<Object> c = new ArrayList<>();
            c.add(topic);
            c.add(partition);
            c.add(election ? "election" : "resignation");
            c.add(epoch);
            return c;
        }

        static void addSorted(List<Object> calls, List<List<Object>> step) {
            step.sort(Comparator.comparing(l -> (Integer) l.get(1)));
            calls.addAll(step);
        }
    }

    /** The part of kafka.cluster.Partition's state that makeLeader and makeFollower read and write. */
    static final class PartitionState {
        final Uuid topicId;
        Integer leader; // leaderReplicaIdOpt
        int leaderEpoch = -1; // LeaderAndIsr.INITIAL_LEADER_EPOCH - 1 (Partition.scala:189)
        int partitionEpoch = 0; // LeaderAndIsr.INITIAL_PARTITION_EPOCH

        PartitionState(Uuid topicId) {
            this.topicId = topicId;
        }

        /** Partition.makeLeader (core/src/main/scala/kafka/cluster/Partition.scala:588-690): its epoch checks and updates. */
        void makeLeader(PartitionRegistration reg) {
            if (reg.partitionEpoch < partitionEpoch) return;
            if (reg.leaderEpoch > leaderEpoch) leaderEpoch = reg.leaderEpoch;
            leader = reg.leader;
            partitionEpoch = reg.partitionEpoch;
        }

        /** Partition.makeFollower (Partition.scala:694-743): returns isNewLeaderEpoch. */
        boolean makeFollower(PartitionRegistration reg) {
            if (reg.partitionEpoch < partitionEpoch) return false;
            boolean isNewLeaderEpoch = reg.leaderEpoch > leaderEpoch;
            leader = reg.leader;
            leaderEpoch = reg.leaderEpoch;
            partitionEpoch = reg.partitionEpoch;
            return isNewLeaderEpoch;
        }
    }

    private ChangesReplicas() { }
}
