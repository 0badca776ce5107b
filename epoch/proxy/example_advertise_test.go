package proxy_test

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/epoch/proxy"
)

// A proxy advertises 127.0.0.1:19000+id for each upstream broker and
// rewrites a Metadata answer it got from upstream; the broker that moved to
// another host keeps its port.
func ExampleRewriter() {
	m := proxy.NewMap(proxy.PortOffset{Host: "127.0.0.1", Base: 19000})
	rw := &proxy.Rewriter{Map: m, Shaper: proxy.RackFirst{}}

	resp := kmsg.NewPtrMetadataResponse()
	for _, b := range []struct {
		id   int32
		host string
		rack string
	}{{1, "kafka-1.internal", "a"}, {2, "kafka-2.internal", "b"}} {
		mb := kmsg.NewMetadataResponseBroker()
		rack := b.rack
		mb.NodeID, mb.Host, mb.Port, mb.Rack = b.id, b.host, 9092, &rack
		resp.Brokers = append(resp.Brokers, mb)
	}
	rw.Metadata(resp, &proxy.Client{ID: "app", Rack: "b"})
	for _, b := range resp.Brokers {
		fmt.Printf("broker %d at %s:%d\n", b.NodeID, b.Host, b.Port)
	}

	e, _ := m.Observe(1, proxy.Endpoint{Host: "kafka-1b.internal", Port: 9092}, nil)
	up, _ := m.Lookup(1)
	fmt.Println("broker 1 still at", e, "forwarding to", up.Upstream)
	// Output:
	// broker 2 at 127.0.0.1:19002
	// broker 1 at 127.0.0.1:19001
	// broker 1 still at 127.0.0.1:19001 forwarding to kafka-1b.internal:9092
}

// A proxy offers what upstream offers, narrowed to what it can rewrite.
func ExampleIntersect() {
	upstream := []kmsg.ApiVersionsResponseApiKey{
		{ApiKey: 0, MinVersion: 3, MaxVersion: 99}, // Produce, from a newer broker
		{ApiKey: 55, MinVersion: 0, MaxVersion: 2}, // DescribeQuorum
	}
	for _, k := range proxy.Intersect(upstream, proxy.RewritableVersions) {
		fmt.Printf("key %d v%d-v%d\n", k.ApiKey, k.MinVersion, k.MaxVersion)
	}
	// Output:
	// key 0 v3-v13
}
