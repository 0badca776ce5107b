package publisher_test

import (
	"context"
	"fmt"

	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record"
)

// ExampleRunner: the loader is single-goroutine; a Runner owns it and takes
// input, installs and removes from any goroutine, in queue order.
// Publishers get an Update value whose Changes say what changed.
func ExampleRunner() {
	l := publisher.NewLoader(publisher.Config{})
	r := publisher.NewRunner(l, 16)

	topic := func(name string, id byte) []record.Record {
		t := record.NewTopicRecord()
		t.Name, t.TopicID = name, record.UUID{id}
		p := record.NewPartitionRecord()
		p.TopicID, p.PartitionID, p.Leader, p.Replicas, p.ISR = record.UUID{id}, 0, 1, []int32{1}, []int32{1}
		return []record.Record{t, p}
	}
	changes := publisher.Func("changes", func(u publisher.Update) error {
		for _, id := range u.Changes.Topics().Created {
			t, _ := u.Image.TopicByID(id)
			fmt.Printf("%s at offset %d: %s created\n", u.Manifest.Type, u.Manifest.Provenance.LastContainedOffset, t.Name())
		}
		return nil
	})
	// Another goroutine (here: this one) installs through the runner.
	if err := r.Install(changes); err != nil {
		fmt.Println(err)
	}
	r.SetHighWatermark(2)
	r.HandleCommit(record.Batch{BaseOffset: 0, LeaderEpoch: 1, Records: versioned(topic("orders", 1)...)})
	r.HandleCommit(record.Batch{BaseOffset: 2, LeaderEpoch: 1, Records: versioned(topic("payments", 2)...)})

	// Readers wait on the loader itself, from any goroutine.
	img, _ := l.WaitForOffset(context.Background(), 3)
	fmt.Println("published offset", img.Provenance().LastContainedOffset)

	// Do reaches the loader on the runner's goroutine.
	r.Do(func(l *publisher.Loader) error {
		fmt.Println("publishers", l.Publishers())
		return nil
	})
	fmt.Println("runner:", r.Close(), "loader:", l.Close())
	// Output:
	// SNAPSHOT at offset 1: orders created
	// LOG_DELTA at offset 3: payments created
	// published offset 3
	// publishers [changes]
	// runner: <nil> loader: <nil>
}
