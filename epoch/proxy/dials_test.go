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

// TestForwardHeldAfterFailedRefresh: once a refresh attempt found broker
// 1's address dead, a client's request on its port is refused without
// dialling it again in the same backoff step; the next attempt dials it
// once more.
func TestForwardHeldAfterFailedRefresh(t *testing.T) {
	u := newFakeUpstream(t, 0)
	var mu sync.Mutex
	dials := map[string]int{}
	dead := false
	f, addr := benchForwarderWith(t, u, func(f *Forwarder) {
		dial := f.dial
		f.dial = func(ctx context.Context, network, a string) (net.Conn, error) {
			mu.Lock()
			dials[a]++
			d := dead
			mu.Unlock()
			if d {
				return nil, errors.New("refused")
			}
			return dial(ctx, network, a)
		}
	})
	up := u.ln.Addr().String()
	mu.Lock()
	dead, dials = true, map[string]int{}
	mu.Unlock()
	_, err := f.refresh(context.Background(), true)
	require.Error(t, err)
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	produce := kmsg.NewPtrProduceRequest()
	produce.Version, produce.Acks = 11, -1
	_, err = conn.Write(appendRequest(nil, produce, 1, "t"))
	require.NoError(t, err)
	_, err = conn.Read(make([]byte, 1))
	require.Error(t, err, "the connection is closed, not answered")
	mu.Lock()
	require.Equal(t, 1, dials[up], "dialled by the refresh only")
	mu.Unlock()
	require.Equal(t, int64(1), f.stats.DialsHeld.Load())
	_, err = f.refresh(context.Background(), true)
	require.Error(t, err)
	mu.Lock()
	require.Equal(t, 2, dials[up], "the next attempt dials it again, once")
	mu.Unlock()
}
