package publisher_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record"
)

// Watch hands a reader the image it should serve now and a channel closed
// when a newer one is published: the way to wait for changes without
// polling. Here a reader waits while the loader publishes the next commit.
func ExampleCache_Watch() {
	l := publisher.NewLoader(publisher.Config{})
	defer l.Close()
	cache := publisher.NewCache("cache")
	if err := l.Install(cache); err != nil {
		panic(err)
	}
	topic := func(name string, id byte) []record.Record {
		t := record.NewTopicRecord()
		t.Name, t.TopicID = name, record.UUID{id}
		return []record.Record{t}
	}
	l.SetHighWatermark(0)
	l.HandleCommit(record.Batch{BaseOffset: 0, LeaderEpoch: 1, Records: versioned(topic("orders", 1)...)})

	img, changed := cache.Watch()
	fmt.Println("serving offset", img.Provenance().LastContainedOffset, "with", img.Topics().Len(), "topic")

	done := make(chan struct{})
	go func() {
		defer close(done)
		<-changed // closed by the next publication
		next, _ := cache.Watch()
		fmt.Println("newer image at offset", next.Provenance().LastContainedOffset, "with", next.Topics().Len(), "topics")
	}()
	l.HandleCommit(record.Batch{BaseOffset: 1, LeaderEpoch: 1, Records: versioned(topic("payments", 2)...)})
	<-done
	// Output:
	// serving offset 0 with 1 topic
	// newer image at offset 1 with 2 topics
}
