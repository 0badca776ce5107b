package dirfollow_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/delta/deltatest/kafkalog"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// stepLimit is how long a follower may take to reach the image of a fresh
// Load after a step; past it the test fails as a hang.
const stepLimit = 15 * time.Second

// cluster is a simulated controller whose committed batches a kafkalog.Log
// writes as they come.
type cluster struct {
	sim  *deltatest.Simulator
	done int // batches written
	n    int // churn operations so far
	last string
}

func newCluster(t testing.TB, seed int64) *cluster {
	t.Helper()
	s, err := deltatest.New(deltatest.Config{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddBrokers(3); err != nil {
		t.Fatal(err)
	}
	return &cluster{sim: s}
}

// churn runs n controller operations: topics created, configs set, leaders
// moved.
func (c *cluster) churn(t testing.TB, n int, tag string) {
	t.Helper()
	for range n {
		c.n++
		name := fmt.Sprintf("%s-%d", tag, c.n)
		var err error
		switch c.n % 3 {
		case 0, 1:
			_, err = c.sim.CreateTopic(deltatest.TopicSpec{Name: name, Partitions: 2, ReplicationFactor: 2})
			c.last = name
		case 2:
			if c.last == "" {
				_, err = c.sim.CreateTopic(deltatest.TopicSpec{Name: name, Partitions: 1, ReplicationFactor: 1})
				c.last = name
				break
			}
			err = c.sim.SetTopicConfig(c.last, "retention.ms", fmt.Sprint(c.n))
		}
		if err != nil {
			t.Fatalf("churn %s: %v", name, err)
		}
	}
}

// write appends the batches committed since the last write.
func (c *cluster) write(t testing.TB, l *kafkalog.Log) {
	t.Helper()
	bs := c.sim.Batches()
	if err := l.AppendSim(bs[c.done:]...); err != nil {
		t.Fatal(err)
	}
	c.done = len(bs)
}

// pending returns the encoded batches not yet written, without writing them.
func (c *cluster) pending(t testing.TB) [][]byte {
	var out [][]byte
	bs := c.sim.Batches()
	for i := c.done; i < len(bs); i++ {
		b, err := metalog.AppendDecoded(nil, &bs[i])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// gate is a publisher that, when closed, holds the follower inside a
// commit, so that a test can change the directory while the follower is
// behind.
type gate struct {
	held    atomic.Pointer[chan struct{}]
	entered chan struct{}
}

func (g *gate) Name() string { return "gate" }
func (g *gate) Close() error { return nil }
func (g *gate) OnUpdate(publisher.Update) error {
	if c := g.held.Load(); c != nil {
		select {
		case g.entered <- struct{}{}:
		default:
		}
		<-*c
	}
	return nil
}

// follower runs dirfollow.Follow on dir in its own goroutine.
type follower struct {
	dir    string
	l      *publisher.Loader
	cache  *publisher.Cache
	gate   *gate
	cancel context.CancelFunc
	done   chan error
	mu     sync.Mutex
	errs   []error
}

func startFollower(t *testing.T, dir string) *follower {
	t.Helper()
	f := &follower{dir: dir, gate: &gate{entered: make(chan struct{}, 1)}, done: make(chan error, 1)}
	f.l = publisher.NewLoader(publisher.Config{FaultHandler: func(*publisher.Loader, *publisher.Fault) {}})
	f.cache = publisher.NewCache("")
	if err := f.l.Install(f.cache); err != nil {
		t.Fatal(err)
	}
	if err := f.l.Install(f.gate); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	go func() {
		f.done <- dirfollow.Follow(ctx, f.l, dir, dirfollow.Options{Poll: time.Millisecond, MaxPoll: 10 * time.Millisecond,
			OnError: func(err error) {
				f.mu.Lock()
				f.errs = append(f.errs, err)
				f.mu.Unlock()
			}})
	}()
	t.Cleanup(func() {
		f.release()
		cancel()
		select {
		case err := <-f.done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Follow returned %v", err)
			}
		case <-time.After(stepLimit):
			t.Errorf("Follow did not return after its context ended")
		}
		f.l.Close()
	})
	return f
}

func (f *follower) errors() []error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]error(nil), f.errs...)
}

// hold makes the follower stop inside its next publication and waits
// until it has.
func (f *follower) hold(t *testing.T, trigger func()) {
	t.Helper()
	c := make(chan struct{})
	f.gate.held.Store(&c)
	trigger()
	select {
	case <-f.gate.entered:
	case <-time.After(stepLimit):
		t.Fatal("the follower did not publish")
	}
}

func (f *follower) release() {
	if c := f.gate.held.Swap(nil); c != nil {
		close(*c)
	}
}

func imageJSON(img *image.Image) string {
	if img == nil {
		return "<no image published>"
	}
	var b bytes.Buffer
	if err := image.WriteJSON(&b, img, image.WriteJSONOptions{Unredacted: true}); err != nil {
		return "error: " + err.Error()
	}
	return b.String()
}

