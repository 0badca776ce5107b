package clientview_test

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/epoch/clientview"
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
	v := clientview.NewView(clientview.ViewConfig{})

	// Broker 1 answers: partition 0 is led by broker 2 at leader epoch 8.
	v, rep := v.Merge(metadataAnswer(2, 8), clientview.MergeOptions{Node: 1, HasNode: true})
	fmt.Println("first answer changed the view:", rep.Changed)

	// Broker 3 lags: it still says broker 1 leads, at epoch 7.
	v, rep = v.Merge(metadataAnswer(1, 7), clientview.MergeOptions{Node: 3, HasNode: true})
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

// A Refresher keeps a client's view of the cluster current. It sends nothing
// itself: Fetch is the embedder's networking (here a fixed answer). The first
// MaybeRefresh fetches, because the view is empty; the second finds the view
// fresh and returns it without a request.
func ExampleRefresher() {
	requests := 0
	r := clientview.NewRefresher(clientview.RefresherConfig{
		Fetch: func(ctx context.Context, req *kmsg.MetadataRequest) (*kmsg.MetadataResponse, int32, error) {
			requests++
			return metadataAnswer(2, 8), 1, nil
		},
	})
	r.Need("orders")
	ctx := context.Background()
	v, err := r.MaybeRefresh(ctx)
	if err != nil {
		panic(err)
	}
	leader, le, _ := v.Leader("orders", 0)
	fmt.Println("orders-0 leader", leader, "at epoch", le, "after", requests, "request")
	if _, err := r.MaybeRefresh(ctx); err != nil {
		panic(err)
	}
	fmt.Println("requests after a second MaybeRefresh:", requests)
	// Output:
	// orders-0 leader 2 at epoch 8 after 1 request
	// requests after a second MaybeRefresh: 1
}
