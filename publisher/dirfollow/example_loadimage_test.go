package dirfollow_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
)

// LoadImage turns a Kafka data directory into the image a broker would serve
// after a restart, in one call. The directory here is written by the
// simulated controller; a copy of a real node's metadata log directory (or
// the __cluster_metadata-0 folder inside it) loads the same way.
func ExampleLoadImage() {
	parent, err := os.MkdirTemp("", "kmeta-loadimage")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(parent)
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 6, 3)
	if _, err := sim.WriteDir(parent, deltatest.WriteDirOptions{SnapshotAt: 5}); err != nil {
		panic(err)
	}

	img, err := dirfollow.LoadImage(parent)
	if err != nil {
		panic(err)
	}
	orders, _ := img.Topics().ByName("orders")
	fmt.Println("brokers:", img.Cluster().NumBrokers(), "orders partitions:", orders.NumPartitions())
	// Output:
	// brokers: 3 orders partitions: 6
}

// LoadPath loads a single file as well: here a snapshot of the controller's
// whole log, read as MetadataLoader.loadSnapshot reads it.
func ExampleLoadPath() {
	parent, err := os.MkdirTemp("", "kmeta-loadpath")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(parent)
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 6, 3)
	dir, err := sim.WriteDir(parent, deltatest.WriteDirOptions{SnapshotAt: sim.NextOffset() - 1})
	if err != nil {
		panic(err)
	}
	snaps, err := filepath.Glob(filepath.Join(dir, "*.checkpoint"))
	if err != nil || len(snaps) != 1 {
		panic(fmt.Sprint("snapshots: ", snaps, err))
	}

	img, err := dirfollow.LoadPath(snaps[0])
	if err != nil {
		panic(err)
	}
	fmt.Println("brokers:", img.Cluster().NumBrokers(), "topics:", img.Topics().Len())
	fmt.Println("ends at the controller's last offset:", img.Provenance().LastContainedOffset == sim.NextOffset()-1)
	// Output:
	// brokers: 3 topics: 1
	// ends at the controller's last offset: true
}
