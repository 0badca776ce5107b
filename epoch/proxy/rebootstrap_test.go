package proxy

import (
	"context"
	"errors"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/epoch/clientview"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/record"
)

// movingNet is the network a forwarder dials in these tests: a bootstrap
// name that resolves to whichever address it is set to (as a DNS name or a
// load balancer in front of the cluster would), addresses that are dead
// (refused at once), and a log of every dial with the refresh attempt it
// belongs to (the forwarder's RebootstrapStats().Attempts when it dialled).
type movingNet struct {
	f    *Forwarder
	boot string // the bootstrap name

	mu     sync.Mutex
	target string        // where boot leads ("": nowhere)
	heal   func() string // if set, asked at each dial of boot: a new target, or ""
	dead   map[string]bool
	dials  []netDial
	clock  time.Time
	sleeps []time.Duration
}

type netDial struct {
	addr    string
	attempt int64
}

func (n *movingNet) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	n.mu.Lock()
	n.dials = append(n.dials, netDial{addr, n.f.RebootstrapStats().Attempts})
	to := addr
	if addr == n.boot {
		if n.heal != nil {
			if h := n.heal(); h != "" {
				n.target, n.heal = h, nil
			}
		}
		to = n.target
	}
	dead := to == "" || n.dead[to]
	n.mu.Unlock()
	if dead {
		return nil, errors.New("connection refused")
	}
	var d net.Dialer
	return d.DialContext(ctx, network, to)
}

func (n *movingNet) now() time.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.clock
}

// sleep is the Rebootstrap's backoff wait on a clock of its own: recorded,
// not waited.
func (n *movingNet) sleep(_ context.Context, d time.Duration) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sleeps = append(n.sleeps, d)
	n.clock = n.clock.Add(d)
	return nil
}

func (n *movingNet) set(f func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	f()
}

// perAttempt are the dials of attempt a, in order.
func (n *movingNet) perAttempt(a int64) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, d := range n.dials {
		if d.attempt == a {
			out = append(out, d.addr)
		}
	}
	return out
}

// movingForwarder is a forwarder whose only seed is the bootstrap name of
// a movingNet leading to u, with the Rebootstrap on the net's clock and a
// jitter of 1 (Rand 0.5), started.
func movingForwarder(t *testing.T, u *fakeUpstream) (*Forwarder, *movingNet) {
	n := &movingNet{boot: "bootstrap.test:9092", target: u.ln.Addr().String(), dead: map[string]bool{}, clock: time.Unix(1e9, 0)}
	var f *Forwarder
	ports := newBrokerPorts("127.0.0.1", 0, func(ln net.Listener, id int32) { f.serveBrokerPort(ln, id) })
	f = newForwarder([]string{n.boot}, 10*time.Second, ports)
	t.Cleanup(ports.Close)
	n.f = f
	f.dial = n.dial
	f.rb = f.newRebootstrap(func(c *clientview.RebootstrapConfig) {
		c.Now, c.Sleep, c.Rand = n.now, n.sleep, func() float64 { return 0.5 }
	})
	require.NoError(t, f.start(context.Background()))
	return f, n
}

// TestForwarderRebootstrapMovedCluster (KIP-899): the cluster's only
// broker moves to a new address while nothing refreshes the view, and the
// bootstrap name leads nowhere for two attempts. Each attempt dials the
// dead known address and the bootstrap name once each, known brokers
// first until an attempt failed, the bootstrap servers first after; the
// waits between attempts are the reconnect backoff (50 ms, then 100 ms at
// jitter 1); the third attempt finds the moved broker through the
// bootstrap name, and the broker's port now forwards to its new address.
func TestForwarderRebootstrapMovedCluster(t *testing.T) {
	a := newFakeUpstream(t, 0)
	f, n := movingForwarder(t, a)
	oldAddr := a.ln.Addr().String()
	e, _ := f.amap.Lookup(1)
	require.Equal(t, oldAddr, e.Upstream.String())

	b := newFakeUpstream(t, 0) // the broker, moved
	a.ln.Close()
	n.set(func() { n.dead[oldAddr], n.target = true, "" })
	start := f.RebootstrapStats().Attempts
	ctx := context.Background()
	for range 2 {
		_, err := f.refresh(ctx, true)
		var de *clientview.DialError
		require.ErrorAs(t, err, &de)
	}
	require.Equal(t, []string{oldAddr, n.boot}, n.perAttempt(start+1), "known brokers first, then the bootstrap servers")
	require.Equal(t, []string{n.boot, oldAddr}, n.perAttempt(start+2), "after a failed attempt: the bootstrap servers first")

	n.set(func() { n.target = b.ln.Addr().String() })
	v, err := f.refresh(ctx, true)
	require.NoError(t, err)
	require.Equal(t, []string{n.boot}, n.perAttempt(start+3))
	br, ok := v.Broker(1)
	require.True(t, ok)
	require.Equal(t, b.ln.Addr().String(), Endpoint{Host: br.Host(), Port: br.Port()}.String())
	e, _ = f.amap.Lookup(1)
	require.Equal(t, b.ln.Addr().String(), e.Upstream.String(), "broker 1's port forwards to the moved broker")

	n.mu.Lock()
	require.Equal(t, []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}, n.sleeps, "reconnect.backoff.ms, doubled, jitter 1")
	n.mu.Unlock()
	st := f.RebootstrapStats()
	require.Equal(t, int64(2), st.Failures)
	require.Zero(t, st.Backoff, "an answer resets the backoff")

	// The next attempt starts at the known broker, at its new address.
	_, err = f.refresh(ctx, true)
	require.NoError(t, err)
	require.Equal(t, []string{b.ln.Addr().String()}, n.perAttempt(start+4))
}

