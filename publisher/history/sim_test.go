package history_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher/history"
)

func writeSim(t *testing.T, sim *deltatest.Simulator, opts deltatest.WriteDirOptions) string {
	t.Helper()
	dir, err := sim.WriteDir(t.TempDir(), opts)
	require.NoError(t, err)
	return dir
}

// leadersMovedAt returns, for the partition events appended at time ms,
// the partitions whose leader changed and from which leader.
func leadersMovedAt(h *history.History, ms int64) map[string][2]int32 {
	out := map[string][2]int32{}
	for _, p := range h.Partitions() {
		for _, ev := range p.Events {
			if ev.At.AppendTime == ms && ev.Changed&history.FieldLeader != 0 && ev.Changed&history.Created == 0 {
				out[fmt.Sprintf("%s-%d", p.Topic, p.Partition)] = [2]int32{ev.Before.Leader, ev.After.Leader}
			}
		}
	}
	return out
}

func ledBy(img *image.Image, broker int32) map[string]bool {
	out := map[string]bool{}
	for tp := range img.Topics().All() {
		for p := range tp.Partitions() {
			if p.Leader() == broker {
				out[fmt.Sprintf("%s-%d", tp.Name(), p.ID())] = true
			}
		}
	}
	return out
}

// TestSimulatorCrashHistory: the simulator's own events (a crash at t, the
// fencing after the 9 s session timeout, the leaders it moves; a controlled
// shutdown) are what the history of the directory it writes says.
func TestSimulatorCrashHistory(t *testing.T) {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 6, 3)
	require.NoError(t, sim.Advance(time.Second))
	crashAt := sim.Now()
	beforeCrash := sim.Image()
	require.NoError(t, sim.CrashBroker(2))
	require.NoError(t, sim.Advance(15*time.Second))
	afterFence := sim.Image()
	require.NoError(t, sim.ControlledShutdown(3))
	final := sim.Image()
	dir := writeSim(t, sim, deltatest.WriteDirOptions{})

	h, err := history.Read(dir, history.Options{})
	require.NoError(t, err)
	b2, ok := h.Broker(2)
	require.True(t, ok)
	require.Len(t, b2.Intervals, 3)
	assert.Equal(t, []history.BrokerState{history.StateFenced, history.StateUnfenced, history.StateFenced},
		[]history.BrokerState{b2.Intervals[0].State, b2.Intervals[1].State, b2.Intervals[2].State})
	fence := b2.Intervals[2]
	assert.True(t, fence.Open)
	lag := fence.From.Time().Sub(crashAt)
	// Fenced once its last heartbeat is more than 9 s old, by the
	// controller's check that runs every 9 s / 8.
	assert.GreaterOrEqual(t, lag, 9*time.Second, "fenced after the session timeout")
	assert.LessOrEqual(t, lag, 9*time.Second+2*time.Second+9*time.Second/8, "fenced within a heartbeat and a check period of it")

	moved := leadersMovedAt(h, fence.From.AppendTime)
	want := ledBy(beforeCrash, 2)
	require.NotEmpty(t, want)
	assert.Len(t, moved, len(want), "every leadership of broker 2 moved in the fencing batch, nothing else")
	for tp := range want {
		m, ok := moved[tp]
		if assert.True(t, ok, tp) {
			assert.Equal(t, int32(2), m[0])
			assert.False(t, ledBy(afterFence, 2)[tp])
			assert.True(t, ledBy(afterFence, m[1])[tp], "%s: the history's new leader is the simulator's", tp)
		}
	}

	b3, _ := h.Broker(3)
	var states []history.BrokerState
	for _, iv := range b3.Intervals {
		states = append(states, iv.State)
	}
	assert.Equal(t, []history.BrokerState{history.StateFenced, history.StateUnfenced, history.StateShuttingDown, history.StateFenced}, states)
	assert.Equal(t, 2, b3.Fencings)
	sd := b3.Intervals[2].From.AppendTime
	for tp, m := range leadersMovedAt(h, sd) {
		assert.Equal(t, int32(3), m[0], tp)
		assert.True(t, ledBy(final, m[1])[tp])
	}
	assert.Len(t, leadersMovedAt(h, sd), len(ledBy(afterFence, 3)))
}

