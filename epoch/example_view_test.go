package epoch_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/epoch"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// metadataAnswer is a Metadata v12 answer for one partition of "orders".
func metadataAnswer(leader, leaderEpoch int32) *kmsg.MetadataResponse {
	r := kmsg.NewPtrMetadataResponse()
	r.Version = 12
	for id := int32(1); id <= 3; id++ {
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID, b.Host, b.Port = id, fmt.Sprintf("broker-%d", id), 9092
		r.Brokers = append(r.Brokers, b)
	}
	t := kmsg.NewMetadataResponseTopic()
	name := "orders"
	t.Topic, t.TopicID = &name, [16]byte{15: 7}
	p := kmsg.NewMetadataResponseTopicPartition()
	p.Partition, p.Leader, p.LeaderEpoch = 0, leader, leaderEpoch
	p.Replicas, p.ISR = []int32{1, 2, 3}, []int32{1, 2, 3}
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return r
}

// Merging two answers where the second comes from a broker that has not yet
// applied a leader move: the view keeps the newer leader and asks for a
// refresh.
func ExampleView_Merge() {
	v := epoch.NewView(epoch.ViewConfig{})

	// Broker 1 answers: partition 0 is led by broker 2 at leader epoch 8.
	v, rep := v.Merge(metadataAnswer(2, 8), epoch.MergeOptions{Node: 1, HasNode: true})
	fmt.Println("first answer changed the view:", rep.Changed)

	// Broker 3 lags: it still says broker 1 leads, at epoch 7.
	v, rep = v.Merge(metadataAnswer(1, 7), epoch.MergeOptions{Node: 3, HasNode: true})
	for _, e := range rep.Events {
		fmt.Printf("%v: %s-%d answered epoch %d, view has %d\n", e.Kind, e.Topic, e.Partition, e.After, e.Before)
	}

	leader, leaderEpoch, _ := v.Leader("orders", 0)
	fmt.Println("leader:", leader, "epoch:", leaderEpoch)
	fmt.Println("refresh soon:", v.NeedsRefresh(), v.RefreshTopics(nil))
	// Output:
	// first answer changed the view: true
	// StaleAnswer: orders-0 answered epoch 7, view has 8
	// leader: 2 epoch: 8
	// refresh soon: true [orders]
}

// Which keys change partition when "orders" grows from 6 to 12 partitions
// (scenario 3 of the project's scenarios).
func ExampleKeyMove() {
	for _, key := range []string{"customer-1", "customer-2", "customer-3"} {
		from, to, moved := epoch.KeyMove([]byte(key), 6, 12)
		fmt.Println(key, from, "→", to, "moved:", moved)
	}
	fmt.Printf("share of keys that move: %.2f\n", epoch.MovedFraction(6, 12))
	// Output:
	// customer-1 3 → 9 moved: true
	// customer-2 2 → 2 moved: false
	// customer-3 4 → 10 moved: true
	// share of keys that move: 0.50
}
