package image_test

import (
	"fmt"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
)

// Diff lists what changed between two images, entity by entity, with the
// fields that changed under the names of their records' JSON form. Here a
// broker crashes: the controller fences it after the session timeout and
// moves its leaderships.
func ExampleDiff() {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 2, 3)
	sim.SetTopicConfig("orders", "retention.ms", "3600000")
	before := sim.Image()

	sim.Advance(time.Second)
	sim.CrashBroker(1)
	sim.Advance(11 * time.Second) // past the 9 s session timeout
	sim.MustCreateTopic("audit", 1, 1)
	after := sim.Image()

	for _, d := range image.Diff(before, after, image.DiffOptions{}) {
		fmt.Println(d)
	}
	// Output:
	// changed broker 1: fenced false -> true
	// added topic audit: topicId=IkK0n_EXTym7rT78bP0xCA
	// added partition audit-0: topicId=IkK0n_EXTym7rT78bP0xCA; replicas=[3]; isr=[3]; removingReplicas=[]; addingReplicas=[]; leader=3; leaderRecoveryState=0; leaderEpoch=0; partitionEpoch=0; directories=["JE0nslLESMKq1cVc0TlDQA"]; eligibleLeaderReplicas=[]; lastKnownElr=[]
	// changed partition orders-0: isr [1,2,3] -> [2,3]; leader 1 -> 2; leaderEpoch 0 -> 1; partitionEpoch 0 -> 1
	// changed partition orders-1: isr [2,3,1] -> [2,3]; partitionEpoch 0 -> 1
}

// DiffTotal with Limit and Kinds: the first differences of the kinds asked
// for, and how many there are in all.
func ExampleDiffTotal() {
	sim := deltatest.MustCluster(3)
	before := sim.Image()
	sim.MustCreateTopic("orders", 6, 3)
	after := sim.Image()

	ds, total := image.DiffTotal(before, after, image.DiffOptions{Limit: 2, Kinds: []image.DiffKind{image.DiffPartition}})
	for _, d := range ds {
		fmt.Println(d.Op, d.Kind, d.Key)
	}
	fmt.Println("partitions added:", total)
	// Output:
	// added partition orders-0
	// added partition orders-1
	// partitions added: 6
}