// TestForwarderRebootstrapBackoffCapped_seed7 (KIP-899, KIP-580): while
// every address is dead, each attempt dials each of them once (a seed
// listed twice, and a seed that is also a known broker, once), and the
// wait before the next grows to reconnect.backoff.max.ms (1 s), jittered
// within ±20 % and never above it.
func TestForwarderRebootstrapBackoffCapped_seed7(t *testing.T) {
	u := newFakeUpstream(t, 0)
	f, n := movingForwarder(t, u)
	known := u.ln.Addr().String()
	f.seeds = []string{n.boot, known, n.boot}
	rnd := uint64(7)
	f.rb = f.newRebootstrap(func(c *clientview.RebootstrapConfig) {
		c.Now, c.Sleep = n.now, n.sleep
		c.Rand = func() float64 { // a seeded LCG: the test's jitter
			rnd = rnd*6364136223846793005 + 1442695040888963407
			return float64(rnd>>11) / (1 << 53)
		}
	})
	u.ln.Close()
	n.set(func() { n.dead[known], n.target, n.dials = true, "", nil }) // the new policy counts its attempts from 0
	start := f.RebootstrapStats().Attempts
	const attempts = 12
	for range attempts {
		_, err := f.refresh(context.Background(), true)
		require.Error(t, err)
	}
	for a := start + 1; a <= start+attempts; a++ {
		require.ElementsMatch(t, []string{n.boot, known}, n.perAttempt(a), "attempt %d dials each address once", a)
	}
	n.mu.Lock()
	sleeps := append([]time.Duration(nil), n.sleeps...)
	n.mu.Unlock()
	require.Len(t, sleeps, attempts-1)
	for i, d := range sleeps {
		base := min(50*time.Millisecond<<i, time.Second)
		require.GreaterOrEqual(t, d, base*8/10-time.Millisecond, "wait %d", i)
		require.LessOrEqual(t, d, min(base*12/10, time.Second), "wait %d", i)
	}
	require.Equal(t, time.Second, slices.Max(sleeps), "capped at reconnect.backoff.max.ms")
}

// switchNet sends every dial to one of two upstreams, the second once
// switched (the cluster changed behind the proxy's back), and counts them.
type switchNet struct {
	from, to string
	moved    atomic.Bool
	dials    atomic.Int64
}

