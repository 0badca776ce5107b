package image_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// A Builder makes the next image from a base and freezes into it; a
// TopicBuilder does the same for one topic's partitions. Both are
// single-use; the base image is unchanged.
func ExampleBuilder() {
	id := record.UUID{15: 1}
	tb := image.NewTopicBuilder("orders", id)
	for p := int32(1); p >= 0; p-- { // any order: kept sorted by id
		r := record.NewPartitionRecord()
		r.TopicID, r.PartitionID, r.Replicas, r.ISR, r.Leader = id, p, []int32{1}, []int32{1}, 1
		part, err := image.NewPartition(r)
		if err != nil {
			panic(err)
		}
		tb.Put(part)
	}
	base := image.Empty()
	b := image.NewBuilder(base)
	if err := b.PutTopics(nil, []image.Topic{tb.Topic()}); err != nil {
		panic(err)
	}
	b.SetNextProducerID(5000)
	img := b.Image(image.EmptyProvenance)

	t, _ := img.Topic("orders")
	fmt.Println(t.NumPartitions(), t.PartitionAt(0).ID(), img.NextProducerID())
	fmt.Println(base.Topics().Len(), base.NextProducerID())
	// Output:
	// 2 0 5000
	// 0 -1
}
