package proxy

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestRefreshDialsEachAddressOnce: a refresh against dead upstreams dials
// each distinct address once per attempt, even when a seed is listed twice.
func TestRefreshDialsEachAddressOnce(t *testing.T) {
	f := newForwarder([]string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:1"}, time.Second, nil)
	var mu sync.Mutex
	dials := map[string]int{}
	f.dial = func(_ context.Context, _, addr string) (net.Conn, error) {
		mu.Lock()
		defer mu.Unlock()
		dials[addr]++
		return nil, errors.New("refused")
	}
	_, _, err := f.fetchMetadata(context.Background(), kmsg.NewPtrMetadataRequest())
	require.Error(t, err)
	require.Equal(t, map[string]int{"127.0.0.1:1": 1, "127.0.0.1:2": 1}, dials)
}

// TestDialGateOncePerStep: an address that failed in a backoff step is not
// dialled again in it (ClusterConnectionStates' reconnect backoff, per
// address), by a refresh or by a client's connection; in the next step one
// dial tries it while the others fail at once; a success forgets it.
func TestDialGateOncePerStep(t *testing.T) {
	var g dialGate
	require.True(t, g.acquire("a", 1), "never failed: dialled")
	require.True(t, g.acquire("a", 1), "never failed: dialled concurrently too")
	g.done("a", 1, errors.New("refused"))
	g.done("a", 1, errors.New("refused"))
	require.False(t, g.acquire("a", 1), "failed in this step")
	require.True(t, g.acquire("a", 2), "the next step: one dial")
	require.False(t, g.acquire("a", 2), "while it is in flight, no other")
	g.done("a", 2, errors.New("refused"))
	require.False(t, g.acquire("a", 2))
	require.True(t, g.acquire("a", 3))
	g.release("a") // cancelled: tells nothing
	require.True(t, g.acquire("a", 3))
	g.done("a", 3, nil)
	require.True(t, g.acquire("a", 3), "answered: dialled freely")
	require.True(t, g.acquire("a", 3))
}

// TestForwardWaitsForMovedBroker: a client's request on broker 1's port
// while the broker moved and the bootstrap name leads nowhere yet is not
// refused: the proxy waits for its next refreshes (each a backoff step, in
// which the dead address is dialled at most once, by whichever dial comes
// first) and forwards the request once a refresh found the broker at its
// new address.
func TestForwardWaitsForMovedBroker(t *testing.T) {
	a := newFakeUpstream(t, 0)
	f, n := movingForwarder(t, a)
	old := a.ln.Addr().String()
	b := newFakeUpstream(t, 0)
	a.ln.Close()
	failures := f.RebootstrapStats().Failures
	n.set(func() {
		n.dead[old], n.target = true, ""
		n.heal = func() string {
			if f.RebootstrapStats().Failures >= failures+2 {
				return b.ln.Addr().String()
			}
			return ""
		}
	})
	conn, err := net.Dial("tcp", f.BrokerAddrs()[1])
	require.NoError(t, err)
	defer conn.Close()
	produce := kmsg.NewPtrProduceRequest()
	produce.Version, produce.Acks = 11, -1
	resp := kmsg.NewPtrProduceResponse()
	resp.Version = 11
	require.NoError(t, roundTrip(conn, produce, resp, 1), "answered once the broker was found")
	require.Len(t, resp.Topics, 1)
	require.GreaterOrEqual(t, f.stats.UpstreamWaits.Load(), int64(1))
	require.GreaterOrEqual(t, f.RebootstrapStats().Failures, failures+2)
	e, _ := f.amap.Lookup(1)
	require.Equal(t, b.ln.Addr().String(), e.Upstream.String())
	n.mu.Lock()
	defer n.mu.Unlock()
	perStep := map[int64]int{}
	for _, d := range n.dials {
		if d.addr == old {
			perStep[d.attempt]++
		}
	}
	require.NotEmpty(t, perStep)
	for step, k := range perStep {
		require.LessOrEqual(t, k, 1, "the dead address dialled %d times in step %d: %v", k, step, perStep)
	}
}
