package clientview_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/epoch/clientview"
)

// A Refresher whose Metadata requests go where KIP-899's rebootstrap says:
// the known brokers, and the bootstrap servers when none of them answers.
// Send is the embedder's networking; here a cluster whose only broker moved
// from port 9092 to 19092, reachable through its bootstrap address.
func ExampleRebootstrap() {
	port := int32(9092)
	send := func(_ context.Context, addr string, _ *kmsg.MetadataRequest) (*kmsg.MetadataResponse, int32, error) {
		fmt.Println("dial", addr)
		if addr != "bootstrap:9092" && addr != fmt.Sprintf("kafka-1:%d", port) {
			return nil, -1, errors.New("connection refused")
		}
		resp := kmsg.NewPtrMetadataResponse()
		resp.Version = 12
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID, b.Host, b.Port = 1, "kafka-1", port
		resp.Brokers = append(resp.Brokers, b)
		return resp, 1, nil
	}
	var ref *clientview.Refresher
	rb := clientview.NewRebootstrap(clientview.RebootstrapConfig{
		Bootstrap: []string{"bootstrap:9092"},
		Send:      send,
		View:      func() *clientview.View { return ref.View() },
	})
	ref = clientview.NewRefresher(clientview.RefresherConfig{Fetch: rb.Fetch, AllTopics: true})

	ctx := context.Background()
	_, _ = ref.Refresh(ctx) // an empty view: the bootstrap servers
	port = 19092            // the broker moves
	v, err := ref.Refresh(ctx)
	b, _ := v.Broker(1)
	fmt.Println(b.Port(), err, rb.Stats().Rebootstraps)
	// Output:
	// dial bootstrap:9092
	// dial kafka-1:9092
	// dial bootstrap:9092
	// 19092 <nil> 2
}

// LookupTopic tells a client that a topic does not exist only after a
// refresh made after it asked.
func ExampleRefresher_LookupTopic() {
	topics := []string{"orders"}
	fetch := func(context.Context, *kmsg.MetadataRequest) (*kmsg.MetadataResponse, int32, error) {
		resp := kmsg.NewPtrMetadataResponse()
		resp.Version = 12
		for i, name := range topics {
			tp := kmsg.NewMetadataResponseTopic()
			n := name
			tp.Topic, tp.TopicID = &n, [16]byte{byte(i + 1)}
			resp.Topics = append(resp.Topics, tp)
		}
		return resp, -1, nil
	}
	ref := clientview.NewRefresher(clientview.RefresherConfig{Fetch: fetch, AllTopics: true})
	ctx := context.Background()
	_, _ = ref.Refresh(ctx)
	topics = append(topics, "payments") // created since
	_, ok, err := ref.LookupTopic(ctx, "payments")
	fmt.Println(ok, err)
	_, ok, err = ref.LookupTopic(ctx, "nope")
	fmt.Println(ok, err)
	// Output:
	// true <nil>
	// false <nil>
}