// TestReconnectionStormHistory: scenario 1 of the simulator (a broker
// leading many partitions crashes): the history's fencing is the
// scenario's detection time, and every leadership it moves is the
// scenario's.
func TestReconnectionStormHistory(t *testing.T) {
	sc, err := deltatest.ReconnectionStorm(7, 40)
	require.NoError(t, err)
	dir := writeSim(t, sc.Sim, deltatest.WriteDirOptions{SegmentBatches: 50})
	h, err := history.Read(dir, history.Options{})
	require.NoError(t, err)
	b, ok := h.Broker(sc.Broker)
	require.True(t, ok)
	last := b.Intervals[len(b.Intervals)-1]
	assert.Equal(t, history.StateFenced, last.State)
	// The scenario advances the clock 100 ms at a time until the broker is
	// fenced: Detected is the end of the step in which it was.
	assert.LessOrEqual(t, last.From.AppendTime, sc.Detected.UnixMilli())
	assert.Greater(t, last.From.AppendTime, sc.Detected.UnixMilli()-100)

	n := 0
	for _, p := range h.Partitions() {
		for _, ev := range p.Events {
			if ev.At.AppendTime != last.From.AppendTime || ev.Changed&history.FieldLeader == 0 {
				continue
			}
			n++
			before, _ := sc.Before.Topics().Partition(p.TopicID, p.Partition)
			after, _ := sc.After.Topics().Partition(p.TopicID, p.Partition)
			assert.Equal(t, sc.Broker, before.Leader())
			assert.Equal(t, after.Leader(), ev.After.Leader)
			assert.Equal(t, after.ISR(), ev.After.ISR)
		}
	}
	assert.Len(t, ledBy(sc.Before, sc.Broker), n)
	assert.Positive(t, n)
}

// TestLimit: with a limit each list keeps its newest entries and counts
// the dropped ones; the counters count everything.
func TestLimit(t *testing.T) {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 1, 3)
	for i := 0; i < 10; i++ {
		require.NoError(t, sim.FenceBroker(1))
		require.NoError(t, sim.UnfenceBroker(1))
		require.NoError(t, sim.ExpandISR("orders", 0, 1))
		require.NoError(t, sim.ElectPreferredLeader("orders", 0))
	}
	dir := writeSim(t, sim, deltatest.WriteDirOptions{})
	all, err := history.Read(dir, history.Options{Limit: -1})
	require.NoError(t, err)
	lim, err := history.Read(dir, history.Options{Limit: 3})
	require.NoError(t, err)

	pa, pl := all.PartitionsOf("orders")[0], lim.PartitionsOf("orders")[0]
	require.Greater(t, len(pa.Events), 3)
	assert.Len(t, pl.Events, 3)
	assert.Equal(t, len(pa.Events)-3, pl.Dropped)
	assert.Equal(t, pa.Events[len(pa.Events)-3:], pl.Events, "the newest events")
	assert.Equal(t, pa.LeaderChanges, pl.LeaderChanges)
	leader, _, _ := sim.Image().Leader("orders", 0)
	require.Equal(t, int32(1), leader)
	assert.Equal(t, 20, pa.LeaderChanges, "away from broker 1 and back, ten times")

	ba, _ := all.Broker(1)
	bl, _ := lim.Broker(1)
	assert.Equal(t, ba.Fencings, bl.Fencings)
	assert.Len(t, bl.Events, 3)
	assert.Len(t, bl.Intervals, 3)
	assert.Equal(t, ba.Intervals[len(ba.Intervals)-3:], bl.Intervals)
	assert.Equal(t, len(ba.Events)-3+len(ba.Intervals)-3, bl.Dropped)
	assert.Zero(t, pa.Dropped)
}
