package image_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
)

// A request handler's lookups: the leader of a partition and its epoch, the
// leader's endpoint on the listener the request came in on, the partitions a
// broker hosts. None of them allocates. The image here comes from the
// simulated controller of package delta/deltatest; a broker gets its image
// from a publisher.Loader.
func ExampleImage_Leader() {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 3, 3)
	img := sim.Image()

	leader, epoch, ok := img.Leader("orders", 0)
	fmt.Println("orders-0 leader", leader, "epoch", epoch, ok)
	ep, _ := img.LeaderEndpoint("orders", 0, "PLAINTEXT")
	fmt.Printf("reach it at %s:%d\n", ep.Host, ep.Port)
	_, _, ok = img.Leader("orders", 7)
	fmt.Println("orders-7 exists:", ok)
	var _ *image.Image = img

	n := 0
	for range img.Topics().HostedBy(2) {
		n++
	}
	fmt.Println("broker 2 hosts", n, "partitions")
	// Output:
	// orders-0 leader 1 epoch 0 true
	// reach it at broker-1:9092
	// orders-7 exists: false
	// broker 2 hosts 3 partitions
}

// Partitions are read through accessors: nothing handed out aliases the
// image, so no caller can change it.
func ExampleTopic_PartitionAt() {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 2, 3)
	t, _ := sim.Image().Topic("orders")
	p := t.PartitionAt(1)
	fmt.Println("replicas", p.Replicas(), "isr", p.ISR(), "leader", p.Leader())
	r := p.Replicas() // a copy
	r[0] = 99
	fmt.Println("still", p.Replicas())
	// Output:
	// replicas [2 3 1] isr [2 3 1] leader 2
	// still [2 3 1]
}
