package deltatest

import (
	"fmt"
	"github.com/kmeta-go/kmeta/internal/benchtest"
	"testing"
)

// BenchmarkSimulatorCreate1MPartitions: generating (and committing to the
// simulated log, with the controller's own replay) the records that create
// 100 000 topics of 10 partitions, RF 3, placed by StripedReplicaPlacer over
// 30 brokers in 3 racks: 1 000 000 PartitionRecords. Replaying them into an
// image (Image) is not part of the measure; see the delta benchmarks.
//
// Besides ns/op (wall time) it reports cpu-ms/op, the process's CPU time
// (user + system, getrusage) over the measured loop, GC included: on a
// machine shared with other work the wall time includes time spent waiting
// for the core, the CPU time does not.
func BenchmarkSimulatorCreate1MPartitions(b *testing.B) {
	names := make([]string, 100_000)
	for i := range names {
		names[i] = fmt.Sprintf("topic-%06d", i)
	}
	b.ReportAllocs()
	var cpu int64
	for b.Loop() {
		b.StopTimer()
		s := MustNew(Config{Seed: 1})
		if err := s.AddBrokers(30, "a", "b", "c"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := int64(benchtest.ProcessCPU())
		for _, name := range names {
			if _, err := s.CreateTopic(TopicSpec{Name: name, Partitions: 10, ReplicationFactor: 3}); err != nil {
				b.Fatal(err)
			}
		}
		cpu += int64(benchtest.ProcessCPU()) - start
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
}
