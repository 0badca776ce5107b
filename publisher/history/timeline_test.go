package history_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/publisher/history"
)

// TestReadTimelineSeed4: the timeline of a simulated incident (brokers
// crash, are fenced and come back; topics are created and deleted) is the
// history's: its totals are the sums of the History's counters, its per
// bucket counts add up to them, every moment's differences are
// image.DiffTotal of the images at its two ends (history.ImageAt), and each
// broker lane's spans are in order within the time range.
func TestReadTimelineSeed4(t *testing.T) {
	sim := deltatest.MustNew(deltatest.Config{Seed: 4, NoOpInterval: 5 * time.Second})
	require.NoError(t, sim.AddBrokers(4, "a", "b"))
	sim.MustCreateTopic("orders", 8, 3)
	for i := range 4 {
		id := int32(i%4 + 1)
		require.NoError(t, sim.CrashBroker(id))
		require.NoError(t, sim.Advance(12*time.Second))
		require.NoError(t, sim.RegisterBroker(deltatest.BrokerSpec{ID: id, Rack: "a"}))
		require.NoError(t, sim.Advance(5*time.Second))
		sim.MustCreateTopic(fmt.Sprintf("t%d", i), 3, 2)
		if i > 0 {
			require.NoError(t, sim.DeleteTopic(fmt.Sprintf("t%d", i-1)))
		}
	}
	dir := writeSim(t, sim, deltatest.WriteDirOptions{SegmentBatches: 10})
	tl, err := history.ReadTimeline(dir, history.TimelineOptions{Buckets: 50, MomentDiffs: 3})
	require.NoError(t, err)
	h, err := history.Read(dir, history.Options{})
	require.NoError(t, err)

	var changes, shrinks, fencings int
	for _, p := range h.Partitions() {
		changes += p.LeaderChanges
		shrinks += p.ISRShrinks
	}
	for _, b := range h.Brokers() {
		fencings += b.Fencings
	}
	require.Positive(t, changes)
	require.Positive(t, fencings)
	assert.Equal(t, changes, tl.Totals.LeaderChanges)
	assert.Equal(t, shrinks, tl.Totals.ISRShrinks)
	assert.Equal(t, fencings, tl.Totals.Fencings)
	sum := func(xs []int) (n int) {
		for _, x := range xs {
			n += x
		}
		return n
	}
	assert.Equal(t, changes, sum(tl.LeaderChanges))
	assert.Equal(t, shrinks, sum(tl.ISRShrinks))
	assert.Len(t, tl.Leaderless, 50)
	for _, n := range tl.Leaderless {
		assert.GreaterOrEqual(t, n, 0)
	}
	assert.Equal(t, 4, tl.Totals.Brokers)
	assert.Equal(t, 5, tl.Totals.TopicsCreated)
	assert.Equal(t, 3, tl.Totals.TopicsDeleted)
	for _, b := range tl.Brokers {
		for i, s := range b.Spans {
			assert.Less(t, s.From, s.To, "broker %d span %d", b.ID, i)
			assert.GreaterOrEqual(t, s.From, tl.Start)
			assert.LessOrEqual(t, s.To, tl.End)
			if i > 0 {
				assert.LessOrEqual(t, b.Spans[i-1].To, s.From)
			}
		}
	}

	checkMoments(t, dir, tl)
	var rows, deleted int
	for _, r := range tl.Partitions {
		rows++
		if r.Deleted {
			deleted++
			assert.Equal(t, int32(-1), r.LeaderEpoch)
		}
	}
	assert.Equal(t, 8+3+3*3, rows, "every partition, deleted ones too")
	assert.Equal(t, 3*3, deleted)
	checkRows(t, h, tl)
}

// checkRows asserts that each row of the timeline is its partition's
// history as Read gathers it: its counts, and its last state (the state
// before the deletion for a deleted one).
func checkRows(t *testing.T, h *history.History, tl *history.Timeline) {
	t.Helper()
	require.Len(t, tl.Partitions, len(h.Partitions()))
	for _, r := range tl.Partitions {
		ph, ok := h.Partition(r.TopicID, r.Partition)
		require.True(t, ok, "%s-%d", r.Topic, r.Partition)
		assert.Equal(t, ph.LeaderChanges, r.LeaderChanges, "%s-%d", r.Topic, r.Partition)
		assert.Equal(t, ph.ISRShrinks, r.ISRShrinks, "%s-%d", r.Topic, r.Partition)
		last := ph.Events[len(ph.Events)-1]
		want := last.After
		if r.Deleted {
			require.NotZero(t, last.Changed&history.Deleted, "%s-%d", r.Topic, r.Partition)
			want = last.Before
			want.LeaderEpoch = -1
		}
		assert.Equal(t, want.Leader, r.Leader, "%s-%d", r.Topic, r.Partition)
		assert.Equal(t, want.LeaderEpoch, r.LeaderEpoch, "%s-%d", r.Topic, r.Partition)
		if want.ISR == nil {
			want.ISR = []int32{}
		}
		assert.Equal(t, want.ISR, r.ISR, "%s-%d", r.Topic, r.Partition)
	}
}

// checkMoments asserts that every moment's differences are image.DiffTotal
// of the images at its two ends (MomentDiffs 3).
func checkMoments(t *testing.T, dir string, tl *history.Timeline) {
	t.Helper()
	var err error
	require.NotEmpty(t, tl.Moments)
	opts := image.DiffOptions{Sensitive: redact.IsSensitive, Limit: 3}
	for _, m := range tl.Moments {
		a := image.Empty()
		if m.From >= 0 {
			a, err = history.ImageAt(dir, history.AtOffset(m.From))
			require.NoError(t, err)
		}
		b, err := history.ImageAt(dir, history.AtOffset(m.Offset))
		require.NoError(t, err)
		ds, total := image.DiffTotal(a, b, opts)
		assert.Equal(t, ds, m.Diff, "moment at offset %d", m.Offset)
		assert.Equal(t, total-len(ds), m.More, "moment at offset %d", m.Offset)
		assert.Positive(t, total)
	}
}
