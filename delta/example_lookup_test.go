package delta_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/record"
)

// The lookups read the delta's current view between records, before any
// Apply: what each record changed.
func ExampleDelta_Partition() {
	id := record.UUID{3}
	b := record.NewRegisterBrokerRecord()
	b.BrokerID, b.BrokerEpoch = 1, 5
	t := record.NewTopicRecord()
	t.Name, t.TopicID = "orders", id
	p := record.NewPartitionRecord()
	p.TopicID, p.PartitionID, p.Replicas, p.ISR, p.Leader, p.LeaderEpoch, p.PartitionEpoch = id, 0, []int32{1, 2}, []int32{1, 2}, 1, 0, 0
	c := record.NewPartitionChangeRecord()
	c.TopicID, c.PartitionID, c.ISR, c.Leader = id, 0, []int32{2}, 2

	d := delta.New(nil)
	for _, r := range []record.Record{b, t, p} {
		d.Replay(r)
	}
	before, _ := d.Partition(id, 0)
	d.Replay(c)
	after, _ := d.Partition(id, 0)
	fmt.Println("leader", before.Leader(), "->", after.Leader(), "epoch", before.LeaderEpoch(), "->", after.LeaderEpoch(), "isr", after.ISR())

	br, _ := d.Broker(1)
	tid, _ := d.TopicID("orders")
	name, parts, _ := d.Topic(tid)
	fmt.Println("broker 1 epoch", br.Epoch(), "fenced", br.Fenced(), "; topic", name, "has", len(parts), "partition")
	// Output:
	// leader 1 -> 2 epoch 0 -> 1 isr [2]
	// broker 1 epoch 5 fenced true ; topic orders has 1 partition
}
