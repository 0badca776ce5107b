package dirfollow_test

import (
	"fmt"
	"os"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
)

// Load a __cluster_metadata-0 directory into a loader as a broker does after
// a restart: the latest snapshot, then the log after it. The directory here is
// written by the simulated controller; point Load at a real Kafka data
// directory the same way.
func ExampleLoad() {
	parent, err := os.MkdirTemp("", "kmeta-dirfollow")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(parent)
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 6, 3)
	sim.MustCreateTopic("payments", 3, 3)
	dir, err := sim.WriteDir(parent, deltatest.DirOptions{SnapshotAt: 10})
	if err != nil {
		panic(err)
	}

	l := publisher.NewLoader(publisher.Options{})
	defer l.Close()
	cache := publisher.NewCache("cache")
	if err := l.Install(cache); err != nil {
		panic(err)
	}
	if err := dirfollow.Load(l, dir); err != nil {
		panic(err)
	}
	img := cache.Load()
	fmt.Println("brokers:", img.Cluster().NumBrokers(), "topics:", img.Topics().Len())
	fmt.Println("same as the controller's image:", img.Provenance().LastContainedOffset == sim.NextOffset()-1)
	// Output:
	// brokers: 3 topics: 2
	// same as the controller's image: true
}
