package delta

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/benchtest"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// Ten million partitions: the JMH benchmarks' cluster (10 partitions per
// topic, RF 3, 10 000 replicas per broker, round-robin leaders) at 100 000
// topics (1 M partitions, 300 brokers) and at 1 000 000 topics (10 M
// partitions, 3 000 brokers), measured the same way so that the growth from
// 1 M to 10 M can be read off one run.
//
// The 10 M size allocates several GB (the snapshot file, ~1 GB of image, the
// load's garbage) and takes minutes; it runs only when the environment sets
// KMETA_BENCH10M=1:
//
//	KMETA_BENCH10M=1 go test ./delta -run '^$' -bench 'Scale' -benchtime 1x -count 5 -timeout 2h

var scaleSizes = []struct {
	name   string
	topics int
}{{"partitions=1M", 100000}, {"partitions=10M", 1000000}}

// scaleGate skips a size above 1 M partitions unless KMETA_BENCH10M=1.
func scaleGate(b *testing.B, topics int) {
	if topics > 100000 && os.Getenv("KMETA_BENCH10M") != "1" {
		b.Skip("10 M partitions allocate several GB: set KMETA_BENCH10M=1 to run")
	}
}

// scaleRecords calls yield with snapshotRecords(topics) one record at a
// time, in the same order and with the same ids, without holding them all.
func scaleRecords(topics int, yield func(record.Record) error) error {
	brokers := numBrokers(topics)
	r := rand.New(rand.NewPCG(uint64(topics), 1))
	leader := 0
	for t := 0; t < topics; t++ {
		id := randomID(r)
		tr := record.NewTopicRecord()
		tr.Name, tr.TopicID = fmt.Sprintf("topic%d", t), id
		if err := yield(tr); err != nil {
			return err
		}
		for p := 0; p < partitionsPerTopic; p++ {
			pr := record.NewPartitionRecord()
			pr.TopicID, pr.PartitionID = id, int32(p)
			reps := make([]int32, replicationFactor)
			for i := range reps {
				reps[i] = int32((leader + i) % brokers)
			}
			pr.Replicas, pr.ISR = reps, reps
			pr.RemovingReplicas, pr.AddingReplicas = []int32{}, []int32{}
			pr.Leader = int32(leader)
			leader = (leader + 1) % brokers
			if err := yield(pr); err != nil {
				return err
			}
		}
	}
	return nil
}

