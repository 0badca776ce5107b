package clientview

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/record"
)

// fakeCluster answers Metadata at the addresses where its nodes are, and at
// its bootstrap addresses while they are up; every other address is dead.
// It logs every dial with the attempt it belongs to. No network.
type fakeCluster struct {
	mu      sync.Mutex
	now     time.Time
	ports   map[int32]int // node id → port on host "n"
	boot    map[string]bool
	code    int16 // top-level error code of the next answers
	dials   []string
	attempt int
	perAtt  [][]string
	sleeps  []time.Duration
	topics  []string
}

func (c *fakeCluster) answer() *kmsg.MetadataResponse {
	resp := kmsg.NewPtrMetadataResponse()
	resp.Version = 12
	resp.ErrorCode = c.code
	for id := int32(1); id <= int32(len(c.ports)); id++ {
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID, b.Host, b.Port = id, "n", int32(c.ports[id])
		resp.Brokers = append(resp.Brokers, b)
	}
	for i, name := range c.topics {
		tp := kmsg.NewMetadataResponseTopic()
		n := name
		tp.Topic, tp.TopicID = &n, [16]byte{byte(i + 1)}
		p := kmsg.NewMetadataResponseTopicPartition()
		p.Leader, p.Replicas, p.ISR = 1, []int32{1}, []int32{1}
		tp.Partitions = []kmsg.MetadataResponseTopicPartition{p}
		resp.Topics = append(resp.Topics, tp)
	}
	return resp
}

func (c *fakeCluster) send(_ context.Context, addr string, _ *kmsg.MetadataRequest) (*kmsg.MetadataResponse, int32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dials = append(c.dials, addr)
	c.perAtt[len(c.perAtt)-1] = append(c.perAtt[len(c.perAtt)-1], addr)
	if c.boot[addr] {
		return c.answer(), -1, nil
	}
	for id, p := range c.ports {
		if addr == net.JoinHostPort("n", strconv.Itoa(p)) {
			return c.answer(), id, nil
		}
	}
	return nil, -1, fmt.Errorf("dial %s: connection refused", addr)
}

func (c *fakeCluster) clock() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeCluster) sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return nil
}

// newRebootstrapRig is a Refresher whose Fetch is a Rebootstrap over c.
func newRebootstrapRig(c *fakeCluster, seed uint64) (*Refresher, *Rebootstrap) {
	rnd := rand.New(rand.NewPCG(seed, seed))
	var ref *Refresher
	rb := NewRebootstrap(RebootstrapConfig{
		Bootstrap: []string{"boot:9092", "boot:9092"},
		Send: func(ctx context.Context, addr string, req *kmsg.MetadataRequest) (*kmsg.MetadataResponse, int32, error) {
			return c.send(ctx, addr, req)
		},
		View:  func() *View { return ref.View() },
		Now:   c.clock,
		Sleep: c.sleep,
		Rand:  rnd.Float64,
	})
	fetch := func(ctx context.Context, req *kmsg.MetadataRequest) (*kmsg.MetadataResponse, int32, error) {
		c.mu.Lock()
		c.attempt++
		c.perAtt = append(c.perAtt, nil)
		c.mu.Unlock()
		return rb.Fetch(ctx, req)
	}
	ref = NewRefresher(RefresherConfig{Fetch: fetch, AllTopics: true, Now: c.clock, Sleep: c.sleep, Rand: rnd.Float64})
	return ref, rb
}

func checkNoRedial(t *testing.T, c *fakeCluster) {
	t.Helper()
	for i, att := range c.perAtt {
		seen := map[string]bool{}
		for _, a := range att {
			if seen[a] {
				t.Fatalf("attempt %d dialled %s twice: %v", i+1, a, att)
			}
			seen[a] = true
		}
	}
}

