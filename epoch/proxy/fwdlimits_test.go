package proxy

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// limitedForwarder is a forwarder in front of a fake upstream with lim,
// and the address of its bootstrap port.
func limitedForwarder(t *testing.T, lim Limits) (*Forwarder, string) {
	u := newFakeUpstream(t, 0)
	f, _ := benchForwarderWith(t, u, func(f *Forwarder) { f.setLimits(lim) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go f.serveBroker(ln, -1)
	t.Cleanup(func() { ln.Close() })
	return f, ln.Addr().String()
}

// TestForwarderIdleAndSlowCut: in upstream mode too, 300 connections that
// never send a byte are cut at connections.max.idle.ms and 300 that send
// half a frame (slowloris) at the request read timeout, while
// max.connections 100 holds the rest in the backlog until the first are
// cut; a quick client is served after them.
func TestForwarderIdleAndSlowCut(t *testing.T) {
	lim := shortLimits()
	lim.MaxConnections = 100
	f, addr := limitedForwarder(t, lim)
	var conns []net.Conn
	for i := range 600 {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		if i%2 == 1 {
			c.Write([]byte{0, 0, 0, 40, 0, 3}) // a size and two bytes of 40
		}
		conns = append(conns, c)
	}
	time.Sleep(100 * time.Millisecond)
	require.LessOrEqual(t, f.stats.Open.Load(), int64(100), "max.connections")
	for i, c := range conns {
		require.True(t, closedWithin(c, 20*time.Second), "connection %d not cut", i)
	}
	require.Eventually(t, func() bool { return f.stats.Idle.Load() == 300 && f.stats.Slow.Load() == 300 }, 5*time.Second, 10*time.Millisecond,
		"idle %d slow %d, want 300 each", f.stats.Idle.Load(), f.stats.Slow.Load())
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, roundTrip(c, metadataV12(), newMetadataV12Response(), 1))
}

// TestForwarderMaxConnectionsPerIP: with max.connections.per.ip 3, a fourth
// connection from 127.0.0.1 is closed at once and counted; once one of the
// three closes, a new one is served.
func TestForwarderMaxConnectionsPerIP(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxConnectionsPerIP = 3
	f, addr := limitedForwarder(t, lim)
	var conns []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		require.NoError(t, roundTrip(c, metadataV12(), newMetadataV12Response(), 1))
		conns = append(conns, c)
	}
	extra, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer extra.Close()
	require.True(t, closedWithin(extra, 5*time.Second), "a fourth connection from one address was kept")
	require.Equal(t, int64(1), f.stats.ConnRefused.Load())
	conns[0].Close()
	require.Eventually(t, func() bool { return f.stats.Open.Load() == 2 }, 5*time.Second, 10*time.Millisecond)
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, roundTrip(c, metadataV12(), newMetadataV12Response(), 2))
}
