package delta

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/imagetest"
	"github.com/kmeta-go/kmeta/internal/benchtest"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// The benchmarks below mirror Kafka's JMH classes in jmh/metadata
// (TopicsImageSnapshotLoadBenchmark, TopicsImageSingleRecordChangeBenchmark,
// TopicsImageZonalOutageBenchmark): totalTopicCount ∈ {12 500,
// 25 000, 50 000, 100 000}, 10 partitions per topic, replication factor 3,
// 10 000 replicas per broker → 36, 75, 150, 300 brokers; the leader of
// successive partitions round-robins over the brokers, replicas are
// [l, l+1, l+2] mod brokers, ISR = replicas. Replay happens in setup; the
// measured step is Apply.

var topicCounts = []int{12500, 25000, 50000, 100000}

const (
	partitionsPerTopic = 10
	replicationFactor  = 3
	replicasPerBroker  = 10000
)

func numBrokers(topics int) int {
	n := topics * partitionsPerTopic * replicationFactor / replicasPerBroker
	return n - n%replicationFactor
}

func randomID(r *rand.Rand) record.UUID {
	var u record.UUID
	for i := range u {
		u[i] = byte(r.Uint32())
	}
	return u
}

// snapshotRecords returns the TopicRecords and PartitionRecords of the JMH
// benchmarks' cluster.
func snapshotRecords(topics int) []record.Record {
	recs := make([]record.Record, 0, topics*(partitionsPerTopic+1))
	eachSnapshotRecord(topics, true, func(r record.Record) { recs = append(recs, r) })
	return recs
}

// eachSnapshotRecord calls f with each of the records snapshotRecords
// returns, in order: fresh records when fresh, else the same two records
// (one TopicRecord, one PartitionRecord) rewritten each time, for images
// too large to hold their records (Replay keeps only copies).
func eachSnapshotRecord(topics int, fresh bool, f func(record.Record)) {
	brokers := numBrokers(topics)
	r := rand.New(rand.NewPCG(uint64(topics), 1))
	leader := 0
	tr, pr := record.NewTopicRecord(), record.NewPartitionRecord()
	reps := make([]int32, replicationFactor)
	for t := 0; t < topics; t++ {
		id := randomID(r)
		if fresh {
			tr = record.NewTopicRecord()
		}
		tr.Name, tr.TopicID = fmt.Sprintf("topic%d", t), id
		f(tr)
		for p := 0; p < partitionsPerTopic; p++ {
			if fresh {
				pr, reps = record.NewPartitionRecord(), make([]int32, replicationFactor)
			}
			pr.TopicID, pr.PartitionID = id, int32(p)
			for i := range reps {
				reps[i] = int32((leader + i) % brokers)
			}
			pr.Replicas, pr.ISR = reps, reps
			pr.RemovingReplicas, pr.AddingReplicas = []int32{}, []int32{}
			pr.Leader = int32(leader)
			leader = (leader + 1) % brokers
			f(pr)
		}
	}
}

// fullImage is the JMH benchmarks' cluster of topics topics, replayed from
// records made one at a time.
func fullImage(b testing.TB, topics int) *image.Image {
	d := New(nil)
	eachSnapshotRecord(topics, false, func(r record.Record) {
		if err := d.Replay(r); err != nil {
			b.Fatal(err)
		}
	})
	img, err := d.Apply(image.EmptyProvenance)
	if err != nil {
		b.Fatal(err)
	}
	return img
}