func (s *switchNet) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	s.dials.Add(1)
	if s.moved.Load() {
		addr = s.to
	} else if addr != s.from {
		return nil, errors.New("connection refused")
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// staleForwarder is a forwarder in front of a cluster of one topic
// ("bench", id 1) that gains a second ("fresh", id 2, Topics 60 and 75
// offered) once sw.moved is set: the view is stale until a refresh.
func staleForwarder(t *testing.T) (*Forwarder, *switchNet, string) {
	offer := func(u *fakeUpstream, md *kmsg.MetadataResponse, av *kmsg.ApiVersionsResponse) {
		ak := kmsg.NewApiVersionsResponseApiKey()
		ak.ApiKey = 75
		av.ApiKeys = append(av.ApiKeys, ak)
	}
	before := newFakeUpstreamWith(t, 0, offer)
	after := newFakeUpstreamWith(t, 0, func(u *fakeUpstream, md *kmsg.MetadataResponse, av *kmsg.ApiVersionsResponse) {
		offer(u, md, av)
		fresh := md.Topics[0]
		name := "fresh"
		fresh.Topic, fresh.TopicID = &name, [16]byte{2}
		md.Topics = append(md.Topics, fresh)
	})
	sw := &switchNet{from: before.ln.Addr().String(), to: after.ln.Addr().String()}
	f, addr := benchForwarderWith(t, before, func(f *Forwarder) { f.dial = sw.dial })
	return f, sw, addr
}

// TestForwarderLooksUpStaleTopic: a topic created after the view's last
// refresh is answered as it is, not UNKNOWN_TOPIC_OR_PARTITION, by
// Metadata (by name and by id) and DescribeTopicPartitions: the proxy
// refreshes once before answering. A topic that does not exist is unknown
// after one refresh, and a topic the view holds costs none.
func TestForwarderLooksUpStaleTopic(t *testing.T) {
	f, sw, addr := staleForwarder(t)
	sw.moved.Store(true)
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	corr := int32(0)
	metadata := func(topics ...kmsg.MetadataRequestTopic) *kmsg.MetadataResponse {
		t.Helper()
		req := kmsg.NewPtrMetadataRequest()
		req.Version = 12
		req.Topics = topics
		resp := kmsg.NewPtrMetadataResponse()
		resp.Version = req.Version
		corr++
		require.NoError(t, roundTrip(conn, req, resp, corr))
		require.Len(t, resp.Topics, len(topics))
		return resp
	}
	byName := func(n string) kmsg.MetadataRequestTopic {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = &n
		return rt
	}

	refreshes, lookups := f.stats.Refreshes.Load(), f.stats.Lookups.Load()
	resp := metadata(byName("fresh"), byName("bench"))
	require.Equal(t, int16(0), resp.Topics[0].ErrorCode, "the stale view's missing topic, after a refresh")
	require.Equal(t, "fresh", *resp.Topics[0].Topic)
	require.Len(t, resp.Topics[0].Partitions, 3)
	require.Equal(t, int64(1), f.stats.Refreshes.Load()-refreshes, "one refresh for the request")
	require.Equal(t, int64(1), f.stats.Lookups.Load()-lookups)

	refreshes = f.stats.Refreshes.Load()
	resp = metadata(byName("nope"), byName("gone"))
	for _, mt := range resp.Topics {
		require.Equal(t, kafkaerr.UnknownTopicOrPartition.Int16(), mt.ErrorCode)
	}
	require.Equal(t, int64(1), f.stats.Refreshes.Load()-refreshes, "unknown after one refresh made after the question, for both")

	lookups = f.stats.Lookups.Load()
	resp = metadata(byName("fresh"))
	require.Zero(t, resp.Topics[0].ErrorCode)
	require.Equal(t, lookups, f.stats.Lookups.Load(), "a topic the view holds is not looked up")

	refreshes = f.stats.Refreshes.Load()
	byID := kmsg.NewMetadataRequestTopic()
	byID.TopicID = [16]byte{9}
	resp = metadata(byID)
	require.Equal(t, kafkaerr.UnknownTopicOrPartition.Int16(), resp.Topics[0].ErrorCode)
	require.Equal(t, int64(1), f.stats.Refreshes.Load()-refreshes, "an unknown id: one refresh")

	dtp := kmsg.NewPtrDescribeTopicPartitionsRequest()
	dt := kmsg.NewDescribeTopicPartitionsRequestTopic()
	dt.Topic = "nope"
	dtp.Topics = append(dtp.Topics, dt)
	dresp := kmsg.NewPtrDescribeTopicPartitionsResponse()
	refreshes = f.stats.Refreshes.Load()
	corr++
	require.NoError(t, roundTrip(conn, dtp, dresp, corr))
	require.Len(t, dresp.Topics, 1)
	require.Equal(t, kafkaerr.UnknownTopicOrPartition.Int16(), dresp.Topics[0].ErrorCode)
	require.Equal(t, int64(1), f.stats.Refreshes.Load()-refreshes, "DescribeTopicPartitions: unknown after one refresh")
}

// TestForwarderDescribeTopicPartitionsStaleTopic: DescribeTopicPartitions
// answers a topic created after the view's last refresh, after one.
func TestForwarderDescribeTopicPartitionsStaleTopic(t *testing.T) {
	f, sw, addr := staleForwarder(t)
	sw.moved.Store(true)
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	for _, n := range []string{"fresh", "bench"} {
		dt := kmsg.NewDescribeTopicPartitionsRequestTopic()
		dt.Topic = n
		req.Topics = append(req.Topics, dt)
	}
	resp := kmsg.NewPtrDescribeTopicPartitionsResponse()
	refreshes := f.stats.Refreshes.Load()
	require.NoError(t, roundTrip(conn, req, resp, 1))
	require.Len(t, resp.Topics, 2)
	for _, dt := range resp.Topics {
		require.Zero(t, dt.ErrorCode, "topic %s", *dt.Topic)
		require.Len(t, dt.Partitions, 3)
	}
	require.Equal(t, int64(1), f.stats.Refreshes.Load()-refreshes)
}

// TestTopicNamerLooksUpOncePerRequest: the topic ids of a request the
// view cannot name are looked up with one refresh for the whole request
// (KIP-516's ids in Produce and Fetch v13+, authorized by the proxy): an id
// created since the view's refresh is named, an unknown one is not, and
// the request's later unknown ids cost no further refresh.
func TestTopicNamerLooksUpOncePerRequest(t *testing.T) {
	f, sw, _ := staleForwarder(t)
	sw.moved.Store(true)
	refreshes := f.stats.Refreshes.Load()
	names := f.topicNamer()
	n, ok := names([16]byte{2})
	require.True(t, ok)
	require.Equal(t, "fresh", n)
	_, ok = names([16]byte{9})
	require.False(t, ok)
	_, ok = names([16]byte{8})
	require.False(t, ok)
	require.Equal(t, int64(1), f.stats.Refreshes.Load()-refreshes)

	tp, ok := f.lookupTopicByID(record.UUID{1})
	require.True(t, ok)
	require.Equal(t, "bench", tp.Name())
	require.Equal(t, int64(1), f.stats.Refreshes.Load()-refreshes, "a known id costs no refresh")
}
