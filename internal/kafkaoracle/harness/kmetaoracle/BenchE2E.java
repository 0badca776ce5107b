// Kafka's side of kmeta's end-to-end benchmarks (publisher's
// BenchmarkEndToEndSnapshot and BenchmarkEndToEndSegment): the bytes of a
// metadata file, held in memory, through Kafka's own readers into
// MetadataLoader, until a MetadataPublisher is handed the image of the
// file's last offset. Not a vector generator: bench-e2e.sh runs it.
//
//   java kmetaoracle.BenchE2E FILES.tsv WARMUPS ITERATIONS [NAME...]
//
// FILES.tsv is what publisher's TestE2EFiles writes (name, path, last
// offset, size). Prints one "NAME MEDIAN_NS MIN_NS ITERATIONS" line a file.
package kmetaoracle;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.internal.UnalignedMemoryRecords;
import org.apache.kafka.common.record.internal.UnalignedRecords;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.loader.LoaderManifest;
import org.apache.kafka.image.loader.MetadataLoader;
import org.apache.kafka.image.publisher.MetadataPublisher;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.raft.internals.RecordsBatchReader;
import org.apache.kafka.server.common.OffsetAndEpoch;
import org.apache.kafka.server.fault.FaultHandler;
import org.apache.kafka.snapshot.RawSnapshotReader;
import org.apache.kafka.snapshot.RecordsSnapshotReader;
import org.apache.kafka.snapshot.Snapshots;

public final class BenchE2E {
    /** KafkaRaftClient's MAX_BATCH_SIZE_BYTES, the reader's batch limit. */
    static final int MAX_BATCH = 8 * 1024 * 1024;

    public static void main(String[] argv) throws Exception {
        List<String> only = Arrays.asList(argv).subList(3, argv.length);
        int warmups = Integer.parseInt(argv[1]), iterations = Integer.parseInt(argv[2]);
        for (String line : Files.readAllLines(Path.of(argv[0]))) {
            String[] f = line.split("\t");
            if (f.length < 3 || (!only.isEmpty() && !only.contains(f[0]))) continue;
            Path path = Path.of(f[1]);
            long last = Long.parseLong(f[2]);
            byte[] data = Files.readAllBytes(path);
            boolean snapshot = path.getFileName().toString().endsWith(".checkpoint");
            long[] ns = new long[iterations];
            for (int i = -warmups; i < iterations; i++) {
                long start = System.nanoTime();
                MetadataImage img = snapshot ? loadSnapshot(path, data, last) : replaySegment(data, last);
                long t = System.nanoTime() - start;
                if (img.provenance().lastContainedOffset() != last) throw new IllegalStateException("wrong image");
                if (i >= 0) ns[i] = t;
            }
            long[] sorted = ns.clone();
            Arrays.sort(sorted);
            System.out.printf("%s %d %d %d%n", f[0], sorted[iterations / 2], sorted[0], iterations);
        }
    }

    /** A snapshot file: RecordsSnapshotReader over the bytes, into handleLoadSnapshot. */
    static MetadataImage loadSnapshot(Path path, byte[] data, long last) throws Exception {
        OffsetAndEpoch id = Snapshots.parse(path).orElseThrow().snapshotId();
        try (Images.Loader l = new Images.Loader(last)) {
            l.loadSnapshot(id, data);
            return l.await();
        }
    }

    /** A log segment: each batch its own commit, as KafkaRaftClient hands a committed batch to handleCommit. */
    static MetadataImage replaySegment(byte[] data, long last) throws Exception {
        MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(data));
        List<long[]> spans = new ArrayList<>();
        int pos = 0;
        for (MutableRecordBatch b : records.batches()) {
            spans.add(new long[] {b.baseOffset(), pos, b.sizeInBytes()});
            pos += b.sizeInBytes();
        }
        try (Images.Loader l = new Images.Loader(last)) {
            for (long[] s : spans) l.commit(s[0], records.slice((int) s[1], (int) s[2]));
            return l.await();
        }
    }
}
