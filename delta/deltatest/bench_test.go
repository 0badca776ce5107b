package deltatest

import (
	"fmt"
	"testing"
)

// BenchmarkSimulatorCreate1MPartitions: generating (and committing to the
// simulated log, with the controller's own replay) the records that create
// 100 000 topics of 10 partitions, RF 3, placed by StripedReplicaPlacer over
// 30 brokers in 3 racks: 1 000 000 PartitionRecords. Replaying them into an
// image (Image) is not part of the measure; see the delta benchmarks.
func BenchmarkSimulatorCreate1MPartitions(b *testing.B) {
	names := make([]string, 100_000)
	for i := range names {
		names[i] = fmt.Sprintf("topic-%06d", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		s := MustNew(Config{Seed: 1})
		if err := s.AddBrokers(30, "a", "b", "c"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for _, name := range names {
			if _, err := s.CreateTopic(TopicSpec{Name: name, Partitions: 10, ReplicationFactor: 3}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/1M-partitions")
}
