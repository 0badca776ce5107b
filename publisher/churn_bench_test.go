package publisher

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/epoch"
	"github.com/kmeta-go/kmeta/record"
)

// Readers under churn: request handlers resolving leaders and checking
// leader epochs on the image a Cache publishes, while the Loader applies
// 1 000 commits per second of one PartitionChangeRecord each (the metadata
// churn of a broker following a busy controller, as Kafka's MetadataLoader
// would publish it), against the same readers on a still image.

// churnRate is the commits per second the churn goroutine paces itself to.
const churnRate = 1000

// churnSetup is the loader, its runner and its cache, built once per test
// binary: 1 M partitions, loaded from a snapshot of the publish benchmarks'
// cluster whose records are then dropped (so that the live heap is the
// image's, not the records').
type churnSetup struct {
	runner *Runner
	cache  *Cache
	names  []string
	next   int64 // the next commit's base offset; owned by the churn goroutine
	seq    int   // commits made so far; owned by the churn goroutine
}

var (
	churnOnce  sync.Once
	churnState *churnSetup
)

func churnFixture(b *testing.B) *churnSetup {
	churnOnce.Do(func() {
		l := NewLoader(Config{})
		if err := l.LoadSnapshot(Snapshot{LastContainedOffset: 999, LastContainedEpoch: 1, Records: churnSnapshotRecords()}.Reader()); err != nil {
			panic(err)
		}
		l.SetHighWatermark(1000)
		c := NewCache("")
		changed := 0
		err := l.Install(c,
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
		names := make([]string, benchTopics)
		for t := range names {
			names[t] = fmt.Sprintf("topic%d", t)
		}
		churnState = &churnSetup{runner: NewRunner(l, 64), cache: c, names: names, next: 1000}
	})
	return churnState
}

// churnSnapshotRecords are benchSetup's records, made afresh.
func churnSnapshotRecords() []record.Record {
	recs := make([]record.Record, 0, benchTopics*(benchPartitions+1))
	for t := 0; t < benchTopics; t++ {
		id := churnTopicID(t)
		tr := record.NewTopicRecord()
		tr.Name, tr.TopicID = fmt.Sprintf("topic%d", t), id
		recs = append(recs, tr)
		for p := 0; p < benchPartitions; p++ {
			pr := record.NewPartitionRecord()
			pr.TopicID, pr.PartitionID = id, int32(p)
			pr.Replicas = churnReplicas(t, p)
			pr.ISR, pr.RemovingReplicas, pr.AddingReplicas = pr.Replicas, []int32{}, []int32{}
			pr.Leader = pr.Replicas[0]
			recs = append(recs, pr)
		}
	}
	return recs
}

func churnTopicID(t int) record.UUID {
	return record.UUID{byte(t >> 16), byte(t >> 8), byte(t), 0xbe, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
}

// churnReplicas: benchSetup's round-robin assignment, [l, l+1, l+2] mod
// brokers with l the partition's global index mod brokers.
func churnReplicas(t, p int) []int32 {
	l := (t*benchPartitions + p) % benchBrokers
	return []int32{int32(l), int32((l + 1) % benchBrokers), int32((l + 2) % benchBrokers)}
}

// churnPass is the number of distinct partitions one pass of the churn
// visits before it starts again, moving every leader back.
const churnPass = 50000

// churnChange is commit i: a leader change of partition i%10 of topic
// (i*7919)%100 000 (a prime stride, so successive commits hit different
// topics), to its second replica on even passes and back to its first on
// odd ones: every commit bumps a leader epoch and a partition epoch.
func churnChange(i int) *record.PartitionChangeRecord {
	k := i % churnPass
	t, p := (k*7919)%benchTopics, k%benchPartitions
	r := record.NewPartitionChangeRecord()
	r.TopicID, r.PartitionID = churnTopicID(t), int32(p)
	r.Leader = churnReplicas(t, p)[1-(i/churnPass)%2]
	return r
}

// churn commits at churnRate per second through the runner until stop is
// closed, pacing by absolute due times (a late commit is made at once, so
// the average rate holds when the machine is busy).
func (s *churnSetup) churn(stop <-chan struct{}, done chan<- int) {
	start, n := time.Now(), 0
	tick := time.NewTimer(time.Hour)
	defer tick.Stop()
	for {
		due := start.Add(time.Duration(n) * time.Second / churnRate)
		if d := time.Until(due); d > 0 {
			tick.Reset(d)
			select {
			case <-stop:
				done <- n
				return
			case <-tick.C:
			}
		}
		select {
		case <-stop:
			done <- n
			return
		default:
		}
		recs := []record.Record{churnChange(s.seq)}
		if err := s.runner.HandleCommit(record.Batch{BaseOffset: s.next, LeaderEpoch: 1, AppendTime: int64(s.seq), Size: 100, Records: versioned(recs...)}); err != nil {
			panic(err)
		}
		s.next++
		s.seq++
		n++
	}
}

// BenchmarkReadersUnderChurn: R reader goroutines each do b.N/R requests;
// a request loads the Cache's image, resolves a partition's leader with
// Image.Leader, resolves its topic with Image.Topic and checks a follower
// fetch at the leader's epoch with epoch.Check (as
// ReplicaManager.readFromLog's Partition.checkCurrentLeaderEpoch and
// getLocalLog do), for a random partition of the 1 M. Each request is
// timed; p50-ns, p99-ns and p99.9-ns are the readers' latency percentiles,
// gc-cpu-% the collector's share of the CPU the process had
// (/cpu/classes/gc/total over /cpu/classes/total of runtime/metrics),
// gc-busy-% the same without the idle-priority mark workers (which run
// only on Ps nothing else wants), and
// gc-cycles the collections completed, both over the measured run;
// commits/s the churn's achieved rate. still: no commits; churn: 1 000
// commits per second through the Runner, three publishers installed (the
// Cache, a SnapshotGenerator, a Func); churn+gc: the churn and a collection
// started every second (runtime.GC on another goroutine), since the churn
// alone allocates a few MB per second and so starts a cycle only about once
// a minute on this heap, while a broker's request handling starts them far
// more often. The 1 M-partition setup takes
// seconds and ~0.5 GB; run with -benchtime of several seconds, e.g.
//
//	go test ./publisher -run '^$' -bench ReadersUnderChurn -benchtime 10s -count 5
func BenchmarkReadersUnderChurn(b *testing.B) {
	for _, readers := range []int{1, 4} {
		for _, mode := range []string{"still", "churn", "churn+gc"} {
			b.Run(fmt.Sprintf("readers=%d/%s", readers, mode), func(b *testing.B) {
				benchReaders(b, churnFixture(b), readers, mode != "still", mode == "churn+gc")
			})
		}
	}
}

func benchReaders(b *testing.B, s *churnSetup, readers int, churn, collect bool) {
	b.ReportAllocs()
	runtime.GC()
	var hist [latBuckets]atomic.Uint64
	stop, done, collected := make(chan struct{}), make(chan int, 1), make(chan struct{})
	if churn {
		go s.churn(stop, done)
	}
	if collect {
		go collectEverySecond(stop, collected)
	} else {
		close(collected)
	}
	gc0 := readGCCPU()
	start := time.Now()
	b.ResetTimer()
	var wg sync.WaitGroup
	for r := 0; r < readers; r++ {
		n := b.N / readers
		if r < b.N%readers {
			n++
		}
		wg.Add(1)
		go func(seed uint64, n int) {
			defer wg.Done()
			if err := s.read(seed, n, &hist); err != nil {
				b.Error(err)
			}
		}(uint64(r), n)
	}
	wg.Wait()
	b.StopTimer()
	elapsed := time.Since(start)
	gc1 := readGCCPU()
	commits := 0
	close(stop)
	<-collected
	if churn {
		commits = <-done
		if err := s.runner.Do(func(*Loader) error { return nil }); err != nil { // drain the queue
			b.Fatal(err)
		}
		if err := s.runner.Err(); err != nil {
			b.Fatal(err)
		}
	}
	reportLatency(b, &hist)
	// /cpu/classes/total is GOMAXPROCS integrated over wall time; the
	// runtime adds to the /cpu/classes figures only when a cycle ends, so
	// the total is taken from the wall clock and gc-cycles says how many
	// cycles the GC figure holds.
	avail := elapsed.Seconds() * float64(runtime.GOMAXPROCS(0))
	b.ReportMetric(100*(gc1.gc-gc0.gc)/avail, "gc-cpu-%")
	b.ReportMetric(100*(gc1.gc-gc1.idle-gc0.gc+gc0.idle)/avail, "gc-busy-%")
	b.ReportMetric(float64(gc1.cycles-gc0.cycles), "gc-cycles")
	b.ReportMetric(float64(commits)/elapsed.Seconds(), "commits/s")
}

// read does n requests on random partitions, adding each one's latency to
// hist.
func (s *churnSetup) read(seed uint64, n int, hist *[latBuckets]atomic.Uint64) error {
	var local [latBuckets]uint64
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	for i := 0; i < n; i++ {
		name, p := s.names[rng.IntN(len(s.names))], int32(rng.IntN(benchPartitions))
		t0 := time.Now()
		img := s.cache.Load()
		leader, ep, ok := img.Leader(name, p)
		t, _ := img.Topic(name)
		res := epoch.Check(t, p, ep, leader, true)
		local[latBucket(uint64(time.Since(t0)))]++
		if !ok || res.ErrorCode != 0 {
			return fmt.Errorf("%s-%d: leader %d ok %v, check %v", name, p, leader, ok, res.ErrorCode)
		}
	}
	for i, c := range local {
		if c != 0 {
			hist[i].Add(c)
		}
	}
	return nil
}

// The latency histogram is log-linear: exact below 64 ns, then 32 buckets
// per power of two (3 % resolution).
const latBuckets = 64 + 32*40

func latBucket(ns uint64) int {
	if ns < 64 {
		return int(ns)
	}
	e := bits.Len64(ns) - 6
	return min(e*32+int(ns>>e), latBuckets-1)
}

// latValue is the lower bound of bucket i.
func latValue(i int) float64 {
	if i < 64 {
		return float64(i)
	}
	e := i/32 - 1
	return float64(uint64(i%32+32) << e)
}

func reportLatency(b *testing.B, hist *[latBuckets]atomic.Uint64) {
	var total uint64
	for i := range hist {
		total += hist[i].Load()
	}
	if total == 0 {
		return
	}
	for _, q := range []struct {
		name string
		frac float64
	}{{"p50-ns", 0.5}, {"p99-ns", 0.99}, {"p99.9-ns", 0.999}} {
		want, seen := uint64(q.frac*float64(total)), uint64(0)
		for i := range hist {
			seen += hist[i].Load()
			if seen > want {
				b.ReportMetric(latValue(i), q.name)
				break
			}
		}
	}
}

// gcCPU: the collector's CPU (all of /cpu/classes/gc, and the part its
// idle-priority mark workers ran on Ps that had nothing else to do), and
// the cycles completed.
type gcCPU struct{ gc, idle, cycles float64 }

func readGCCPU() gcCPU {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/gc/mark/idle:cpu-seconds"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return gcCPU{gc: s[0].Value.Float64(), idle: s[1].Value.Float64(), cycles: float64(s[2].Value.Uint64())}
}

// collectEverySecond runs a collection each second until stop is closed,
// then closes done: the cycles a broker's own allocation (requests,
// responses, buffers) would trigger, which mark the whole image whether or
// not metadata changes.
func collectEverySecond(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			runtime.GC()
		}
	}
}

