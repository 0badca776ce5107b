package dirfollow_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record"
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

// A record the loader skips (here a PartitionRecord whose TopicRecord is
// not in the log, which Kafka's replay rejects) does not vanish: Load
// publishes what loaded and returns a *LoadError naming file, byte position
// and offset of each record left out.
func ExampleLoadError() {
	dir, err := os.MkdirTemp("", "kmeta-dirfollow")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	seg, err := record.CreateSegment(dir, 0)
	if err != nil {
		panic(err)
	}
	pr := record.NewPartitionRecord()
	pr.TopicID, pr.PartitionID, pr.Leader, pr.Replicas, pr.ISR = record.UUID{7}, 0, 1, []int32{1}, []int32{1}
	v, _ := record.Append(nil, pr, pr.HighestVersion())
	seg.AppendData(1, 1000, v)
	seg.Close()

	l := publisher.NewLoader(publisher.Options{FaultHandler: func(*publisher.Loader, *publisher.Fault) {}})
	defer l.Close()
	err = dirfollow.Load(l, dir)
	var le *dirfollow.LoadError
	if errors.As(err, &le) {
		var re *dirfollow.RecordError
		errors.As(le.Problems[0], &re)
		fmt.Println("left out:", le.Count, "file:", filepath.Base(re.File), "byte:", re.Position, "offset:", re.Offset)
	}
	// Output:
	// left out: 1 file: 00000000000000000000.log byte: 0 offset: 0
}
