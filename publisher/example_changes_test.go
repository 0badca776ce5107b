package publisher_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record"
)

// A broker acting on one commit, as Kafka's BrokerMetadataPublisher does:
// the replica transitions of ReplicaManager.applyDelta, the coordinator
// elections and resignations of updateCoordinator, and the config and
// quota changes its dynamic publishers apply; an ACLPublisher keeps the
// authorizer in step.
func ExampleChanges_ReplicaChanges() {
	sim := deltatest.MustCluster(3)
	_, _ = sim.CreateTopic(deltatest.TopicSpec{Name: delta.GroupMetadataTopic, Assignment: [][]int32{{1, 2, 3}, {2, 1, 3}}})
	l := publisher.NewLoader(publisher.Config{})
	acls := publisher.NewACLPublisher("acls", authz.Config{})
	broker1 := publisher.Func("broker 1", func(u publisher.Update) error {
		if u.Manifest.Type == publisher.SnapshotLoad {
			return nil // start-up: the whole image
		}
		rc := u.Changes.ReplicaChanges(1, false)
		for _, l := range rc.Leaders {
			fmt.Printf("become leader %s-%d (elected %v)\n", l.Topic, l.Partition, l.Elected)
		}
		for _, f := range rc.Followers {
			fmt.Printf("become follower %s-%d of %d (restart fetching %v)\n", f.Topic, f.Partition, f.Registration.Leader(), f.StartFetching)
		}
		for _, c := range u.Changes.Coordinators(1) {
			fmt.Printf("coordinator %s-%d elected=%v epoch=%d\n", c.Topic, c.Partition, c.Elected, c.LeaderEpoch)
		}
		for _, c := range u.Changes.Configs() {
			fmt.Printf("config %s: set %v removed %v\n", c.Resource.Name, c.Set, c.Removed)
		}
		for _, q := range u.Changes.ClientQuotas() {
			fmt.Printf("quota %s=%s: set %v\n", q.Entity[0].Type, *q.Entity[0].Name, q.Set)
		}
		return nil
	})
	if err := l.Install(acls, broker1); err != nil {
		fmt.Println(err)
	}
	feed := func() {
		for _, b := range sim.BatchesFrom(l.Image().Provenance().LastContainedOffset + 1) {
			recs := make([]record.Record, 0, len(b.Records))
			for _, r := range b.Records {
				recs = append(recs, r.Record)
			}
			if len(recs) > 0 {
				l.HandleCommit(record.Batch{BaseOffset: b.BaseOffset, LeaderEpoch: b.LeaderEpoch, Records: versioned(recs...)})
			}
			l.SetHighWatermark(b.LastOffset() + 1)
		}
	}
	feed() // the topic's creation: broker 1 leads partition 0, follows 1

	// Then: broker 2 shuts down (its leaderships move), a config and a quota change.
	_ = sim.ControlledShutdown(2)
	_ = sim.SetTopicConfig(delta.GroupMetadataTopic, "retention.ms", "60000")
	alice := "alice"
	rate := 1024.0
	_ = sim.AlterClientQuota([]image.QuotaEntityPart{{Type: "user", Name: &alice}}, "producer_byte_rate", &rate)
	feed()
	fmt.Println("authorizer ready:", acls.Authorizer().Ready())
	// Output:
	// become leader __consumer_offsets-0 (elected true)
	// become follower __consumer_offsets-1 of 2 (restart fetching true)
	// coordinator __consumer_offsets-0 elected=true epoch=0
	// coordinator __consumer_offsets-1 elected=false epoch=0
	// become leader __consumer_offsets-0 (elected false)
	// become leader __consumer_offsets-1 (elected true)
	// coordinator __consumer_offsets-1 elected=true epoch=1
	// config __consumer_offsets: set [retention.ms] removed []
	// quota user=alice: set [producer_byte_rate]
	// authorizer ready: true
}