// freshLoad is the image a new loader builds from the directory as it is.
func freshLoad(t *testing.T, dir string) string {
	t.Helper()
	l := publisher.NewLoader(publisher.Config{FaultHandler: func(*publisher.Loader, *publisher.Fault) {}})
	defer l.Close()
	c := publisher.NewCache("")
	if err := l.Install(c); err != nil {
		t.Fatal(err)
	}
	err := dirfollow.Load(l, dir)
	var le *dirfollow.LoadError
	if err != nil && !(errors.As(err, &le) && onlyTail(le)) {
		t.Fatalf("fresh Load of %s: %v", dir, err)
	}
	return imageJSON(c.Load())
}

func onlyTail(le *dirfollow.LoadError) bool {
	for _, p := range le.Problems {
		if !errors.Is(p, metalog.ErrIncompleteTail) {
			return false
		}
	}
	return true
}

// settle waits until the follower's image is the image of a fresh Load of
// the directory, failing the test after stepLimit.
func (f *follower) settle(t *testing.T, step string, l *kafkalog.Log) {
	t.Helper()
	want := freshLoad(t, f.dir)
	deadline := time.Now().Add(stepLimit)
	for {
		got := imageJSON(f.cache.Load())
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			files := ""
			if l != nil {
				files = l.Files()
			}
			t.Fatalf("after %s: within %v the follower did not reach the image of a fresh Load (files: %s; errors: %v)\nfollower: %.600s\nfresh:    %.600s",
				step, stepLimit, files, f.errors(), got, want)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustSnapshot(t *testing.T, l *kafkalog.Log, c *cluster) metalog.SnapshotID {
	t.Helper()
	id, err := l.Snapshot(c.sim.Image())
	must(t, err)
	return id
}

// directoryStates are the states of a live metadata directory a follower
// must get through (KafkaMetadataLog's segments, snapshots and retention as
// a node writes them), each run from a fresh log.
var directoryStates = []struct {
	name string
	run  func(t *testing.T)
}{
	{"empty active segment alone", func(t *testing.T) {
		dir, c, l := newStateLog(t, 0)
		f := startFollower(t, dir)
		f.settle(t, "start", l)
		c.write(t, l)
		f.settle(t, "first batches", l)
	}},
	{"empty active segment after a full segment", func(t *testing.T) {
		dir, c, l := newStateLog(t, 0)
		c.churn(t, 4, "a")
		c.write(t, l)
		must(t, l.Roll())
		f := startFollower(t, dir)
		f.settle(t, "start", l)
		c.churn(t, 2, "b")
		c.write(t, l)
		f.settle(t, "batches in the new segment", l)
	}},
	{"empty active segment after a snapshot at its base offset", func(t *testing.T) {
		dir, c, l := newStateLog(t, 0)
		c.churn(t, 4, "a")
		c.write(t, l)
		mustSnapshot(t, l, c)
		must(t, l.TruncateFullyAndStartAt(l.EndOffset()))
		f := startFollower(t, dir)
		f.settle(t, "start", l)
		c.churn(t, 2, "b")
		c.write(t, l)
		f.settle(t, "batches after the snapshot", l)
	}},
	{"partial batch at the tail, later completed", func(t *testing.T) {
		dir, c, l := newStateLog(t, 0)
		c.churn(t, 3, "a")
		c.write(t, l)
		f := startFollower(t, dir)
		f.settle(t, "start", l)
		c.churn(t, 1, "b")
		bs := c.pending(t)
		must(t, l.AppendPartial(bs[0], len(bs[0])/2))
		f.settle(t, "half a batch", l)
		must(t, l.Complete())
		c.done++
		c.write(t, l)
		f.settle(t, "batch completed", l)
	}},
	{"segment roll while the follower sits at the end of the old one", func(t *testing.T) {
		dir, c, l := newStateLog(t, 2<<10)
		c.churn(t, 3, "a")
		c.write(t, l)
		f := startFollower(t, dir)
		f.settle(t, "start", l)
		must(t, l.Roll())
		f.settle(t, "roll", l)
		c.churn(t, 3, "b")
		c.write(t, l)
		f.settle(t, "batches in the new segment", l)
		c.churn(t, 40, "c") // rolls by size
		c.write(t, l)
		f.settle(t, "rolls by size", l)
		if len(l.Segments()) < 3 {
			t.Fatalf("segments %v: the writer did not roll by size", l.Segments())
		}
	}},
	{"snapshot being written, renamed, retention while the follower is at the end", func(t *testing.T) {
		dir, c, l := newStateLog(t, 2<<10)
		c.churn(t, 20, "a")
		c.write(t, l)
		f := startFollower(t, dir)
		f.settle(t, "start", l)
		sw, err := l.StartSnapshot(c.sim.Image())
		must(t, err)
		f.settle(t, ".checkpoint.part written", l)
		id, err := sw.Freeze()
		must(t, err)
		f.settle(t, "snapshot frozen", l)
		must(t, l.DeleteBeforeSnapshot(id))
		f.settle(t, "segments below the snapshot deleted", l)
		c.churn(t, 5, "b")
		c.write(t, l)
		f.settle(t, "batches after retention", l)
	}},
	{"retention while the follower is behind", func(t *testing.T) {
		dir, c, l := newStateLog(t, 1<<10)
		c.churn(t, 10, "a")
		c.write(t, l)
		f := startFollower(t, dir)
		f.settle(t, "start", l)
		f.hold(t, func() {
			c.churn(t, 1, "b")
			c.write(t, l)
		})
		// The follower is inside a commit: the log runs ahead, a
		// snapshot is taken and the segments below it deleted.
		c.churn(t, 30, "c")
		c.write(t, l)
		id := mustSnapshot(t, l, c)
		c.churn(t, 2, "d")
		c.write(t, l)
		must(t, l.Roll())
		must(t, l.DeleteBeforeSnapshot(id))
		f.release()
		f.settle(t, "release after retention", l)
	}},
	{"tail truncated and rewritten with other batches", func(t *testing.T) {
		dir, c, l := newStateLog(t, 0)
		other := newCluster(t, 17)
		c.churn(t, 6, "a")
		other.churn(t, 6, "a")
		c.write(t, l)
		other.done = c.done
		f := startFollower(t, dir)
		f.settle(t, "start", l)
		div := l.EndOffset()
		c.churn(t, 4, "uncommitted")
		c.write(t, l)
		f.settle(t, "suffix appended", l)
		end, err := l.TruncateTo(div)
		must(t, err)
		if end != div {
			t.Fatalf("truncated to %d, want %d", end, div)
		}
		other.churn(t, 6, "rewritten")
		other.write(t, l)
		f.settle(t, "truncated and rewritten", l)
	}},
	{"tail truncated across a segment and rewritten", func(t *testing.T) {
		dir, c, l := newStateLog(t, 1<<10)
		other := newCluster(t, 17)
		c.churn(t, 6, "a")
		other.churn(t, 6, "a")
		c.write(t, l)
		other.done = c.done
		div := l.EndOffset()
		c.churn(t, 20, "uncommitted")
		c.write(t, l)
		f := startFollower(t, dir)
		f.settle(t, "start", l)
		_, err := l.TruncateTo(div)
		must(t, err)
		f.settle(t, "truncated", l)
		other.churn(t, 3, "rewritten")
		other.write(t, l)
		f.settle(t, "rewritten", l)
	}},
	{"directory deleted, then replaced", func(t *testing.T) {
		dir, c, l := newStateLog(t, 0)
		c.churn(t, 4, "a")
		c.write(t, l)
		f := startFollower(t, dir)
		f.settle(t, "start", l)
		before := imageJSON(f.cache.Load())
		l.Close()
		must(t, os.RemoveAll(dir))
		deadline := time.Now().Add(stepLimit)
		for len(f.errors()) == 0 {
			if time.Now().After(deadline) {
				t.Fatal("no error reported for the deleted directory")
			}
			time.Sleep(2 * time.Millisecond)
		}
		if err := f.errors()[0]; !strings.Contains(err.Error(), dir) {
			t.Errorf("error %q does not name the directory", err)
		}
		if got := imageJSON(f.cache.Load()); got != before {
			t.Errorf("the last good image was not kept")
		}
		// Another node's directory is put in its place.
		tmp := dir + ".new"
		c2 := newCluster(t, 99)
		l2, err := kafkalog.Create(tmp, 0, kafkalog.Config{})
		must(t, err)
		c2.churn(t, 5, "z")
		c2.write(t, l2)
		l2.Close()
		must(t, os.Rename(tmp, dir))
		f.settle(t, "directory replaced", nil)
	}},
}

// newStateLog creates a metadata log of segments of seg bytes (0: the
// default) in a fresh directory, with the cluster that writes it.
func newStateLog(t *testing.T, seg int64) (string, *cluster, *kafkalog.Log) {
	dir := filepath.Join(t.TempDir(), metalog.MetadataPartitionDir)
	c := newCluster(t, 17)
	l, err := kafkalog.Create(dir, 0, kafkalog.Config{SegmentBytes: seg})
	must(t, err)
	t.Cleanup(func() { l.Close() })
	return dir, c, l
}

// TestFollowEveryDirectoryState: a follower goroutine reads a directory
// while a Kafka-like writer (delta/deltatest/kafkalog, driven by the simulator)
// takes it through every state Kafka's log layer leaves it in; after each
// step the follower's image is the image a fresh Load of the directory
// builds, within stepLimit. Run under -race: readers and the writer work at
// the same time.
func TestFollowEveryDirectoryState(t *testing.T) {
	for _, tc := range directoryStates {
		t.Run(tc.name, tc.run)
	}
}
