package proxy

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/answer"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// stoppedCluster is a simulated cluster whose brokers were all fenced one
// after the other (a cluster stopped without controlled shutdown): the
// controller leaves every partition leaderless, its last ISR member kept as
// the eligible leader replica (KIP-966).
func stoppedCluster(t *testing.T) *image.Image {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 6, 3)
	for _, id := range []int32{1, 2, 3} {
		require.NoError(t, sim.FenceBroker(id))
	}
	return sim.Image()
}

// TestServeFencedStoppedCluster: with every broker fenced, a broker's
// Metadata answer lists no broker and no leader, so no client can use it;
// unfence answers as the controller would once the brokers come back
// (PartitionChangeBuilder.electLeader: the first replica in the ISR, else in
// the eligible leader replicas of KIP-966, at the next leader epoch).
func TestServeFencedStoppedCluster(t *testing.T) {
	img := stoppedCluster(t)
	r, rq := answer.New(answer.Config{ClusterID: "c"}), answer.Request{Listener: DefaultListener(img)}
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 12
	before, _ := r.Metadata(img, req, rq)
	require.Empty(t, before.Brokers, "a stopped cluster's answer lists no live broker")
	for _, p := range before.Topics[0].Partitions {
		require.Equal(t, int32(-1), p.Leader)
	}

	alive, err := unfence(img)
	require.NoError(t, err)
	after, _ := r.Metadata(alive, req, rq)
	require.Len(t, after.Brokers, 3)
	top, _ := img.Topics().ByName("orders")
	for _, p := range after.Topics[0].Partitions {
		old, _ := top.Partition(p.Partition)
		// Every broker fenced: the ISR is empty and the last one is the
		// eligible leader replica (KIP-966), which leads once back.
		require.Empty(t, old.ISR())
		require.Equal(t, old.ELR()[0], p.Leader, "partition %d: the eligible leader replica leads", p.Partition)
		require.Equal(t, old.LeaderEpoch()+1, p.LeaderEpoch)
	}
	// The image itself is unchanged (readers of the loader's image see the
	// real state).
	for b := range img.Cluster().Brokers() {
		require.True(t, b.Fenced())
	}
}

// TestAdvertisePerBrokerPorts: each broker's endpoint on the listener is its
// own advertised endpoint, and a broker whose host changes keeps its port.
func TestAdvertisePerBrokerPorts(t *testing.T) {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 3, 3)
	img := sim.Image()
	listener := DefaultListener(img)
	m := NewMap(PortOffset{Host: "proxy", Base: 30000})
	out, err := rewritePerBroker(img, listener, m)
	require.NoError(t, err)
	for b := range out.Cluster().Brokers() {
		ep := b.Record().EndPoints
		for _, e := range ep {
			if e.Name == listener {
				require.Equal(t, "proxy", e.Host)
				require.Equal(t, uint16(30000+b.ID()), e.Port)
			}
		}
		e, ok := m.Lookup(b.ID())
		require.True(t, ok)
		orig, _ := img.Cluster().Broker(b.ID())
		require.NotEqual(t, "proxy", e.Upstream.Host)
		require.NotEqual(t, orig.Record().EndPoints[0].Host, "proxy")
	}
}
