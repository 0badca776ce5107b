package dirfollow_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/delta/deltatest/kafkalog"
	"github.com/kmeta-go/kmeta/internal/benchtest"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

var soak = flag.Bool("dirfollow.soak", false, "run the one-simulated-hour soak of a live follower (BENCHMARKS.md)")

// heap returns the live heap after two collections.
func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestSoakFollowOneHour (behind -dirfollow.soak): one simulated hour of
// churn on 3 000 partitions (a broker fenced and unfenced every 9 s, every
// leadership moving with it, preferred leaders rebalanced), written by
// delta/deltatest/kafkalog with a segment roll every 4 MiB, a snapshot every
// 20 MiB of log with retention deleting the segments and snapshots below
// it, and two truncations of an uncommitted suffix, while a live follower
// reads. At the end the follower's image is a fresh Load's; with the
// simulator and writer dropped, the heap the follower holds is within 2×
// of the image's own size (the heap a fresh Load's loader and image hold);
// and an idle follower at the end of the log uses almost no CPU.
func TestSoakFollowOneHour(t *testing.T) {
	if !*soak {
		t.Skip("run with -dirfollow.soak")
	}
	dir := filepath.Join(t.TempDir(), metalog.MetadataPartitionDir)
	base := heap()

	// The follower.
	l := publisher.NewLoader(publisher.Config{FaultHandler: func(*publisher.Loader, *publisher.Fault) {}})
	cache := publisher.NewCache("")
	if err := l.Install(cache); err != nil {
		t.Fatal(err)
	}
	w, err := kafkalog.Create(dir, 0, kafkalog.Config{SegmentBytes: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errs := make(chan error, 100)
	done := make(chan error, 1)
	go func() {
		done <- dirfollow.Follow(ctx, l, dir, dirfollow.Options{OnError: func(err error) {
			select {
			case errs <- err:
			default:
			}
		}})
	}()

	c := &soakChurn{t: t, sim: soakSimulator(t), w: w, l: l}
	start := c.sim.Now()
	for step := 0; c.sim.Now().Sub(start) < time.Hour; step++ {
		c.step(step)
	}
	t.Logf("log written: %d MiB in %d batches, %d snapshots, %d truncations, segments now %v", c.logBytes>>20, c.written, c.snapshots, c.truncations, w.Segments())
	if c.snapshots < 2 || c.truncations < 2 {
		t.Fatalf("the soak did not reach its churn: %d snapshots, %d truncations", c.snapshots, c.truncations)
	}
	want := freshLoad(t, dir)
	deadline := time.Now().Add(2 * time.Minute)
	for imageJSON(cache.Load()) != want {
		if time.Now().After(deadline) {
			t.Fatalf("the follower did not reach the fresh Load's image (errors: %d)", len(errs))
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case err := <-errs:
		t.Errorf("the follower reported %v", err)
	default:
	}
	w.Close()
	c, w = nil, nil
	_ = c

	checkIdleFollower(t, dir, base)
	cancel()
	<-done
	runtime.KeepAlive(cache)
}

// soakSimulator is the soak's cluster: 3 brokers and 30 topics of 100
// partitions, 3 replicas each.
func soakSimulator(t *testing.T) *deltatest.Simulator {
	sim, err := deltatest.New(deltatest.Config{Seed: 2026})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.AddBrokers(3); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		sim.MustCreateTopic(fmt.Sprintf("t%02d", i), 100, 3)
	}
	return sim
}

// soakChurn drives the soak's writer: the simulator's batches appended to
// w as they come, with snapshots, retention and truncations on the way.
type soakChurn struct {
	t                      *testing.T
	sim                    *deltatest.Simulator
	w                      *kafkalog.Log
	l                      *publisher.Loader // the follower's, to wait for it
	written                int               // the simulator's batches appended
	logBytes, sinceSnap    int64
	snapshots, truncations int
}

// step is 9 simulated seconds: a broker fenced (heartbeats unfence it),
// every fourth step the preferred leaders rebalanced, the new batches
// written, a snapshot every 20 MiB and a truncation every 15 MiB (twice).
func (c *soakChurn) step(step int) {
	t := c.t
	id := int32(step%3 + 1)
	if err := c.sim.FenceBroker(id); err != nil {
		t.Fatal(err)
	}
	if err := c.sim.Advance(9 * time.Second); err != nil { // heartbeats unfence it
		t.Fatal(err)
	}
	if step%4 == 3 {
		if err := c.sim.BalanceLeaders(); err != nil && !errors.Is(err, deltatest.ErrElectionNotNeeded) {
			t.Fatal(err)
		}
	}
	n := c.pendingBytes()
	c.write()
	c.logBytes += n
	c.sinceSnap += n
	if c.sinceSnap >= 20<<20 {
		c.snapshot()
	}
	if c.truncations < 2 && c.logBytes > int64(c.truncations+1)*15<<20 {
		c.truncate()
	}
}

// pendingBytes is the size of the simulator's batches not written yet.
func (c *soakChurn) pendingBytes() int64 {
	var n int64
	for _, b := range c.sim.Batches()[c.written:] {
		data, _ := metalog.AppendDecoded(nil, &b)
		n += int64(len(data))
	}
	return n
}

// write appends the simulator's batches not written yet.
func (c *soakChurn) write() {
	bs := c.sim.Batches()
	if err := c.w.AppendSim(bs[c.written:]...); err != nil {
		c.t.Fatal(err)
	}
	c.written = len(bs)
}

// snapshot writes a snapshot of the simulator's image and deletes what is
// below it.
func (c *soakChurn) snapshot() {
	id, err := c.w.Snapshot(c.sim.Image())
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.w.DeleteBeforeSnapshot(id); err != nil {
		c.t.Fatal(err)
	}
	c.sinceSnap = 0
	c.snapshots++
}

// truncate appends an uncommitted suffix (a topic the quorum never
// commits), waits for the follower to read it, and truncates it as the raft
// client does.
func (c *soakChurn) truncate() {
	t := c.t
	div := c.w.EndOffset()
	for i := range 3 {
		if err := c.w.Append(orphanBatch(t, div+int64(2*i), int32(100+c.truncations))); err != nil {
			t.Fatal(err)
		}
	}
	// Truncate only once the follower has loaded the suffix.
	for wait := time.Now().Add(time.Minute); c.l.Stats().Loaded.LastContainedOffset < div+5; {
		if time.Now().After(wait) {
			t.Fatalf("the follower did not read the suffix at %d (at %v)", div, c.l.Stats().Loaded)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := c.w.TruncateTo(div); err != nil {
		t.Fatal(err)
	}
	c.truncations++
}

// checkIdleFollower checks the follower at the end of the log of dir: the
// CPU it uses over two seconds of polls, and the heap it holds above base
// against the heap a fresh Load's loader and image hold (within 2×).
func checkIdleFollower(t *testing.T, dir string, base uint64) {
	time.Sleep(3 * time.Second) // the poll interval backs off
	cpu0 := benchtest.ProcessCPU()
	time.Sleep(2 * time.Second)
	idle := benchtest.ProcessCPU() - cpu0
	follower := heap() - base

	// The image's own size: a fresh Load's loader and image.
	l2 := publisher.NewLoader(publisher.Config{})
	c2 := publisher.NewCache("")
	l2.Install(c2)
	before := heap()
	if err := dirfollow.Load(l2, dir); err != nil {
		t.Fatal(err)
	}
	own := heap() - before
	runtime.KeepAlive(c2.Load())
	t.Logf("follower heap %d KiB, image %d KiB (%.2f×); idle CPU %v over 2 s", follower>>10, own>>10, float64(follower)/float64(own), idle)
	if follower > 2*own {
		t.Errorf("the follower holds %d KiB, more than twice the image's %d KiB", follower>>10, own>>10)
	}
	if idle > 100*time.Millisecond {
		t.Errorf("an idle follower used %v of CPU in 2 s", idle)
	}
}

// orphanBatch is a data batch at offset holding a TopicRecord and its
// PartitionRecord for a topic no controller committed.
func orphanBatch(t *testing.T, offset int64, epoch int32) []byte {
	tr := record.NewTopicRecord()
	tr.Name, tr.TopicID = fmt.Sprintf("uncommitted-%d", offset), record.UUID{0xee, byte(offset), byte(offset >> 8)}
	pr := record.NewPartitionRecord()
	pr.TopicID, pr.PartitionID, pr.Leader, pr.Replicas, pr.ISR = tr.TopicID, 0, 1, []int32{1}, []int32{1}
	b := metalog.NewBatchBuilder(offset, epoch, 0)
	if err := b.AppendRecord(tr, tr.HighestVersion()); err != nil {
		t.Fatal(err)
	}
	if err := b.AppendRecord(pr, pr.HighestVersion()); err != nil {
		t.Fatal(err)
	}
	data, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return data
}