// TestLatencyHistogram: every value falls in a bucket whose lower bound is
// at most the value and within 1/32 of it, and buckets are ordered.
func TestLatencyHistogram(t *testing.T) {
	prev := -1
	for _, v := range []uint64{0, 1, 63, 64, 65, 127, 128, 1000, 1 << 20, 3e9, 1 << 40} {
		i := latBucket(v)
		if i < prev {
			t.Errorf("%d: bucket %d before %d", v, i, prev)
		}
		prev = i
		if lo := latValue(i); lo > float64(v) || float64(v)-lo > float64(v)/32 {
			t.Errorf("%d: bucket %d starts at %v", v, i, lo)
		}
	}
}

// TestChurnChange: a pass of the churn changes churnPass distinct
// partitions, each to its second replica, and the next pass moves each back
// to its first; so every commit changes a leader.
func TestChurnChange(t *testing.T) {
	seen := make(map[[2]int]bool, churnPass)
	for i := 0; i < 2*churnPass; i++ {
		r := churnChange(i)
		tp := int(r.TopicID[0])<<16 | int(r.TopicID[1])<<8 | int(r.TopicID[2])
		key := [2]int{tp, int(r.PartitionID)}
		want := churnReplicas(tp, int(r.PartitionID))[1]
		if i >= churnPass {
			want = churnReplicas(tp, int(r.PartitionID))[0]
		}
		if r.Leader != want || r.TopicID != churnTopicID(tp) || tp >= benchTopics {
			t.Fatalf("change %d: topic %d partition %d leader %d, want %d", i, tp, r.PartitionID, r.Leader, want)
		}
		if i < churnPass {
			if seen[key] {
				t.Fatalf("change %d: topic %d partition %d changed twice in one pass", i, tp, r.PartitionID)
			}
			seen[key] = true
		} else if !seen[key] {
			t.Fatalf("change %d: topic %d partition %d not changed by the first pass", i, tp, r.PartitionID)
		}
	}
}