// scaleSnapshotBytes is snapshotFileBytes for any size, written from
// scaleRecords.
func scaleSnapshotBytes(tb testing.TB, topics int) ([]byte, metalog.SnapshotID) {
	var buf bytes.Buffer
	buf.Grow(topics * partitionsPerTopic * 64) // ~58 bytes per PartitionRecord
	id := metalog.SnapshotID{EndOffset: int64(topics*(partitionsPerTopic+1)) + 1, Epoch: 1}
	w, err := metalog.NewSnapshotWriter(&buf, id, metalog.SnapshotWriterConfig{LastContainedLogTimestamp: 1, Now: func() int64 { return 1 }})
	if err != nil {
		tb.Fatal(err)
	}
	fl := record.NewFeatureLevelRecord()
	fl.Name, fl.FeatureLevel = image.MetadataVersionFeature, int16(image.MV3_9_IV0)
	if err := w.AppendRecord(fl, 0); err != nil {
		tb.Fatal(err)
	}
	if err := scaleRecords(topics, func(r record.Record) error { return w.AppendRecord(r, versionFor(r)) }); err != nil {
		tb.Fatal(err)
	}
	if _, err := w.Freeze(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes(), id
}

// scaleHeap is the live heap and the scannable heap (/gc/scan/heap:bytes)
// after a collection.
func scaleHeap() (live, scan uint64) {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/heap:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// BenchmarkScale: at 1 M and 10 M partitions,
//
//   - LoadSnapshotBytes: BenchmarkLoadSnapshotBytes (decode, replay and
//     apply of the snapshot file held in memory), also reporting the process's
//     CPU time per load (cpu-ns/op, the collector's included), the loaded
//     image's live heap per partition (B/partition) and the part of it the
//     collector scans (scan-B/partition: /gc/scan/heap:bytes of
//     runtime/metrics), each after a collection;
//   - SingleRecordChange: BenchmarkTopicsImageSingleRecordChange's Apply
//     (one new topic of one partition) on the loaded image;
//   - PartitionChange: Apply of one PartitionChangeRecord moving a leader;
//   - ZonalOutage: BenchmarkTopicsImageZonalOutage's Apply (broker 0 leaves
//     every ISR; 10 000 partitions at both sizes, as 10 000 replicas per
//     broker).
func BenchmarkScale(b *testing.B) {
	for _, s := range scaleSizes {
		b.Run(s.name, func(b *testing.B) {
			scaleGate(b, s.topics)
			img := scaleLoad(b, s.topics)
			b.Run("SingleRecordChange", func(b *testing.B) { benchApply(b, scaleAddTopic(b, img)) })
			b.Run("PartitionChange", func(b *testing.B) { benchApply(b, scalePartitionChange(b, img)) })
			b.Run("ZonalOutage", func(b *testing.B) {
				d := scaleZonalOutage(b, img)
				b.ReportMetric(float64(len(d.Topics().Changed)), "topics-changed")
				benchApply(b, d)
			})
			runtime.KeepAlive(img)
		})
	}
}

// scaleLoad runs the LoadSnapshotBytes sub-benchmark and returns an image
// it loaded.
func scaleLoad(b *testing.B, topics int) *image.Image {
	data, id := scaleSnapshotBytes(b, topics)
	var img *image.Image
	b.Run("LoadSnapshotBytes", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		img = nil
		live0, scan0 := scaleHeap()
		b.ResetTimer()
		cpu := benchtest.ProcessCPU()
		for b.Loop() {
			img = nil
			var err error
			if img, err = loadSnapshotBytes(data, id); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		benchtest.ReportCPU(b, cpu)
		live1, scan1 := scaleHeap()
		n := float64(topics * partitionsPerTopic)
		b.ReportMetric(float64(live1-live0)/n, "B/partition")
		b.ReportMetric(float64(scan1-scan0)/n, "scan-B/partition")
	})
	if img == nil {
		b.Fatal("LoadSnapshotBytes did not run")
	}
	return img
}

// scaleAddTopic: the delta of TopicsImageSingleRecordChangeBenchmark.
func scaleAddTopic(b *testing.B, img *image.Image) *Delta {
	d := New(img)
	id := record.UUID{0xff, 1, 2, 3}
	tr := record.NewTopicRecord()
	tr.Name, tr.TopicID = "newtopic", id
	pr := record.NewPartitionRecord()
	pr.TopicID, pr.PartitionID = id, 0
	pr.Replicas = []int32{0, 1, 2}
	pr.ISR, pr.RemovingReplicas, pr.AddingReplicas = pr.Replicas, []int32{}, []int32{}
	pr.Leader = 0
	for _, r := range []record.Record{tr, pr} {
		if err := d.Replay(r); err != nil {
			b.Fatal(err)
		}
	}
	return d
}

// scalePartitionChange: a delta moving the leader of partition 3 of
// topic4242 to its second replica.
func scalePartitionChange(b *testing.B, img *image.Image) *Delta {
	t, ok := img.Topic("topic4242")
	if !ok {
		b.Fatal("no topic4242")
	}
	p, _ := t.Partition(3)
	pc := record.NewPartitionChangeRecord()
	pc.TopicID, pc.PartitionID, pc.Leader = t.ID(), 3, p.Record(t.ID(), false, false).Replicas[1]
	d := New(img)
	if err := d.Replay(pc); err != nil {
		b.Fatal(err)
	}
	return d
}

// scaleZonalOutage: the delta of TopicsImageZonalOutageBenchmark.
func scaleZonalOutage(b *testing.B, img *image.Image) *Delta {
	d := New(img)
	for t := range img.Topics().All() {
		for p := range t.Partitions() {
			if !p.InISR(0) {
				continue
			}
			pr := p.Record(t.ID(), false, false)
			isr := pr.ISR[:0:0]
			for _, x := range pr.ISR {
				if x != 0 {
					isr = append(isr, x)
				}
			}
			pr.ISR, pr.Leader = isr, isr[0]
			if err := d.Replay(pr); err != nil {
				b.Fatal(err)
			}
		}
	}
	return d
}

// TestScaleRecords: scaleRecords yields exactly snapshotRecords, so that
// BenchmarkScale's cluster is the other benchmarks' cluster.
func TestScaleRecords(t *testing.T) {
	const topics = 3000
	want := snapshotRecords(topics)
	i := 0
	err := scaleRecords(topics, func(r record.Record) error {
		if i >= len(want) {
			return fmt.Errorf("record %d: more than the %d of snapshotRecords", i, len(want))
		}
		if !reflect.DeepEqual(r, want[i]) {
			return fmt.Errorf("record %d: %+v, want %+v", i, r, want[i])
		}
		i++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if i != len(want) {
		t.Fatalf("%d records, want %d", i, len(want))
	}
}
