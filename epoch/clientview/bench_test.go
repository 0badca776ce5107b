package clientview

import (
	"fmt"
	"github.com/kmeta-go/kmeta/internal/benchtest"
	"runtime"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// bigAnswer is a Metadata v12 answer of topics × partitions, RF 3 on 6
// brokers, round-robin leaders at epoch 5; every stride-th partition (0:
// none) has its leader moved at epoch 6.
func bigAnswer(topics, partitions, stride int) *kmsg.MetadataResponse {
	r := answer(12)
	n := 0
	for t := range topics {
		rt := kmsg.NewMetadataResponseTopic()
		name := fmt.Sprintf("topic-%05d", t)
		rt.Topic = &name
		rt.TopicID = [16]byte{0: byte(t >> 8), 1: byte(t), 15: 1}
		for p := range partitions {
			mp := kmsg.NewMetadataResponseTopicPartition()
			l := int32(n % 6)
			mp.Partition, mp.Leader, mp.LeaderEpoch = int32(p), l, 5
			if stride > 0 && n%stride == 0 {
				mp.Leader, mp.LeaderEpoch = (l+1)%6, 6
			}
			mp.Replicas = []int32{l, (l + 1) % 6, (l + 2) % 6}
			mp.ISR = mp.Replicas
			rt.Partitions = append(rt.Partitions, mp)
			n++
		}
		r.Topics = append(r.Topics, rt)
	}
	return r
}

// BenchmarkMergeIdentical: a 5 000 × 10 answer identical to the view (goal
// ≤ 1 ms, no map write, no allocation per partition).
func BenchmarkMergeIdentical(b *testing.B) {
	r := bigAnswer(5000, 10, 0)
	v, _ := NewView(ViewConfig{}).Merge(r, MergeOptions{})
	b.ReportAllocs()
	runtime.GC()
	cpu := benchtest.ProcessCPU()
	defer func() { benchtest.ReportCPU(b, cpu) }()
	for b.Loop() {
		if next, _ := v.Merge(r, MergeOptions{}); next != v {
			b.Fatal("identical answer changed the view")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/50000, "ns/partition")
}

// BenchmarkMergeIdenticalSmall: MergeIdentical at 100 topics × 10
// partitions, whose answer and view fit in the CPU's caches: the compute
// of the identical merge, without the memory stalls of the 5 000-topic one.
func BenchmarkMergeIdenticalSmall(b *testing.B) {
	r := bigAnswer(100, 10, 0)
	v, _ := NewView(ViewConfig{}).Merge(r, MergeOptions{})
	b.ReportAllocs()
	for b.Loop() {
		if next, _ := v.Merge(r, MergeOptions{}); next != v {
			b.Fatal("identical answer changed the view")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/partition")
}

// BenchmarkMergeChanged1pct: the same answer with 1% of the partitions
// (500) moved to another leader at a higher epoch (goal ≤ 2 ms).
func BenchmarkMergeChanged1pct(b *testing.B) {
	v, _ := NewView(ViewConfig{}).Merge(bigAnswer(5000, 10, 0), MergeOptions{})
	r := bigAnswer(5000, 10, 100)
	b.ReportAllocs()
	runtime.GC()
	cpu := benchtest.ProcessCPU()
	defer func() { benchtest.ReportCPU(b, cpu) }()
	for b.Loop() {
		next, rep := v.Merge(r, MergeOptions{})
		if next == v || len(rep.Events) != 500 {
			b.Fatalf("changed answer: %d events", len(rep.Events))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/50000, "ns/partition")
}

// BenchmarkMergeStale1pct: 1% of the partitions answered at an older epoch
// (a lagging broker): refused, flagged, counted.
func BenchmarkMergeStale1pct(b *testing.B) {
	v, _ := NewView(ViewConfig{}).Merge(bigAnswer(5000, 10, 100), MergeOptions{})
	r := bigAnswer(5000, 10, 0)
	b.ReportAllocs()
	runtime.GC()
	cpu := benchtest.ProcessCPU()
	defer func() { benchtest.ReportCPU(b, cpu) }()
	for b.Loop() {
		if _, rep := v.Merge(r, MergeOptions{}); rep.Refused != 500 {
			b.Fatalf("refused %d", rep.Refused)
		}
	}
}
