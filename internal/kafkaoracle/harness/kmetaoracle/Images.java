// kmeta's oracle harness: Kafka's image of a metadata file or directory, made
// by Kafka's own MetadataLoader from the file's bytes. Written for kmeta.
//
//   Images.load(path)   a __cluster_metadata-0 directory (or a log directory
//                       holding one): its newest snapshot, then every batch of
//                       its segments after the snapshot, one commit a batch;
//                       a .checkpoint snapshot; a .log segment; or a
//                       bootstrap.checkpoint (its records replayed on the
//                       empty image, as the controller replays them)
//
// Images.Loader is the loader with one publisher that keeps the images it is
// handed; BenchE2E times it.
package kmetaoracle;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.internal.UnalignedMemoryRecords;
import org.apache.kafka.common.record.internal.UnalignedRecords;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
import org.apache.kafka.image.loader.LoaderManifest;
import org.apache.kafka.image.loader.MetadataLoader;
import org.apache.kafka.image.publisher.MetadataPublisher;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.raft.Batch;
import org.apache.kafka.raft.internals.RecordsBatchReader;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.server.common.OffsetAndEpoch;
import org.apache.kafka.snapshot.RawSnapshotReader;
import org.apache.kafka.snapshot.RecordsSnapshotReader;
import org.apache.kafka.snapshot.SnapshotPath;
import org.apache.kafka.snapshot.Snapshots;

final class Images {
    private Images() { }

    /** KafkaRaftClient's MAX_BATCH_SIZE_BYTES, the readers' batch limit. */
    static final int MAX_BATCH = 8 * 1024 * 1024;

    /** Faults Kafka's loader reported while loading (it skips what it cannot replay, as a broker does). */
    static final List<String> FAULTS = new java.util.concurrent.CopyOnWriteArrayList<>();

    static MetadataImage load(Path path) throws Exception {
        FAULTS.clear();
        if (Files.isDirectory(path)) {
            Path inner = path.resolve("__cluster_metadata-0");
            return loadDir(Files.isDirectory(inner) ? inner : path);
        }
        String name = path.getFileName().toString();
        if (name.equals("bootstrap.checkpoint")) return loadBootstrap(path);
        if (name.endsWith(".checkpoint")) return loadLog(path, List.of());
        if (name.endsWith(".log")) return loadLog(null, List.of(path));
        throw new IllegalArgumentException(path + ": not a metadata directory, snapshot, segment or bootstrap file");
    }

