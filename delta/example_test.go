package delta_test

import (
	"errors"
	"fmt"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// Replay a few records into a delta over the empty image and apply it.
func ExampleDelta_Apply() {
	id := record.UUID{1}
	b := record.NewRegisterBrokerRecord()
	b.BrokerID, b.BrokerEpoch, b.Fenced = 1, 7, false
	b.EndPoints = []record.BrokerEndpoint{{Name: "PLAINTEXT", Host: "broker-1", Port: 9092}}
	t := record.NewTopicRecord()
	t.Name, t.TopicID = "orders", id
	p := record.NewPartitionRecord()
	p.TopicID, p.PartitionID, p.Replicas, p.ISR, p.Leader, p.LeaderEpoch, p.PartitionEpoch = id, 0, []int32{1}, []int32{1}, 1, 0, 0

	d := delta.New(nil)
	for _, r := range []record.Record{b, t, p} {
		if err := d.Replay(r); err != nil {
			fmt.Println(err)
		}
	}
	img, err := d.Apply(image.Provenance{LastContainedOffset: 2, LastContainedEpoch: 1})
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println(img.Topics().Len(), "topic,", img.Cluster().NumBrokers(), "broker, offset", img.Provenance().LastContainedOffset)
	// Output: 1 topic, 1 broker, offset 2
}

// Look up a partition's leader and its endpoint on a listener.
func ExampleDelta_Replay_leader() {
	id := record.UUID{2}
	b := record.NewRegisterBrokerRecord()
	b.BrokerID, b.BrokerEpoch = 4, 1
	b.EndPoints = []record.BrokerEndpoint{{Name: "PLAINTEXT", Host: "broker-4", Port: 9092}}
	t := record.NewTopicRecord()
	t.Name, t.TopicID = "orders", id
	p := record.NewPartitionRecord()
	p.TopicID, p.PartitionID, p.Replicas, p.ISR, p.Leader, p.LeaderEpoch, p.PartitionEpoch = id, 0, []int32{4}, []int32{4}, 4, 0, 0
	c := record.NewPartitionChangeRecord() // a new election of the same leader
	c.TopicID, c.PartitionID, c.Leader = id, 0, 4

	d := delta.New(nil)
	for _, r := range []record.Record{b, t, p, c} {
		if err := d.Replay(r); err != nil {
			fmt.Println(err)
		}
	}
	img, _ := d.Apply(image.EmptyProvenance)
	leader, epoch, _ := img.Leader("orders", 0)
	ep, _ := img.LeaderEndpoint("orders", 0, "PLAINTEXT")
	fmt.Printf("leader %d epoch %d at %s:%d\n", leader, epoch, ep.Host, ep.Port)
	// Output: leader 4 epoch 1 at broker-4:9092
}

// A metadata.version only a newer Kafka than kmeta knows writes is refused,
// never dropped silently.
func ExampleErrNewerVersion() {
	r := record.NewFeatureLevelRecord()
	r.Name, r.FeatureLevel = "metadata.version", 99
	err := delta.New(nil).Replay(r)
	fmt.Println(errors.Is(err, delta.ErrNewerVersion))
	// Output:
	// true
}

// ReplayAt names the record's offset in the error of a record the delta
// rejects; the delta is unchanged and replay may go on.
func ExampleDelta_ReplayAt() {
	d := delta.New(nil)
	r := record.NewPartitionChangeRecord()
	r.TopicID, r.PartitionID = record.UUID{15: 9}, 0
	err := d.ReplayAt(42, r)
	var re *delta.RecordError
	if errors.As(err, &re) {
		fmt.Println(re.Offset, re.Record.Type(), errors.Is(err, delta.ErrRejected))
	}
	err = d.ReplayAt(43, nil)
	fmt.Println(err, errors.Is(err, delta.ErrNilRecord))
	// Output:
	// 42 PARTITION_CHANGE_RECORD true
	// delta: record at offset 43: nil record true
}