// benchApply measures d.Apply, with the process's CPU time per Apply
// (cpu-ns/op: the garbage collector's background work included, the
// neighbours' load on a shared machine not). The setup's garbage is
// collected first: at 10 M partitions, a collection of it inside the timed
// loop would otherwise be most of what a short run measures.
func benchApply(b *testing.B, d *Delta) {
	b.ReportAllocs()
	runtime.GC()
	b.ResetTimer()
	defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
	for b.Loop() {
		if _, err := d.Apply(image.EmptyProvenance); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTopicsImageSnapshotLoad: Apply of a delta on the empty image
// holding every topic and partition (TopicsImageSnapshotLoadBenchmark).
func BenchmarkTopicsImageSnapshotLoad(b *testing.B) {
	for _, n := range topicCounts {
		b.Run(fmt.Sprintf("topics=%d", n), func(b *testing.B) {
			d := New(nil)
			for _, r := range snapshotRecords(n) {
				if err := d.Replay(r); err != nil {
					b.Fatal(err)
				}
			}
			benchApply(b, d)
		})
	}
}

// BenchmarkTopicsImageSingleRecordChange: Apply of a delta adding one topic
// with one partition to the full image
// (TopicsImageSingleRecordChangeBenchmark), at Kafka's sizes and at
// 1 000 000 topics (10 M partitions: about 1.5 GB and a minute of setup;
// only with KMETA_BENCH10M=1),
// to show the cost does not grow with the image.
func BenchmarkTopicsImageSingleRecordChange(b *testing.B) {
	for _, n := range append(topicCounts[:len(topicCounts):len(topicCounts)], 1000000) {
		b.Run(fmt.Sprintf("topics=%d", n), func(b *testing.B) {
			scaleGate(b, n)
			benchApply(b, scaleAddTopic(b, fullImage(b, n)))
		})
	}
}

// BenchmarkChainedSingleRecordChange: the steady state of a
// delta stream at 100 000 topics: each iteration replays one
// PartitionChangeRecord (a leader move on a random topic) onto the image
// the iteration before made and applies it, so unlike
// BenchmarkTopicsImageSingleRecordChange (Kafka's benchmark: one delta on
// one base, again and again) what a change leaves behind stays. Replay is
// timed too. live-MB and scan-MB are the heap and its scanned part after
// the run (a collection forced): they stay near the first image's unless
// changes keep stale images alive.
func BenchmarkChainedSingleRecordChange(b *testing.B) {
	img := fullImage(b, 100000)
	ids := make([]record.UUID, 0, img.Topics().Len())
	for tp := range img.Topics().All() {
		ids = append(ids, tp.ID())
	}
	r := rand.New(rand.NewPCG(3, 4))
	pc := record.NewPartitionChangeRecord()
	b.ReportAllocs()
	runtime.GC()
	b.ResetTimer()
	cpu := benchtest.ProcessCPU()
	for b.Loop() {
		pc.TopicID, pc.PartitionID, pc.Leader = ids[r.IntN(len(ids))], int32(r.IntN(partitionsPerTopic)), int32(r.IntN(replicationFactor))
		d := New(img)
		if err := d.Replay(pc); err != nil {
			b.Fatal(err)
		}
		next, err := d.Apply(image.EmptyProvenance)
		if err != nil {
			b.Fatal(err)
		}
		img = next
	}
	benchtest.ReportCPU(b, cpu)
	b.StopTimer()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-MB")
	b.ReportMetric(float64(scannableHeap())/(1<<20), "scan-MB")
	runtime.KeepAlive(img)
}

// BenchmarkTopicsImageZonalOutage: Apply of a delta that, for every
// partition whose ISR holds broker 0, replays a PartitionRecord with broker 0
// removed from the ISR and the first remaining member as leader
// (TopicsImageZonalOutageBenchmark).
func BenchmarkTopicsImageZonalOutage(b *testing.B) {
	for _, n := range topicCounts {
		b.Run(fmt.Sprintf("topics=%d", n), func(b *testing.B) {
			d := scaleZonalOutage(b, fullImage(b, n))
			b.ReportMetric(float64(len(d.Topics().Changed)), "topics-changed")
			benchApply(b, d)
		})
	}
}

// BenchmarkImageHeapPerPartition reports the live heap of an image of
// 100 000 topics × 10 partitions (and of 1 000 000 × 10: 10 M partitions,
// about 1.5 GB and a minute), per partition (Kafka: ≈ 292 bytes), and the
// part of it the garbage collector scans (scan-B/partition: the runtime's
// /gc/scan/heap:bytes, the live heap less pointer-free objects and the
// pointer-free tails of objects, after a collection). The records are made
// one at a time, so the heap measured is the image's.
func BenchmarkImageHeapPerPartition(b *testing.B) {
	for _, topics := range []int{100000, 1000000} {
		b.Run(fmt.Sprintf("topics=%d", topics), func(b *testing.B) {
			scaleGate(b, topics)
			b.ReportAllocs()
			var perPartition, scanPerPartition float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				scanBefore := scannableHeap()
				img := fullImage(b, topics)
				runtime.GC()
				runtime.ReadMemStats(&after)
				scanAfter := scannableHeap()
				perPartition = float64(after.HeapAlloc-before.HeapAlloc) / float64(topics*partitionsPerTopic)
				scanPerPartition = float64(scanAfter-scanBefore) / float64(topics*partitionsPerTopic)
				runtime.KeepAlive(img)
			}
			b.ReportMetric(perPartition, "bytes/partition")
			b.ReportMetric(scanPerPartition, "scan-B/partition")
		})
	}
}

// scannableHeap is the runtime's count of scannable heap bytes
// (/gc/scan/heap:bytes): right after runtime.GC, the bytes the collection
// scanned.
func scannableHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// BenchmarkLoadSnapshotBytes: decode, replay and apply of a snapshot file of
// 100 000 topics × 10 partitions (1 M partitions) held in memory, written in
// setup by metalog.NewSnapshotWriter (batches packed up to 8 MiB, as
// RecordsSnapshotWriter packs SnapshotEmitter's appends) and read with
// metalog.NewSnapshotReader, every batch's CRC checked, and decoded with a
// record.Decoder.
func BenchmarkLoadSnapshotBytes(b *testing.B) {
	data, id := snapshotFileBytes(b, 100000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := loadSnapshotBytes(data, id); err != nil {
			b.Fatal(err)
		}
	}
}

// snapshotFileBytes writes the JMH cluster of topics topics, after a
// metadata.version FeatureLevelRecord, as a snapshot file.
func snapshotFileBytes(tb testing.TB, topics int) ([]byte, metalog.SnapshotID) {
	var buf bytes.Buffer
	id := metalog.SnapshotID{EndOffset: int64(topics*(partitionsPerTopic+1)) + 1, Epoch: 1}
	w, err := metalog.NewSnapshotWriter(&buf, id, metalog.SnapshotWriterConfig{LastContainedLogTimestamp: 1, Now: func() int64 { return 1 }})
	if err != nil {
		tb.Fatal(err)
	}
	fl := record.NewFeatureLevelRecord()
	fl.Name, fl.FeatureLevel = image.MetadataVersionFeature, int16(image.MV3_9_IV0)
	for _, r := range append([]record.Record{fl}, snapshotRecords(topics)...) {
		if err := w.AppendRecord(r, versionFor(r)); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := w.Freeze(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes(), id
}

// loadSnapshotBytes reads a snapshot file held in data into an image.
func loadSnapshotBytes(data []byte, id metalog.SnapshotID) (*image.Image, error) {
	s, err := metalog.NewSnapshotReader(bytes.NewReader(data), id.FileName(), id)
	if err != nil {
		return nil, err
	}
	d := NewSnapshot(nil)
	var dec record.Decoder // Replay copies what it keeps of a record
	for {
		bt, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if bt.IsControl() {
			continue
		}
		for _, e := range bt.Entries {
			r, _, err := dec.Decode(e.Value)
			if err != nil {
				return nil, err
			}
			if err := d.Replay(r); err != nil {
				return nil, err
			}
		}
	}
	d.FinishSnapshot()
	return d.Apply(image.Provenance{LastContainedOffset: s.LastContainedLogOffset(), LastContainedEpoch: s.LastContainedLogEpoch(), LastContainedLogTimeMs: s.LastContainedLogTimestamp(), BatchAligned: true})
}

func versionFor(r record.Record) int16 {
	if r.Type() == record.TypePartitionRecord {
		return image.MV3_9_IV0.PartitionRecordVersion()
	}
	return 0
}

// TestLoadSnapshotBytes: the snapshot file BenchmarkLoadSnapshotBytes reads
// loads into the image the same records give when replayed directly.
func TestLoadSnapshotBytes(t *testing.T) {
	const topics = 2000 // 6 brokers
	data, id := snapshotFileBytes(t, topics)
	img, err := loadSnapshotBytes(data, id)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := img.Provenance().LastContainedOffset, id.EndOffset-1; got != want {
		t.Errorf("provenance offset %d, want %d", got, want)
	}
	d := NewSnapshot(nil)
	fl := record.NewFeatureLevelRecord()
	fl.Name, fl.FeatureLevel = image.MetadataVersionFeature, int16(image.MV3_9_IV0)
	for _, r := range append([]record.Record{fl}, snapshotRecords(topics)...) {
		if err := d.Replay(r); err != nil {
			t.Fatal(err)
		}
	}
	d.FinishSnapshot()
	want, err := d.Apply(img.Provenance())
	if err != nil {
		t.Fatal(err)
	}
	if img.Topics().Len() != topics {
		t.Fatalf("%d topics, want %d", img.Topics().Len(), topics)
	}
	imagetest.CompareImage(t, img, imagetest.ImageLines(t, want))
}
