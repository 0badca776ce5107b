package deltatest_test

import (
	"fmt"
	"time"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"

	"github.com/kmeta-go/kmeta/record/metalog"
)

// leadersChanged is the code under test: a metadata publisher's handler that
// reports every partition whose leader changed, with its new leader.
func leadersChanged(d *delta.Delta, img *image.Image) []string {
	var out []string
	for _, id := range d.Topics().Changed {
		before, _ := d.Base().TopicByID(id)
		after, _ := img.TopicByID(id)
		for _, p := range d.ChangedPartitions(id) {
			old, _ := before.Partition(p)
			now, _ := after.Partition(p)
			if old.Leader() != now.Leader() {
				out = append(out, fmt.Sprintf("%s-%d: %d -> %d", after.Name(), p, old.Leader(), now.Leader()))
			}
		}
	}
	return out
}

// A unit test of a "leader changed" handler in five lines: a three-broker
// cluster, a topic of three partitions (replicas placed by Kafka's striped
// placer), broker 1 crashes, the controller fences it after the 9 s session
// timeout and moves its leadership; the handler sees the delta a broker
// would publish.
func Example() {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 3, 3)
	sim.CrashBroker(1)
	d, img, _ := sim.Step(func() error { return sim.Advance(11 * time.Second) })
	fmt.Println(leadersChanged(d, img))
	// Output:
	// [orders-0: 1 -> 2]
}

// A simulator writes what Kafka's controller writes, record by record.
func ExampleSimulator_FenceBroker() {
	sim := deltatest.MustCluster(3)
	sim.CreateTopic(deltatest.TopicSpec{Name: "orders", Assignment: [][]int32{{1, 2, 3}, {2, 3, 1}}})
	sim.FenceBroker(1)
	for _, r := range sim.LastRecords() {
		fmt.Println(r.Record.Type(), "v", r.Version)
	}
	// Output:
	// PARTITION_CHANGE_RECORD v 2
	// PARTITION_CHANGE_RECORD v 2
	// BROKER_REGISTRATION_CHANGE_RECORD v 0
}

// Batches are ready for a loader, as they are or as record batch bytes.
func ExampleSimulator_Batches() {
	sim := deltatest.MustCluster(1)
	for _, b := range sim.Batches() {
		data, _ := metalog.AppendDecoded(nil, &b)
		fmt.Printf("offset %d epoch %d records %d bytes %d\n", b.BaseOffset, b.LeaderEpoch, b.Len(), len(data))
	}
	// Output:
	// offset 0 epoch 1 records 1 bytes 91
	// offset 1 epoch 1 records 7 bytes 274
	// offset 8 epoch 1 records 1 bytes 255
	// offset 9 epoch 1 records 1 bytes 87
}

// At Kafka 4.3's metadata.version a broker's cordoned log directories
// (KIP-1066) travel in its heartbeats and are recorded by the controller.
func ExampleSimulator_CordonLogDirs() {
	sim := deltatest.MustNew(deltatest.Config{MetadataVersion: image.MV4_3_IV0})
	dir := record.UUID{1, 2, 3}
	sim.AddBroker(deltatest.BrokerSpec{ID: 1, LogDirs: []record.UUID{dir}})
	b, _ := sim.Image().Cluster().Broker(1)
	fmt.Println(b.CordonedDirectories())
	sim.CordonLogDirs(1, dir)
	for _, r := range sim.LastRecords() {
		fmt.Println(r.Record.Type(), "v", r.Version)
	}
	b, _ = sim.Image().Cluster().Broker(1)
	fmt.Println(b.HasUncordonedDirs())
	// Output:
	// [] true
	// BROKER_REGISTRATION_CHANGE_RECORD v 3
	// false
}

// At Kafka 4.4's metadata.version 4.4-IV2 a controller can be unregistered
// (KIP-1312).
func ExampleSimulator_UnregisterController() {
	sim := deltatest.MustNew(deltatest.Config{MetadataVersion: image.MV4_4_IV2})
	sim.RegisterController(deltatest.ControllerSpec{ID: 3000})
	sim.RegisterController(deltatest.ControllerSpec{ID: 3001})
	sim.UnregisterController(3001)
	fmt.Println(sim.LastRecords()[0].Record.Type(), sim.Image().Cluster().NumControllers())
	// Output:
	// UNREGISTER_CONTROLLER_RECORD 1
}

// A log directory fails: the broker leaves the ISR and the leadership of
// its replicas there, and its registration keeps the other directory.
func ExampleSimulator_FailLogDir() {
	sim := deltatest.MustNew(deltatest.Config{MetadataVersion: image.MV4_4_IV2})
	dirs := []record.UUID{{1, 1}, {1, 2}}
	_ = sim.AddBroker(deltatest.BrokerSpec{ID: 1, LogDirs: dirs})
	_ = sim.AddBroker(deltatest.BrokerSpec{ID: 2})
	_ = sim.AddBroker(deltatest.BrokerSpec{ID: 3})
	_, _ = sim.CreateTopic(deltatest.TopicSpec{Name: "orders", Assignment: [][]int32{{1, 2, 3}}})
	_ = sim.AssignReplicaToDir("orders", 0, 1, dirs[0])
	d, img, _ := sim.Step(func() error { return sim.FailLogDir(1, dirs[0]) })
	leader, _, _ := img.Leader("orders", 0)
	b, _ := img.Cluster().Broker(1)
	fmt.Println("leader", leader, "directories left", len(b.Directories()))
	for _, f := range d.ReplicaChanges(1, false).Followers {
		fmt.Printf("broker 1 follows %s-%d\n", f.Topic, f.Partition)
	}
	// Output:
	// leader 2 directories left 1
	// broker 1 follows orders-0
}