    /** A metadata directory: the newest whole snapshot, then the segments in offset order. */
    static MetadataImage loadDir(Path dir) throws Exception {
        Path snapshot = null;
        long best = -1;
        List<Path> segments = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files.sorted()::iterator) {
                String n = f.getFileName().toString();
                if (n.endsWith(".log")) segments.add(f);
                if (!n.endsWith(".checkpoint")) continue;
                SnapshotPath sp = Snapshots.parse(f).orElse(null);
                if (sp != null && !sp.partial() && !sp.deleted() && sp.snapshotId().offset() > best) {
                    best = sp.snapshotId().offset();
                    snapshot = f;
                }
            }
        }
        return loadLog(snapshot, segments);
    }

    /** A snapshot (may be null) and then the batches of segments that end at or after the snapshot's end offset. */
    static MetadataImage loadLog(Path snapshot, List<Path> segments) throws Exception {
        long from = 0, last = -1;
        byte[] snap = null;
        OffsetAndEpoch id = null;
        if (snapshot != null) {
            id = Snapshots.parse(snapshot).orElseThrow().snapshotId();
            snap = Files.readAllBytes(snapshot);
            from = id.offset();
            last = from - 1;
        }
        List<MemoryRecords> commits = new ArrayList<>();
        List<Long> bases = new ArrayList<>();
        for (Path seg : segments) {
            MemoryRecords all = MemoryRecords.readableRecords(ByteBuffer.wrap(Files.readAllBytes(seg)));
            int pos = 0;
            for (MutableRecordBatch b : all.batches()) {
                if (b.lastOffset() >= from) {
                    commits.add(all.slice(pos, b.sizeInBytes()));
                    bases.add(b.baseOffset());
                    last = Math.max(last, b.lastOffset());
                }
                pos += b.sizeInBytes();
            }
        }
        try (Loader l = new Loader(last)) {
            if (snap != null) l.loadSnapshot(id, snap);
            for (int i = 0; i < commits.size(); i++) l.commit(bases.get(i), commits.get(i));
            return l.await();
        }
    }

    /** bootstrap.checkpoint: its records replayed as a snapshot on the empty image. */
    static MetadataImage loadBootstrap(Path file) throws Exception {
        byte[] data = Files.readAllBytes(file);
        MetadataDelta delta = new MetadataDelta.Builder().setImage(MetadataImage.EMPTY).build();
        try (RecordsSnapshotReader<ApiMessageAndVersion> r = snapshotReader(new OffsetAndEpoch(0, 0), data)) {
            while (r.hasNext()) {
                Batch<ApiMessageAndVersion> b = r.next();
                for (ApiMessageAndVersion rec : b.records()) delta.replay(rec.message());
            }
        }
        delta.finishSnapshot();
        return delta.apply(new MetadataProvenance(-1, -1, 0, true));
    }

    static RecordsSnapshotReader<ApiMessageAndVersion> snapshotReader(OffsetAndEpoch id, byte[] data) {
        MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(data));
        RawSnapshotReader raw = new RawSnapshotReader() {
            @Override public OffsetAndEpoch snapshotId() { return id; }
            @Override public long sizeInBytes() { return data.length; }
            @Override public UnalignedRecords slice(long position, int size) {
                return new UnalignedMemoryRecords(ByteBuffer.wrap(data, (int) position, size).slice());
            }
            @Override public Records records() { return records; }
        };
        return RecordsSnapshotReader.of(raw, MetadataRecordSerde.INSTANCE, BufferSupplier.create(), MAX_BATCH, true,
            new LogContext());
    }

    /**
     * Kafka's MetadataLoader with the high watermark at last + 1 and one publisher keeping the newest image it is
     * handed. await returns once that image holds offset last, or, when no image ever does (a transaction still open
     * at the end of the input), once the loader is quiet.
     */
    static final class Loader implements AutoCloseable {
        final long last;
        final MetadataLoader loader;
        final AtomicReference<MetadataImage> newest = new AtomicReference<>();
        final Object changed = new Object();

        Loader(long last) throws Exception {
            this.last = last;
            loader = new MetadataLoader.Builder()
                .setHighWaterMarkAccessor(() -> OptionalLong.of(last + 1))
                .setFaultHandler((msg, cause) -> {
                    FAULTS.add(msg + (cause == null ? "" : ": " + cause));
                    return new RuntimeException(msg, cause);
                })
                .build();
            loader.installPublishers(List.of(new MetadataPublisher() {
                @Override public String name() { return "kmetaoracle"; }
                @Override public void onMetadataUpdate(MetadataDelta delta, MetadataImage image, LoaderManifest m) {
                    newest.set(image);
                    synchronized (changed) { changed.notifyAll(); }
                }
            })).get();
        }

        void loadSnapshot(OffsetAndEpoch id, byte[] data) {
            loader.handleLoadSnapshot(snapshotReader(id, data));
        }

        /** One committed batch (or run of batches) starting at base, as KafkaRaftClient hands it to handleCommit. */
        void commit(long base, MemoryRecords records) {
            loader.handleCommit(RecordsBatchReader.of(base, records, MetadataRecordSerde.INSTANCE,
                BufferSupplier.create(), MAX_BATCH, r -> { }, true, new LogContext()));
        }

        MetadataImage await() throws Exception {
            // MetadataLoader runs its events in order: once a publisher installed now is installed, everything fed
            // before it has run. A first publication schedules one more event (the publisher's initialization), so
            // a quiet loader is one whose image did not move across two such rounds.
            MetadataImage before = null;
            for (int round = 0, quiet = 0; quiet < 2 && round < 100_000; round++) {
                MetadataImage img = newest.get();
                if (img != null && img.provenance().lastContainedOffset() >= last) return img;
                MetadataPublisher marker = new MetadataPublisher() {
                    @Override public String name() { return "kmetaoracle-marker"; }
                    @Override public void onMetadataUpdate(MetadataDelta d, MetadataImage i, LoaderManifest m) { }
                };
                loader.installPublishers(List.of(marker)).get(10, TimeUnit.MINUTES);
                loader.removeAndClosePublisher(marker).get(10, TimeUnit.MINUTES);
                MetadataImage after = newest.get();
                quiet = (after == before && after == img) ? quiet + 1 : 0;
                before = after;
                if (after == null || after.provenance().lastContainedOffset() < last) {
                    synchronized (changed) { changed.wait(5); }
                }
            }
            MetadataImage img = newest.get();
            if (img == null) {
                throw new IllegalStateException("Kafka's loader published no image; " + FAULTS.size() + " fault(s), the first: " +
                    FAULTS.subList(0, Math.min(2, FAULTS.size())));
            }
            return img;
        }

        @Override public void close() throws Exception {
            loader.beginShutdown();
            loader.close();
        }
    }
}
