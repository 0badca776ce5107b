package broker_test

import (
	"testing"

	"github.com/kmeta-go/kmeta/broker"
	"github.com/kmeta-go/kmeta/delta/deltatest"
)

// BenchmarkPreferredReadReplica is the KIP-392 choice a leader makes for
// one partition of a fetch from a consumer in another rack (three
// replicas in three racks).
func BenchmarkPreferredReadReplica(b *testing.B) {
	sim := deltatest.MustNew(deltatest.Config{})
	if err := sim.AddBrokers(3, "az-a", "az-b", "az-c"); err != nil {
		b.Fatal(err)
	}
	sim.MustCreateTopic("orders", 1, 3)
	img := sim.Image()
	t, _ := img.Topic("orders")
	p := t.PartitionAt(0)
	req := broker.ReadReplicaRequest{ReplicaID: -1, Listener: "PLAINTEXT", FetchOffset: 100, NowMs: 1000}
	for i := range p.NumReplicas() {
		req.Followers = append(req.Followers, broker.ReplicaState{BrokerID: p.Replica(i), LogEndOffset: 150, LastCaughtUpTimeMs: 990})
	}
	lb, _ := img.Cluster().Broker(p.Leader())
	leaderRack, _ := lb.Rack()
	for _, r := range []string{"az-a", "az-b", "az-c"} {
		if r != leaderRack {
			req.ClientRack = r
		}
	}
	if _, ok := broker.PreferredReadReplica(img, t, 0, p.Leader(), req); !ok {
		b.Fatal("no preferred replica")
	}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = broker.PreferredReadReplica(img, t, 0, p.Leader(), req)
	}
}
