package interop

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kmeta-go/kmeta/epoch/proxy"
)

// movedNet is the network the proxy dials in TestForwardMovedCluster: the
// proxy's only seed is a bootstrap name (as a DNS name or a load balancer
// in front of a cluster is), which leads to one node of the cluster; every
// dial is recorded with the proxy's metadata attempt it falls in (its
// backoff step: RebootstrapStats().Attempts when it dialled).
type movedNet struct {
	boot string
	fwd  *proxy.Forwarder

	mu     sync.Mutex
	target string        // where the bootstrap name leads ("": it does not resolve)
	stale  func() string // if set, asked at each dial of the name: a new target, or ""
	dials  []movedDial
}

type movedDial struct {
	addr string
	step int64
	at   time.Time
}

func (n *movedNet) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	step := n.fwd.RebootstrapStats().Attempts
	n.mu.Lock()
	n.dials = append(n.dials, movedDial{addr, step, time.Now()})
	to := addr
	if addr == n.boot {
		if n.stale != nil {
			if t := n.stale(); t != "" {
				n.target, n.stale = t, nil
			}
		}
		to = n.target
	}
	n.mu.Unlock()
	if to == "" {
		return nil, &net.DNSError{Err: "no such host", Name: addr, IsNotFound: true}
	}
	var d net.Dialer
	return d.DialContext(ctx, network, to)
}

// TestForwardMovedCluster is issue 27's moved cluster (KIP-899's
// rebootstrap): every node of a three-node cluster is removed and added
// back on a new port, 0.5 s apart, with no client traffic, so that the
// proxy's view names only dead addresses. The bootstrap name does not
// resolve until the proxy has failed two metadata attempts (a DNS record
// replaced late), so that the proxy backs off; it then leads to a node. A new
// client then produces and consumes through the proxy within 10 s of the
// last move, every record written before and after the move read back, and
// no dead address is dialled more than once in any backoff step.
func TestForwardMovedCluster(t *testing.T) {
	const topic, n = "moved", 50
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(3, topic))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addrs := c.ListenAddrs() // node i at addrs[i]
	mn := &movedNet{boot: "bootstrap.moved.test:9092", target: addrs[0]}
	fwd, bootstrap := startMovedProxy(t, mn)

	before := movedRecords(0, n)
	if err := produceThrough(t.Context(), bootstrap, topic, before); err != nil {
		t.Fatalf("produce before the move: %v", err)
	}
	dead := moveEveryNode(t, c, addrs)
	lastMove := time.Now()
	failures := fwd.RebootstrapStats().Failures
	mn.mu.Lock()
	mn.target = ""
	mn.stale = func() string {
		if fwd.RebootstrapStats().Failures >= failures+2 {
			return addrs[1]
		}
		return ""
	}
	mn.mu.Unlock()

	after := movedRecords(n, n)
	if err := produceThrough(t.Context(), bootstrap, topic, after); err != nil {
		t.Fatalf("produce after the move: %v", err)
	}
	got, err := consumeThrough(t.Context(), bootstrap, topic, 2*n)
	if err != nil {
		t.Fatalf("consume after the move: %v", err)
	}
	took := time.Since(lastMove)
	checkReadBack(t, got, append(before, after...))
	if took > 10*time.Second {
		t.Errorf("produced and consumed %v after the last move, want within 10 s", took)
	}
	st := fwd.RebootstrapStats()
	if st.Failures < failures+2 || st.Rebootstraps == 0 {
		t.Errorf("rebootstrap stats %+v: want two failed attempts since the move and a rebootstrap", st)
	}
	checkDeadDials(t, mn, dead)
	t.Logf("recovered and read back %d records %v after the last move; %+v, %d dials held", len(got), took.Round(time.Millisecond), st, fwd.Stats().DialsHeld.Load())
}

// startMovedProxy starts a pass-through Forwarder whose only seed is mn's
// bootstrap name, dialling through mn, serving until the test ends; it
// returns the forwarder and its bootstrap address.
func startMovedProxy(t *testing.T, mn *movedNet) (*proxy.Forwarder, string) {
	fwd := proxy.NewForwarder(proxy.ForwarderConfig{Seeds: []string{mn.boot}, Host: "127.0.0.1", Dial: mn.dial, PassThrough: true, Timeout: 5 * time.Second})
	mn.fwd = fwd
	ctx, cancel := context.WithCancel(context.Background())
	if err := fwd.Start(ctx); err != nil {
		cancel()
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- fwd.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-served
		fwd.Close()
	})
	return fwd, ln.Addr().String()
}

