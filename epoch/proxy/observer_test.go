package proxy

import (
	"bufio"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// recorder is an Observer and TrafficObserver that records what it is
// told.
type recorder struct {
	NopObserver
	mu        sync.Mutex
	requests  []string // key/version/code
	in, out   map[int16]int
	latencies map[int16]int
	closed    chan struct{}
}

func newRecorder() *recorder {
	return &recorder{in: map[int16]int{}, out: map[int16]int{}, latencies: map[int16]int{}, closed: make(chan struct{}, 16)}
}

func (r *recorder) Request(key, version, code int16) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, fmt.Sprintf("%d/%d/%d", key, version, code))
}

func (r *recorder) UpstreamLatency(key, _ int16, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.latencies[key]++
}

func (r *recorder) BytesIn(key, _ int16, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.in[key] += n
}

func (r *recorder) BytesOut(key, _ int16, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out[key] += n
}

func (r *recorder) ConnClosed(net.Addr, error) { r.closed <- struct{}{} }

// waitClosed waits for a connection's ConnClosed (every call for its
// requests made before it).
func (r *recorder) waitClosed(t *testing.T) {
	t.Helper()
	select {
	case <-r.closed:
	case <-time.After(30 * time.Second):
		t.Fatal("no ConnClosed 30 s after the connection ended")
	}
}

// exchangeAll writes the frames on conn and reads one answer per frame in
// want (the rest close the connection unanswered), adding each answer's
// size, prefix included, to out under its request's key.
func exchangeAll(t *testing.T, conn net.Conn, frames [][]byte, keys []int16, answered int, in, out map[int16]int) {
	t.Helper()
	var all []byte
	for i, f := range frames {
		all = append(all, f...)
		in[keys[i]] += len(f)
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	_, err := conn.Write(all)
	require.NoError(t, err)
	r := bufio.NewReader(conn)
	for i := range answered {
		out[keys[i]] += len(readFrame(t, r)) + 4
	}
}

// TestObserverServer: the Server tells its Observer every request it
// answered, in order, with UNSUPPORTED_VERSION for ApiVersions at a version
// it does not know (KIP-511) and INVALID_REQUEST for one that closes the
// connection (as Kafka's SocketServer closes it); and, as the Observer is a
// TrafficObserver, the bytes of every frame each way by API key.
func TestObserverServer(t *testing.T) {
	rec := newRecorder()
	_, addr := demoServerWith(t, DefaultLimits(), func(s *Server) { s.SetObserver(rec) })
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	av := kmsg.NewPtrApiVersionsRequest()
	av.Version, av.ClientSoftwareName, av.ClientSoftwareVersion = 3, "kmeta-test", "1.0"
	bad := kmsg.NewPtrApiVersionsRequest()
	bad.Version = 99
	md := requestFrame(metadataV12(), 2)
	truncated := append([]byte(nil), md[:len(md)-1]...)
	truncated[3]-- // the size says one byte less: the body ends early
	in, out := map[int16]int{}, map[int16]int{}
	exchangeAll(t, conn, [][]byte{requestFrame(av, 1), md, requestFrame(bad, 3), truncated}, []int16{18, 3, 18, 3}, 3, in, out)
	rec.waitClosed(t)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.Equal(t, []string{"18/3/0", "3/12/0", "18/99/35", "3/12/42"}, rec.requests)
	require.Equal(t, in, rec.in)
	require.Equal(t, out, rec.out)
}

// TestObserverForwarder: the Forwarder tells its Observer every request,
// forwarded or answered from its view, refused (UNSUPPORTED_VERSION for an
// API it does not offer) included, in order; the upstream latency of each
// forwarded one; and the bytes each way by API key.
func TestObserverForwarder(t *testing.T) {
	rec := newRecorder()
	u := newFakeUpstream(t, 0)
	_, addr := benchForwarderWith(t, u, func(f *Forwarder) { f.obs, f.traffic = rec, rec })
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	produce := kmsg.NewPtrProduceRequest()
	produce.Version, produce.Acks = 11, -1
	dq := kmsg.NewPtrDescribeQuorumRequest()
	dq.Version = 1
	av := kmsg.NewPtrApiVersionsRequest()
	av.Version, av.ClientSoftwareName, av.ClientSoftwareVersion = 3, "kmeta-test", "1.0"
	frames := [][]byte{appendRequest(nil, produce, 1, "t"), appendRequest(nil, metadataV12(), 2, "t"), appendRequest(nil, dq, 3, "t"), appendRequest(nil, av, 4, "t")}
	in, out := map[int16]int{}, map[int16]int{}
	exchangeAll(t, conn, frames, []int16{0, 3, 55, 18}, 4, in, out)
	conn.Close()
	rec.waitClosed(t)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.Equal(t, []string{"0/11/0", "3/12/0", "55/1/35", "18/3/0"}, rec.requests)
	require.Equal(t, map[int16]int{0: 1}, rec.latencies)
	require.Equal(t, in, rec.in)
	require.Equal(t, out, rec.out)
}

// TestTrafficObserverOptional: an Observer that is not a TrafficObserver
// is told nothing of bytes, and a frame too short to name its API is
// counted under key and version -1.
func TestTrafficObserverOptional(t *testing.T) {
	if _, ok := traffic(NopObserver{}).(nopTraffic); !ok {
		t.Error("NopObserver is not a TrafficObserver, but traffic found one")
	}
	rec := newRecorder()
	if traffic(rec) != TrafficObserver(rec) {
		t.Error("traffic did not return the Observer's own TrafficObserver")
	}
	if k, v := frameAPI([]byte{0, 3, 0}); k != -1 || v != -1 {
		t.Errorf("frameAPI of 3 bytes: %d, %d", k, v)
	}
}
