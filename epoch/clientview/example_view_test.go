package clientview_test

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/epoch/clientview"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
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

// A Schedule decides when one client refreshes, with no clock or goroutine of
// its own: the caller passes the time. A new view is due at once; after an
// answer with progress the next refresh is due at the (here unjittered) max
// age, unless the view needs one earlier; an answer that told nothing new
// backs the next request off (KIP-580), a failure too.
func ExampleSchedule() {
	s := clientview.NewSchedule(clientview.ScheduleConfig{
		Policy: clientview.Policy{MaxAge: time.Minute, MaxAgeJitter: -1},
		Rand:   func() float64 { return 0.5 }, // jitter factor 1.0 in the backoff
	})
	now := time.Unix(0, 0)
	fmt.Println("new view, wait:", s.Wait(now, nil))

	s.Start(now)
	v, rep := clientview.NewView(clientview.ViewConfig{}).Merge(metadataAnswer(2, 8), clientview.MergeOptions{})
	s.Succeeded(now, rep)
	fmt.Println("after progress, wait:", s.Wait(now, v))

	s.RequestUpdate() // e.g. NOT_LEADER_OR_FOLLOWER on a produce
	now = now.Add(time.Second)
	s.Start(now)
	_, rep = v.Merge(metadataAnswer(2, 8), clientview.MergeOptions{}) // nothing new
	s.Succeeded(now, rep)
	s.RequestUpdate()
	fmt.Println("after an equivalent answer, wait:", s.Wait(now, v))

	now = now.Add(time.Second)
	s.Start(now)
	s.Failed(now)
	fmt.Println("after a failure, wait:", s.Wait(now, v))
	// Output:
	// new view, wait: 0s
	// after progress, wait: 1m0s
	// after an equivalent answer, wait: 100ms
	// after a failure, wait: 200ms
}

// A Produce answer's KIP-951 hint moves the leader without a Metadata round
// trip, because it carries a newer leader epoch; an older one would not.
func ExampleView_ApplyProduce() {
	v, _ := clientview.NewView(clientview.ViewConfig{}).Merge(metadataAnswer(2, 8), clientview.MergeOptions{})

	resp := kmsg.NewPtrProduceResponse()
	resp.Version = 10
	t := kmsg.NewProduceResponseTopic()
	t.Topic = "orders"
	p := kmsg.NewProduceResponseTopicPartition()
	p.Partition, p.ErrorCode = 0, kafkaerr.NotLeaderOrFollower.Int16()
	p.CurrentLeader.LeaderID, p.CurrentLeader.LeaderEpoch = 3, 9
	t.Partitions = append(t.Partitions, p)
	resp.Topics = append(resp.Topics, t)

	v, rep := v.ApplyProduce(resp)
	for _, e := range rep.Events {
		fmt.Printf("%v: %s-%d from %d to %d at epoch %d\n", e.Kind, e.Topic, e.Partition, e.Before, e.After, e.Epoch)
	}
	leader, leaderEpoch, _ := v.Leader("orders", 0)
	fmt.Println("leader:", leader, "epoch:", leaderEpoch, "refresh:", v.NeedsRefresh())
	// Output:
	// LeaderMoved: orders-0 from 2 to 3 at epoch 9
	// leader: 3 epoch: 9 refresh: false
}