// TestRebootstrapMovedCluster_seed1: every node of the cluster moves to a
// new port between two refreshes. The next attempt dials each dead known
// address once, goes back to the bootstrap servers (KIP-899), and the view
// holds the new addresses; the attempt after that goes to a known broker
// only.
func TestRebootstrapMovedCluster_seed1(t *testing.T) {
	c := &fakeCluster{now: t0, ports: map[int32]int{1: 1, 2: 2, 3: 3}, boot: map[string]bool{"boot:9092": true}, topics: []string{"orders"}}
	ref, rb := newRebootstrapRig(c, 1)
	ctx := context.Background()
	if _, err := ref.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := c.perAtt[0]; len(got) != 1 || got[0] != "boot:9092" {
		t.Fatalf("first attempt, empty view: %v, want the bootstrap server only", got)
	}
	c.ports = map[int32]int{1: 11, 2: 12, 3: 13}
	c.now = c.now.Add(time.Second)
	v, err := ref.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	att := c.perAtt[1]
	if len(att) != 4 || att[3] != "boot:9092" {
		t.Fatalf("moved cluster: dialled %v, want the three dead addresses once each, then boot:9092", att)
	}
	if b, _ := v.Broker(2); b.Port() != 12 {
		t.Fatalf("view after rebootstrap: broker 2 at %d", b.Port())
	}
	if _, err := ref.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if att := c.perAtt[2]; len(att) != 1 || att[0] == "boot:9092" {
		t.Fatalf("after recovery: %v, want one known broker", att)
	}
	if s := rb.Stats(); s.Rebootstraps != 2 || s.Failures != 0 {
		t.Fatalf("stats %+v: want 2 rebootstraps (the first bootstrap and the recovery)", s)
	}
	checkNoRedial(t, c)
}

// TestRebootstrapBackoff_seed7: with every address dead, each attempt dials
// every address once, starting at the bootstrap servers, and the waits
// between attempts follow the capped exponential backoff with ±20 %
// jitter (reconnect.backoff.ms 50, reconnect.backoff.max.ms 1000); when
// the bootstrap servers come back, the next attempt answers and the
// backoff resets.
func TestRebootstrapBackoff_seed7(t *testing.T) {
	c := &fakeCluster{now: t0, ports: map[int32]int{1: 1, 2: 2}, boot: map[string]bool{"boot:9092": true}}
	_, rb := newRebootstrapRig(c, 7)
	req := kmsg.NewPtrMetadataRequest()
	ctx := context.Background()
	c.perAtt = append(c.perAtt, nil)
	if _, _, err := rb.Fetch(ctx, req); err != nil {
		t.Fatal(err)
	}
	c.ports, c.boot = map[int32]int{}, map[string]bool{}
	for n := 0; n < 8; n++ {
		c.perAtt = append(c.perAtt, nil)
		_, _, err := rb.Fetch(ctx, req)
		var de *DialError
		if !errors.As(err, &de) || len(de.Addrs) != 1 {
			t.Fatalf("attempt %d: %v (the view of this Fetch-only rig has no broker: boot only)", n, err)
		}
		base := min(50*time.Millisecond<<n, time.Second)
		if b := rb.Stats().Backoff; b < base*8/10-time.Millisecond || b > min(base*12/10, time.Second) {
			t.Fatalf("backoff after failure %d: %v, want %v ± 20 %% capped at 1 s", n+1, b, base)
		}
	}
	if len(c.sleeps) != 7 {
		t.Fatalf("slept %d times, want once before each attempt after a failure: %v", len(c.sleeps), c.sleeps)
	}
	c.boot["boot:9092"] = true
	c.perAtt = append(c.perAtt, nil)
	if _, _, err := rb.Fetch(ctx, req); err != nil {
		t.Fatal(err)
	}
	if rb.Stats().Backoff != 0 {
		t.Fatal("backoff not reset by an answer")
	}
	checkNoRedial(t, c)
}