// moveEveryNode removes each node of c and adds it back, same id, on a new
// port, 0.5 s apart, updating addrs; it returns when each old address died.
func moveEveryNode(t *testing.T, c *kfake.Cluster, addrs []string) map[string]time.Time {
	dead := map[string]time.Time{}
	for id := range int32(len(addrs)) {
		if id > 0 {
			time.Sleep(500 * time.Millisecond)
		}
		old := addrs[id]
		if err := c.RemoveNode(id); err != nil {
			t.Fatal(err)
		}
		dead[old] = time.Now()
		_, port, err := c.AddNode(id, 0)
		if err != nil {
			t.Fatal(err)
		}
		addrs[id] = fmt.Sprintf("127.0.0.1:%d", port)
		t.Logf("node %d: %s -> %s", id, old, addrs[id])
	}
	return dead
}

// checkReadBack checks that got holds the value of every record written,
// once each.
func checkReadBack(t *testing.T, got []string, written []*kgo.Record) {
	t.Helper()
	want := map[string]bool{}
	for _, r := range written {
		want[string(r.Value)] = true
	}
	for _, v := range got {
		delete(want, v)
	}
	if len(got) != len(written) || len(want) > 0 {
		t.Fatalf("read %d records, %d of the %d written missing", len(got), len(want), len(written))
	}
}

// checkDeadDials checks that every dead address was tried after its node
// left it, and never more than once in a backoff step.
func checkDeadDials(t *testing.T, mn *movedNet, dead map[string]time.Time) {
	t.Helper()
	mn.mu.Lock()
	defer mn.mu.Unlock()
	perStep := map[string]map[int64]int{}
	for _, d := range mn.dials {
		if died, ok := dead[d.addr]; ok && d.at.After(died) {
			if perStep[d.addr] == nil {
				perStep[d.addr] = map[int64]int{}
			}
			perStep[d.addr][d.step]++
		}
	}
	if len(perStep) != len(dead) {
		t.Errorf("dials of dead addresses: %v, want every old address tried", perStep)
	}
	for addr, steps := range perStep {
		var list []string
		for s, k := range steps {
			list = append(list, fmt.Sprintf("step %d: %d", s, k))
			if k > 1 {
				t.Errorf("dead address %s dialled %d times in backoff step %d", addr, k, s)
			}
		}
		sort.Strings(list)
		t.Logf("dead %s: %v", addr, list)
	}
}

func movedRecords(from, n int) []*kgo.Record {
	rs := make([]*kgo.Record, n)
	for i := range rs {
		rs[i] = &kgo.Record{Key: fmt.Appendf(nil, "k%d", from+i), Value: fmt.Appendf(nil, "v%d", from+i)}
	}
	return rs
}

// produceThrough produces rs with a new franz-go client through the proxy
// at bootstrap (acks=all, idempotent), within 10 s.
func produceThrough(ctx context.Context, bootstrap, topic string, rs []*kgo.Record) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.MetadataMinAge(50*time.Millisecond), kgo.RecordRetries(1000), kgo.RetryTimeout(10*time.Second))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return cl.ProduceSync(ctx, rs...).FirstErr()
}

// consumeThrough reads topic from the start with a new franz-go client
// through the proxy until want records, within 10 s.
func consumeThrough(ctx context.Context, bootstrap, topic string, want int) ([]string, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.MetadataMinAge(50*time.Millisecond))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var got []string
	var last error // the last fetch error (retried)
	for len(got) < want {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return got, fmt.Errorf("%d of %d records: %w (last fetch error: %v)", len(got), want, ctx.Err(), last)
		}
		fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
		for _, e := range fs.Errors() {
			if !errors.Is(e.Err, context.DeadlineExceeded) {
				last = fmt.Errorf("fetch %s/%d: %w", e.Topic, e.Partition, e.Err)
			}
		}
	}
	return got, nil
}
