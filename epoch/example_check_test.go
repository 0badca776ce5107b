package epoch_test

import (
	"fmt"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/epoch"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// Check answers what a broker's ReplicaManager answers a Fetch for one
// partition: here broker 2 follows orders-0, which broker 1 leads at leader
// epoch 0, and a client comes with an old, the current and a future epoch.
func ExampleCheck() {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 1, 3)
	sim.Advance(time.Second)
	sim.CrashBroker(1)
	sim.Advance(11 * time.Second) // the leader moves, leader epoch 1
	img := sim.Image()
	orders, _ := img.Topics().ByName("orders")
	p, _ := orders.Partition(0)
	fmt.Println("leader", p.Leader(), "at leader epoch", p.LeaderEpoch())

	for _, reqEpoch := range []int32{0, 1, 2, epoch.NoEpoch} {
		// A consumer's fetch at the leader (needLeader: it sent no rack).
		r := epoch.Check(orders, 0, reqEpoch, p.Leader(), true)
		fmt.Printf("epoch %2d at the leader: %s\n", reqEpoch, codeName(int16(r.ErrorCode)))
	}
	r := epoch.Check(orders, 0, 1, 1, true) // broker 1 is still a replica, no longer the leader
	fmt.Printf("at broker 1: %s, current leader %d at epoch %d\n", codeName(int16(r.ErrorCode)), r.LeaderID, r.LeaderEpoch)
	// Output:
	// leader 2 at leader epoch 1
	// epoch  0 at the leader: FENCED_LEADER_EPOCH
	// epoch  1 at the leader: NONE
	// epoch  2 at the leader: UNKNOWN_LEADER_EPOCH
	// epoch -1 at the leader: NONE
	// at broker 1: NOT_LEADER_OR_FOLLOWER, current leader 2 at epoch 1
}

// codeName names the Kafka error codes Check returns (Kafka's Errors).
func codeName(code int16) string {
	switch code {
	case 0:
		return "NONE"
	case 3:
		return "UNKNOWN_TOPIC_OR_PARTITION"
	case 6:
		return "NOT_LEADER_OR_FOLLOWER"
	case 74:
		return "FENCED_LEADER_EPOCH"
	case 75:
		return "UNKNOWN_LEADER_EPOCH"
	}
	return fmt.Sprintf("error %d", code)
}

// InvalidMetadata is the rule both sides share: each error a broker answers
// a stale client with (Check's) makes the client refresh its metadata;
// an authorization error does not.
func ExampleInvalidMetadata() {
	for _, c := range []kafkaerr.Code{kafkaerr.FencedLeaderEpoch, kafkaerr.NotLeaderOrFollower, kafkaerr.TopicAuthorizationFailed} {
		fmt.Println(c, epoch.InvalidMetadata(c))
	}
	// Output:
	// FENCED_LEADER_EPOCH true
	// NOT_LEADER_OR_FOLLOWER true
	// TOPIC_AUTHORIZATION_FAILED false
}