// TestRebootstrapRequired: an answer with REBOOTSTRAP_REQUIRED (KIP-1102)
// sends the next attempt to the bootstrap servers first.
func TestRebootstrapRequired(t *testing.T) {
	c := &fakeCluster{now: t0, ports: map[int32]int{1: 1}, boot: map[string]bool{"boot:9092": true}}
	ref, _ := newRebootstrapRig(c, 3)
	ctx := context.Background()
	if _, err := ref.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	c.code = kafkaerr.RebootstrapRequired.Int16()
	c.now = c.now.Add(time.Second)
	_, err := ref.Refresh(ctx)
	var ae *AnswerError
	if !errors.As(err, &ae) || ae.Code != kafkaerr.RebootstrapRequired || !errors.Is(err, kafkaerr.RebootstrapRequired) || c.perAtt[1][0] != "n:1" {
		t.Fatalf("REBOOTSTRAP_REQUIRED answer: %v, dials %v", err, c.perAtt[1])
	}
	c.code = 0
	c.now = c.now.Add(time.Second)
	if _, err := ref.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if c.perAtt[2][0] != "boot:9092" {
		t.Fatalf("after REBOOTSTRAP_REQUIRED: %v, want the bootstrap server first", c.perAtt[2])
	}
}

// TestLookupTopicRefreshesStaleView: a topic the view has not seen yet is
// looked up after a refresh, not declared unknown; a topic that does not
// exist is unknown only after a refresh made after the question.
func TestLookupTopicRefreshesStaleView(t *testing.T) {
	c := &fakeCluster{now: t0, ports: map[int32]int{1: 1}, boot: map[string]bool{"boot:9092": true}, topics: []string{"orders"}}
	ref, _ := newRebootstrapRig(c, 5)
	ctx := context.Background()
	if _, err := ref.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	c.topics = append(c.topics, "payments") // created after the last refresh
	if _, ok, err := ref.LookupTopic(ctx, "orders"); !ok || err != nil || c.attempt != 1 {
		t.Fatalf("known topic: %v %v, %d refreshes (want none)", ok, err, c.attempt)
	}
	c.now = c.now.Add(10 * time.Millisecond) // within MinInterval: LookupTopic waits it out
	tp, ok, err := ref.LookupTopic(ctx, "payments")
	if !ok || err != nil || tp.Name() != "payments" || c.attempt != 2 {
		t.Fatalf("new topic: %v %v, %d refreshes", ok, err, c.attempt)
	}
	_, ok, err = ref.LookupTopic(ctx, "nope")
	if ok || err != nil || c.attempt != 3 {
		t.Fatalf("absent topic: %v %v, %d refreshes (want one more)", ok, err, c.attempt)
	}
	c.mu.Lock()
	c.ports, c.boot = map[int32]int{}, map[string]bool{}
	c.mu.Unlock()
	if _, ok, err := ref.LookupTopic(ctx, "other"); ok || err == nil {
		t.Fatalf("unreachable cluster: %v %v, want the refresh's error", ok, err)
	}
}

// TestLookupTopicIDRefreshesStaleView: a topic id (Produce and Fetch v13+,
// KIP-516) the view has not seen is looked up after one refresh made after
// the question; an id the cluster does not have is unknown after it.
func TestLookupTopicIDRefreshesStaleView(t *testing.T) {
	c := &fakeCluster{now: t0, ports: map[int32]int{1: 1}, boot: map[string]bool{"boot:9092": true}, topics: []string{"orders"}}
	ref, _ := newRebootstrapRig(c, 6)
	ctx := context.Background()
	if _, err := ref.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.topics = append(c.topics, "payments") // id {2}, created after the last refresh
	c.mu.Unlock()
	if tp, ok, err := ref.LookupTopicID(ctx, record.UUID{1}); !ok || err != nil || tp.Name() != "orders" || c.attempt != 1 {
		t.Fatalf("known id: %v %v, %d refreshes (want none)", ok, err, c.attempt)
	}
	tp, ok, err := ref.LookupTopicID(ctx, record.UUID{2})
	if !ok || err != nil || tp.Name() != "payments" || c.attempt != 2 {
		t.Fatalf("new id: %v %v, %d refreshes (want 2)", ok, err, c.attempt)
	}
	if _, ok, err := ref.LookupTopicID(ctx, record.UUID{9}); ok || err != nil || c.attempt != 3 {
		t.Fatalf("absent id: %v %v, %d refreshes (want one more)", ok, err, c.attempt)
	}
}
