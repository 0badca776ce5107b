package publisher_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record"
)

// A loader with two publishers: the cache that request handlers read, and
// a publisher that logs which topics each update creates. Nothing is
// published until the loader has caught up with the high watermark; then
// each publisher first receives the whole image, then one update per
// commit.
func ExampleLoader() {
	l := publisher.NewLoader(publisher.Config{})
	cache := publisher.NewCache("cache")
	logger := publisher.Func("logger", func(u publisher.Update) error {
		var names []string
		for _, id := range u.Changes.Topics().Created {
			t, _ := u.Image.TopicByID(id)
			names = append(names, t.Name())
		}
		fmt.Printf("%s at offset %d: created %v\n", u.Manifest.Type, u.Manifest.Provenance.LastContainedOffset, names)
		return nil
	})
	if err := l.Install(cache, logger); err != nil {
		fmt.Println(err)
	}

	// The raft client delivers committed batches and the high watermark.
	topic := func(name string, id byte) []record.Record {
		t := record.NewTopicRecord()
		t.Name, t.TopicID = name, record.UUID{id}
		p := record.NewPartitionRecord()
		p.TopicID, p.PartitionID, p.Leader, p.LeaderEpoch, p.PartitionEpoch = record.UUID{id}, 0, 1, 0, 0
		p.Replicas, p.ISR = []int32{1}, []int32{1}
		return []record.Record{t, p}
	}
	l.SetHighWatermark(4)
	l.HandleCommit(record.Batch{BaseOffset: 0, LeaderEpoch: 1, Records: versioned(topic("orders", 1)...)})   // offsets 0-1: catching up
	l.HandleCommit(record.Batch{BaseOffset: 2, LeaderEpoch: 1, Records: versioned(topic("payments", 2)...)}) // offsets 2-3: caught up
	l.HandleCommit(record.Batch{BaseOffset: 4, LeaderEpoch: 1, Records: versioned(topic("refunds", 3)...)})  // offsets 4-5

	// A broker waits until its own registration record is applied.
	img, _ := l.WaitForOffset(context.Background(), 5)
	fmt.Println("published offset", img.Provenance().LastContainedOffset)

	// Readers use the cache: lock-free, always a whole image.
	leader, epoch, _ := cache.Load().Leader("refunds", 0)
	fmt.Println("refunds-0 leader", leader, "epoch", epoch)
	// Output:
	// SNAPSHOT at offset 3: created [orders payments]
	// LOG_DELTA at offset 5: created [refunds]
	// published offset 5
	// refunds-0 leader 1 epoch 0
}

// An embedder exports the loader's position and error counts under Kafka's
// metric names, reading Stats at each scrape (here printed; with
// prometheus/client_golang each becomes a GaugeFunc or CounterFunc).
func ExampleStats_Metrics() {
	l := publisher.NewLoader(publisher.Config{})
	defer l.Close()
	l.SetHighWatermark(1)
	tr := record.NewTopicRecord()
	tr.Name, tr.TopicID = "orders", record.UUID{1}
	if err := l.HandleCommit(record.Batch{BaseOffset: 0, LeaderEpoch: 1, AppendTime: 1_700_000_000_000, Records: versioned(tr)}); err != nil {
		panic(err)
	}
	for _, m := range l.Stats().Metrics(time.UnixMilli(1_700_000_002_500))[:3] {
		fmt.Printf("%s %g (Kafka: %s)\n", m.Name, m.Value, m.Kafka)
	}
	// Output:
	// kafka_server_broker_metadata_last_applied_record_offset 0 (Kafka: broker-metadata-metrics last-applied-record-offset)
	// kafka_server_broker_metadata_last_applied_record_timestamp_seconds 1.7e+09 (Kafka: broker-metadata-metrics last-applied-record-timestamp)
	// kafka_server_broker_metadata_last_applied_record_lag_seconds 2.5 (Kafka: broker-metadata-metrics last-applied-record-lag-ms)
}
