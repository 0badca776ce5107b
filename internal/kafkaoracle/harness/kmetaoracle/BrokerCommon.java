// Helpers of the broker-rules generators (BrokerMV, BrokerFeatureChecks,
// BrokerAutoTopics, BrokerXXH3, BrokerImages, BrokerCorpus). Written for
// kmeta; no Kafka source is copied here. Images are made by Kafka's own
// MetadataDelta from records, exactly as a broker's loader replays them.
package kmetaoracle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metadata.FeatureLevelRecord;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.RegisterBrokerRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.server.common.ApiMessageAndVersion;

final class BrokerCommon {
    private BrokerCommon() { }

    /** One data batch of a metadata file: its last offset and its records. */
    static final class FileBatch {
        final long lastOffset;
        final List<ApiMessageAndVersion> records;

        FileBatch(long lastOffset, List<ApiMessageAndVersion> records) {
            this.lastOffset = lastOffset;
            this.records = records;
        }
    }

    /** The data batches of a log segment, snapshot or bootstrap file, decoded with MetadataRecordSerde; control batches are left out. */
    static List<FileBatch> readBatches(Path file) throws IOException {
        List<FileBatch> out = new ArrayList<>();
        try (FileRecords fr = FileRecords.open(file.toFile(), false)) {
            for (FileChannelRecordBatch b : fr.batches()) {
                if (b.isControlBatch()) continue;
                List<ApiMessageAndVersion> recs = new ArrayList<>();
                for (Record r : b) {
                    recs.add(MetadataRecordSerde.INSTANCE.read(new ByteBufferAccessor(r.value()), r.valueSize()));
                }
                out.add(new FileBatch(b.lastOffset(), recs));
            }
        }
        return out;
    }

    /** Every metadata file of the corpus folders (logs, snapshots, bootstrap files), sorted, relative to the shared folder. */
    static List<Path> corpusFiles(Path shared) throws IOException {
        List<Path> out = new ArrayList<>();
        for (String folder : List.of("kraft", "kraft-2", "kraft-4.3")) {
            Path root = shared.resolve("corpus").resolve(folder);
            if (!Files.isDirectory(root)) continue;
            try (Stream<Path> s = Files.walk(root)) {
                s.filter(Files::isRegularFile)
                    .filter(p -> p.toString().endsWith(".log") || p.toString().endsWith(".checkpoint"))
                    .forEach(p -> out.add(shared.relativize(p)));
            }
        }
        out.sort(null);
        return out;
    }

    /** Replays records into a delta of image and applies it (MetadataDelta.replay, apply). */
    static MetadataImage apply(MetadataImage image, List<ApiMessageAndVersion> records, long offset) {
        MetadataDelta d = new MetadataDelta.Builder().setImage(image).build();
        for (ApiMessageAndVersion r : records) d.replay(r.message());
        return d.apply(new MetadataProvenance(offset, 1, 0, true));
    }

    /** A seeded image description: what kmeta's test rebuilds from records of its own. */
    static final class Spec {
        final Map<String, Object> json = new LinkedHashMap<>();
        final List<ApiMessageAndVersion> records = new ArrayList<>();
        final List<Map<String, Object>> brokers = new ArrayList<>();
        final List<Map<String, Object>> topics = new ArrayList<>();

        Spec(short mv) {
            json.put("mv", mv);
            json.put("brokers", brokers);
            json.put("topics", topics);
            records.add(new ApiMessageAndVersion(new FeatureLevelRecord().setName("metadata.version").setFeatureLevel(mv), (short) 0));
        }

        void broker(int id, boolean fenced, String rack, List<String[]> listeners, List<Uuid> dirs) {
            Map<String, Object> b = new LinkedHashMap<>();
            b.put("id", id);
            b.put("fenced", fenced);
            b.put("rack", rack);
            List<Object> ls = new ArrayList<>();
            RegisterBrokerRecord r = new RegisterBrokerRecord().setBrokerId(id).setBrokerEpoch(100 + id)
                .setIncarnationId(new Uuid(7, id)).setFenced(fenced).setRack(rack).setLogDirs(dirs);
            for (String[] l : listeners) {
                ls.add(List.of(l[0], l[1], Integer.parseInt(l[2])));
                r.endPoints().add(new RegisterBrokerRecord.BrokerEndpoint().setName(l[0]).setHost(l[1])
                    .setPort(Integer.parseInt(l[2])).setSecurityProtocol((short) 0));
            }
            b.put("listeners", ls);
            List<String> ds = new ArrayList<>();
            for (Uuid d : dirs) ds.add(d.toString());
            b.put("dirs", ds);
            brokers.add(b);
            records.add(new ApiMessageAndVersion(r, (short) 3));
        }

        void topic(String name, Uuid id, List<int[][]> partitions) {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("name", name);
            t.put("id", id.toString());
            List<Object> ps = new ArrayList<>();
            records.add(new ApiMessageAndVersion(new TopicRecord().setName(name).setTopicId(id), (short) 0));
            for (int p = 0; p < partitions.size(); p++) {
                int[][] pr = partitions.get(p); // replicas, isr, {leader}
                Map<String, Object> pj = new LinkedHashMap<>();
                pj.put("replicas", toList(pr[0]));
                pj.put("isr", toList(pr[1]));
                pj.put("leader", pr[2][0]);
                ps.add(pj);
                records.add(new ApiMessageAndVersion(new PartitionRecord().setTopicId(id).setPartitionId(p)
                    .setReplicas(toList(pr[0])).setIsr(toList(pr[1])).setLeader(pr[2][0]).setLeaderEpoch(1).setPartitionEpoch(1), (short) 0));
            }
            t.put("partitions", ps);
            topics.add(t);
        }

        MetadataImage image() { return apply(MetadataImage.EMPTY, records, records.size() - 1); }
    }

    static List<Integer> toList(int[] a) {
        List<Integer> out = new ArrayList<>();
        for (int x : a) out.add(x);
        return out;
    }
}
