package proxy

import (
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/publisher"
)

// TestLogAllFenced: a server answering an image whose brokers are all fenced
// logs why clients see no broker and names -serve-fenced, at start and when
// an update fences the last broker; with SetServeFenced it does not.
func TestLogAllFenced(t *testing.T) {
	logs := captureLog(t)
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9092}
	s := NewServer("PLAINTEXT", "c", "")
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 6, 3)
	require.NoError(t, s.OnUpdate(publisher.Update{Image: sim.Image()}))
	s.LogStart(addr)
	require.NotContains(t, logs.String(), "-serve-fenced", "brokers alive")

	img := stoppedCluster(t)
	require.NoError(t, s.OnUpdate(publisher.Update{Image: img}))
	require.Equal(t, 1, strings.Count(logs.String(), "use -serve-fenced"), logs.String())
	require.NoError(t, s.OnUpdate(publisher.Update{Image: img}))
	require.Equal(t, 1, strings.Count(logs.String(), "use -serve-fenced"), "logged once per transition")
	s.LogStart(addr)
	require.Equal(t, 2, strings.Count(logs.String(), "all 3 brokers are fenced"))

	f := NewServer("PLAINTEXT", "c", "")
	f.SetServeFenced(true)
	require.NoError(t, f.OnUpdate(publisher.Update{Image: img}))
	f.LogStart(addr)
	require.Equal(t, 2, strings.Count(logs.String(), "use -serve-fenced"))
}
