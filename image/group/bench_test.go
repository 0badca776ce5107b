package group_test

import (
	"fmt"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/group"
	"github.com/kmeta-go/kmeta/internal/benchtest"
	"github.com/kmeta-go/kmeta/record"
)

// benchTopicImage is one topic of partitions partitions, each with three
// replicas on six brokers in three racks.
func benchTopicImage(b *testing.B, partitions int) *image.Image {
	brokers := map[int32]*image.Broker{}
	for id := range int32(6) {
		r := record.NewRegisterBrokerRecord()
		rack := fmt.Sprintf("europe-west1-%c", 'a'+id%3)
		r.BrokerID, r.Rack = id, &rack
		br, err := image.NewBroker(r)
		if err != nil {
			b.Fatal(err)
		}
		brokers[id] = br
	}
	tb := image.NewTopicBuilder("orders-events", record.UUIDFromBits(11, 12))
	for p := range int32(partitions) {
		pr := record.NewPartitionRecord()
		reps := []int32{p % 6, (p + 1) % 6, (p + 2) % 6}
		pr.PartitionID, pr.TopicID, pr.Replicas, pr.ISR, pr.Leader = p, tb.ID(), reps, reps, reps[0]
		part, err := image.NewPartition(pr)
		if err != nil {
			b.Fatal(err)
		}
		tb.Put(part)
	}
	bd := image.NewBuilder(nil)
	bd.PutCluster(brokers, nil)
	if err := bd.PutTopics(nil, []image.Topic{tb.Topic()}); err != nil {
		b.Fatal(err)
	}
	return bd.Image(image.EmptyProvenance)
}

// BenchmarkTopicHash is Utils.computeTopicHash of one topic; ns/partition
// is the cost per partition-rack set (three racks), the target
// being at most 1 µs.
func BenchmarkTopicHash(b *testing.B) {
	for _, n := range []int{1, 50, 1000} {
		img := benchTopicImage(b, n)
		b.Run(fmt.Sprintf("partitions=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cpu := benchtest.ProcessCPU()
			for b.Loop() {
				_ = group.TopicHash(img, "orders-events")
			}
			benchtest.ReportCPU(b, cpu)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/partition")
		})
	}
}

// BenchmarkGroupHash is Utils.computeGroupHash of a group subscribed to 20
// topics.
func BenchmarkGroupHash(b *testing.B) {
	hashes := map[string]int64{}
	for i := range 20 {
		hashes[fmt.Sprintf("topic-%02d", i)] = int64(i) * 0x1E3779B97F4A7C15
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = group.GroupHash(hashes)
	}
}
