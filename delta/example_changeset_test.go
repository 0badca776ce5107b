package delta_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/record"
)

// Deleting __consumer_offsets on a broker that led one of its three
// partitions: the broker deletes three replicas, its remote log for the
// one it led, and its group coordinator resigns that one partition
// (BrokerMetadataPublisher.updateCoordinator), without an epoch.
func ExampleDelta_Coordinators() {
	sim := deltatest.MustCluster(3)
	_, _ = sim.CreateTopic(deltatest.TopicSpec{Name: delta.GroupMetadataTopic, Assignment: [][]int32{{1, 2, 3}, {2, 1, 3}, {3, 1, 2}}})
	d, _, _ := sim.Step(func() error { return sim.DeleteTopic(delta.GroupMetadataTopic) })
	for _, del := range d.ReplicaChanges(1, false).Deletes {
		fmt.Printf("delete %s-%d remote log %v\n", del.Topic, del.Partition, del.DeleteRemoteLog)
	}
	for _, c := range d.Coordinators(1) {
		fmt.Printf("resign %s-%d (epoch given: %v)\n", c.Topic, c.Partition, c.HasEpoch)
	}
	// Output:
	// delete __consumer_offsets-0 remote log true
	// delete __consumer_offsets-1 remote log false
	// delete __consumer_offsets-2 remote log false
	// resign __consumer_offsets-0 (epoch given: false)
}

// A broker in controlled shutdown stops fetching for a partition it follows
// once it is out of the ISR (ReplicaManager.applyLocalFollowersDelta).
func ExampleDelta_ReplicaChanges() {
	sim := deltatest.MustCluster(3)
	_, _ = sim.CreateTopic(deltatest.TopicSpec{Name: "orders", Assignment: [][]int32{{1, 2, 3}}})
	d, _, _ := sim.Step(func() error { return sim.BeginControlledShutdown(2) })
	for _, f := range d.ReplicaChanges(2, true).Followers {
		fmt.Printf("%s-%d: leader %d, stop fetching %v\n", f.Topic, f.Partition, f.Registration.Leader(), f.StopFetching)
	}
	// Output: orders-0: leader 1, stop fetching true
}

// The change sets of one delta: the config keys set and removed, and the
// ACLs in replay order.
func ExampleDelta_Configs() {
	v := "1000"
	set := record.NewConfigRecord()
	set.ResourceType, set.ResourceName, set.Name, set.Value = 2, "orders", "retention.ms", &v
	deny := record.NewAccessControlEntryRecord()
	deny.ID, deny.ResourceType, deny.ResourceName, deny.PatternType = record.UUID{1}, 2, "orders", 3
	deny.Principal, deny.Host, deny.Operation, deny.PermissionType = "User:*", "*", 2, 2
	allow := record.NewAccessControlEntryRecord()
	*allow = *deny
	allow.ID, allow.Principal, allow.PermissionType = record.UUID{2}, "User:alice", 3

	d := delta.New(nil)
	for _, r := range []record.Record{set, deny, allow} {
		if err := d.Replay(r); err != nil {
			fmt.Println(err)
		}
	}
	for _, c := range d.Configs() {
		fmt.Println("config", c.Resource.Name, "set", c.Set, "removed", c.Removed)
	}
	for _, a := range d.ACLs() {
		fmt.Println("acl", a.ACL.Principal, "permission", a.ACL.PermissionType)
	}
	// Output:
	// config orders set [retention.ms] removed []
	// acl User:* permission 2
	// acl User:alice permission 3
}
