package publisher

import (
	"fmt"
	"github.com/kmeta-go/kmeta/internal/benchtest"
	"runtime"
	"sync"
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// The publish benchmarks use a cluster shaped like Kafka's JMH metadata
// benchmarks at 100 000 topics × 10 partitions = 1 M
// partitions, RF 3, 300 brokers, round-robin leaders.
const (
	benchTopics     = 100000
	benchPartitions = 10
	benchBrokers    = 300
)

var (
	benchOnce sync.Once
	benchRecs []record.Record
	benchImg  *image.Image
)

func benchSetup(b *testing.B) {
	benchOnce.Do(func() {
		leader := 0
		for t := 0; t < benchTopics; t++ {
			id := record.UUID{byte(t >> 16), byte(t >> 8), byte(t), 0xbe, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
			tr := record.NewTopicRecord()
			tr.Name, tr.TopicID = fmt.Sprintf("topic%d", t), id
			benchRecs = append(benchRecs, tr)
			for p := 0; p < benchPartitions; p++ {
				pr := record.NewPartitionRecord()
				pr.TopicID, pr.PartitionID = id, int32(p)
				pr.Replicas = []int32{int32(leader), int32((leader + 1) % benchBrokers), int32((leader + 2) % benchBrokers)}
				pr.ISR, pr.RemovingReplicas, pr.AddingReplicas = pr.Replicas, []int32{}, []int32{}
				pr.Leader = int32(leader)
				leader = (leader + 1) % benchBrokers
				benchRecs = append(benchRecs, pr)
			}
		}
		d := delta.New(nil)
		for _, r := range benchRecs {
			if err := d.Replay(r); err != nil {
				panic(err)
			}
		}
		img, err := d.Apply(image.Provenance{LastContainedOffset: 999, LastContainedEpoch: 1, BatchAligned: true})
		if err != nil {
			panic(err)
		}
		benchImg = img
	})
}

// benchChange is the one-record commit: a leader change of one partition
// of topic 4242, alternating between two of its replicas.
func benchChange(i int) *record.PartitionChangeRecord {
	r := record.NewPartitionChangeRecord()
	r.TopicID = record.UUID{0, 0x10, 0x92, 0xbe, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12} // topic 4242
	r.PartitionID = 3
	r.Leader = int32(4242*10+3+i%2) % benchBrokers
	return r
}

// BenchmarkCommitDeltaOnly is the delta's own cost of one
// PartitionChangeRecord commit at 1 M partitions: New, Replay, Apply.
func BenchmarkCommitDeltaOnly(b *testing.B) {
	benchSetup(b)
	img := benchImg
	off := img.Provenance().LastContainedOffset
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchtest.ProcessCPU()
	defer func() { benchtest.ReportCPU(b, cpu) }()
	i := 0
	for b.Loop() {
		d := delta.New(img)
		if err := d.Replay(benchChange(i)); err != nil {
			b.Fatal(err)
		}
		off++
		next, err := d.Apply(image.Provenance{LastContainedOffset: off, LastContainedEpoch: 1, LastContainedLogTimeMs: int64(i), BatchAligned: true})
		if err != nil {
			b.Fatal(err)
		}
		img = next
		i++
	}
}

var (
	benchLoaderOnce sync.Once
	benchLoader     *Loader
	benchNext       int64
)

// BenchmarkCommitLoader3Publishers is the same commit through the loader
// with three publishers installed: the cache, the snapshot generator (its
// triggers not reached) and a function publisher that reads the delta's
// topic changes.
func BenchmarkCommitLoader3Publishers(b *testing.B) {
	benchSetup(b)
	benchLoaderOnce.Do(func() {
		l := NewLoader(Config{})
		if err := l.LoadSnapshot(Snapshot{LastContainedOffset: 999, LastContainedEpoch: 1, Records: benchRecs}.Reader()); err != nil {
			panic(err)
		}
		l.SetHighWatermark(1000)
		changed := 0
		err := l.Install(NewCache(""),
			NewSnapshotGenerator(&fakeEmitter{}, SnapshotGeneratorConfig{MaxBytes: 1 << 50, MaxInterval: -1}),
			Func("counter", func(u Update) error {
				if u.Manifest.Type == LogDelta {
					changed += len(u.Changes.Topics().Changed)
				}
				return nil
			}))
		if err != nil {
			panic(err)
		}
		benchLoader, benchNext = l, 1000
	})
	l := benchLoader
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchtest.ProcessCPU()
	defer func() { benchtest.ReportCPU(b, cpu) }()
	i := 0
	recs := make([]record.Record, 1)
	for b.Loop() {
		recs[0] = benchChange(i)
		if err := l.HandleCommit(record.Batch{BaseOffset: benchNext, LeaderEpoch: 1, AppendTime: int64(i), Size: 100, Records: versioned(recs...)}); err != nil {
			b.Fatal(err)
		}
		benchNext++
		i++
	}
}

// BenchmarkCacheLoad: one read of the current image.
func BenchmarkCacheLoad(b *testing.B) {
	c := NewCache("")
	c.OnUpdate(Update{Image: image.Empty()})
	b.ReportAllocs()
	cpu := benchtest.ProcessCPU()
	defer func() { benchtest.ReportCPU(b, cpu) }()
	var sink *image.Image
	for b.Loop() {
		sink = c.Load()
	}
	_ = sink
}

// BenchmarkCacheLoadLeader: a read of the current image and a partition
// leader lookup at 1 M partitions (the hot path of a produce request's
// leader check).
func BenchmarkCacheLoadLeader(b *testing.B) {
	benchSetup(b)
	c := NewCache("")
	c.OnUpdate(Update{Image: benchImg})
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchtest.ProcessCPU()
	defer func() { benchtest.ReportCPU(b, cpu) }()
	i := 0
	for b.Loop() {
		if _, _, ok := c.Load().Leader(benchNames[i&1023], int32(i%benchPartitions)); !ok {
			b.Fatal("no leader")
		}
		i++
	}
}

var benchNames = func() []string {
	out := make([]string, 1024)
	for i := range out {
		out[i] = fmt.Sprintf("topic%d", i*97)
	}
	return out
}()

// BenchmarkCacheLoadParallel: reads from every core at once; run with
// -cpu 1,2 to see them scale: ns/op (wall time over all goroutines) should
// halve from 1 to 2 cores, and cpu-ns/op (CPU per read) stay the same, which
// it would not if reads contended for a cache line.
func BenchmarkCacheLoadParallel(b *testing.B) {
	c := NewCache("")
	c.OnUpdate(Update{Image: image.Empty()})
	b.ReportAllocs()
	cpu := benchtest.ProcessCPU()
	defer func() { benchtest.ReportCPU(b, cpu) }()
	b.RunParallel(func(pb *testing.PB) {
		var sink *image.Image
		for pb.Next() {
			sink = c.Load()
		}
		_ = sink
	})
}

// BenchmarkCacheLoadLeaderParallel: the leader lookup from every core.
func BenchmarkCacheLoadLeaderParallel(b *testing.B) {
	benchSetup(b)
	c := NewCache("")
	c.OnUpdate(Update{Image: benchImg})
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchtest.ProcessCPU()
	defer func() { benchtest.ReportCPU(b, cpu) }()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, _, ok := c.Load().Leader(benchNames[i&1023], int32(i%benchPartitions)); !ok {
				b.Fatal("no leader")
			}
			i++
		}
	})
}
