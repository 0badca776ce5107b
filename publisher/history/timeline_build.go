package history

import (
	"cmp"
	"slices"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// maxLeadersKept is how many of a partition's last leaders a row keeps.
const maxLeadersKept = 12

// timelineBuilder gathers a Timeline from the Builder's replay: the
// Builder calls it before and after each log batch, after the starting
// snapshot, and with every partition event as the History records it.
type timelineBuilder struct {
	t           *Timeline
	diff        image.DiffOptions
	deletedRows int

	prev   *image.Image // the image at the end of the last moment
	bucket int          // the bucket of the last batch, -1 before the first
	lastT  int64        // the append time of the last batch

	leaderless int
	seed       int   // partitions without a leader when the first batch came
	offEnd     []int // per bucket, leaderless partitions after its last batch (-1: none)
	started    bool
}

// partTrack is what a row needs beyond the PartitionHistory.
type partTrack struct {
	since   int64 // -1 while led
	ms      int64
	leaders []int32
	last    int64
}

func newTimelineBuilder(t *Timeline, opts TimelineOptions) *timelineBuilder {
	n := len(t.LeaderChanges)
	tb := &timelineBuilder{t: t, bucket: -1, offEnd: make([]int, n),
		deletedRows: orDefault(opts.DeletedRows, 2000), prev: image.Empty(),
		diff: image.DiffOptions{Sensitive: redact.IsSensitive, Unredacted: opts.Unredacted, Limit: orDefault(opts.MomentDiffs, 40)}}
	for i := range tb.offEnd {
		tb.offEnd[i] = -1
	}
	return tb
}

// snapshotLoaded starts the moments from the image of the starting
// snapshot.
func (tb *timelineBuilder) snapshotLoaded(img *image.Image) {
	if !tb.started {
		tb.prev = img
	}
}

// beforeBatch ends the current bucket when batch falls in another one, and
// follows the raft epochs.
func (tb *timelineBuilder) beforeBatch(b *Builder, batch *metalog.Batch) error {
	t := tb.t
	if !tb.started {
		tb.started, tb.seed = true, tb.leaderless
	}
	at := batch.AppendTime()
	bk := t.Bucket(at)
	if bk != tb.bucket {
		if err := tb.flush(b); err != nil {
			return err
		}
		tb.bucket = bk
		t.Leaderless[bk] = max(t.Leaderless[bk], tb.leaderless)
	}
	if n := len(t.RaftEpochs); n == 0 || t.RaftEpochs[n-1].Epoch != batch.PartitionLeaderEpoch {
		t.RaftEpochs = append(t.RaftEpochs, RaftEpoch{Start: at, Epoch: batch.PartitionLeaderEpoch, Leader: -1, Offset: batch.BaseOffset})
	}
	if t.FirstOffset < 0 {
		t.FirstOffset = batch.BaseOffset
	}
	t.LastOffset = batch.LastOffset()
	t.Batches++
	t.Records += len(batch.Entries)
	return nil
}

// afterBatch records the partitions without a leader after batch.
func (tb *timelineBuilder) afterBatch(b *Builder, batch *metalog.Batch) {
	bk := tb.bucket
	tb.t.Leaderless[bk] = max(tb.t.Leaderless[bk], tb.leaderless)
	tb.offEnd[bk] = tb.leaderless
	tb.lastT = batch.AppendTime()
}

// flush ends the current bucket: a moment when the image differs from the
// one at the end of the last moment.
func (tb *timelineBuilder) flush(b *Builder) error {
	img, err := b.Image()
	if err != nil {
		return err
	}
	if img == tb.prev {
		return nil
	}
	ds, total := image.DiffTotal(tb.prev, img, tb.diff)
	if total > 0 {
		tb.t.Moments = append(tb.t.Moments, Moment{Time: tb.lastT, From: tb.prev.Provenance().LastContainedOffset,
			Offset: img.Provenance().LastContainedOffset, Bucket: tb.bucket, Diff: ds, More: total - len(ds)})
	}
	tb.prev = img
	return nil
}

// partition follows one partition event: leader changes and ISR shrinks
// per bucket, the time without a leader, the last leaders.
func (tb *timelineBuilder) partition(ph *PartitionHistory, ev *PartitionEvent) {
	t := tb.t
	pt := ph.track
	if pt == nil {
		pt = &partTrack{since: -1}
		ph.track = pt
	}
	at := ev.At.AppendTime
	bk := t.Bucket(at)
	switch {
	case ev.Changed&Created != 0:
		pt.leaders, pt.last = append(pt.leaders[:0], ev.After.Leader), at
	case ev.LeaderChanged():
		pt.leaders = append(pt.leaders, ev.After.Leader)
		if len(pt.leaders) > maxLeadersKept {
			pt.leaders = pt.leaders[len(pt.leaders)-maxLeadersKept:]
		}
		pt.last = at
		t.LeaderChanges[bk]++
	}
	if ev.ISRShrank() {
		t.ISRShrinks[bk]++
	}
	wasOff := ev.Before.Exists() && ev.Before.Leader == image.NoLeader
	isOff := ev.After.Exists() && ev.After.Leader == image.NoLeader
	switch {
	case isOff && !wasOff:
		pt.since = at
		tb.leaderless++
	case wasOff && !isOff:
		pt.ms += at - pt.since
		pt.since = -1
		tb.leaderless--
	}
}

// finish fills the timeline from the finished History.
func (tb *timelineBuilder) finish(h *History) {
	t := tb.t
	if !tb.started {
		tb.seed = tb.leaderless
	}
	carry := tb.seed
	for i, n := range t.Leaderless {
		if n < 0 {
			t.Leaderless[i] = carry
		}
		if tb.offEnd[i] >= 0 {
			carry = tb.offEnd[i]
		}
	}
	leaders := map[int32]int32{}
	for _, rl := range h.RaftLeaders {
		leaders[rl.Epoch] = rl.LeaderID
	}
	for i := range t.RaftEpochs {
		if l, ok := leaders[t.RaftEpochs[i].Epoch]; ok {
			t.RaftEpochs[i].Leader = l
		}
	}
	tb.lanes(h)
	tb.rows(h)
	tot := &t.Totals
	for _, th := range h.Topics() {
		for _, e := range th.Events {
			switch e.Kind {
			case TopicCreated:
				tot.TopicsCreated++
			case TopicDeleted:
				tot.TopicsDeleted++
			}
		}
	}
	tot.Brokers, tot.RaftEpochs, tot.Moments, tot.LeaderlessNow = len(t.Brokers), len(t.RaftEpochs), len(t.Moments), tb.leaderless
}

// lanes sets the brokers' lanes from their intervals.
func (tb *timelineBuilder) lanes(h *History) {
	t := tb.t
	for _, bh := range h.Brokers() {
		l := BrokerLane{ID: bh.ID, Fencings: bh.Fencings, Registrations: bh.Registrations}
		for _, iv := range bh.Intervals {
			to := iv.To.AppendTime
			if iv.Open {
				to = t.End
			}
			from := max(iv.From.AppendTime, t.Start)
			if to <= from {
				continue
			}
			if n := len(l.Spans); n > 0 && l.Spans[n-1].State == iv.State && l.Spans[n-1].To == from {
				l.Spans[n-1].To = to // a new epoch in the same state
			} else {
				l.Spans = append(l.Spans, LaneSpan{From: from, To: to, State: iv.State})
			}
			switch iv.State {
			case StateFenced:
				l.FencedMs += to - from
			case StateShuttingDown:
				l.Shutdowns++
			}
		}
		t.Totals.Fencings += bh.Fencings
		t.Totals.Registrations += bh.Registrations
		t.Brokers = append(t.Brokers, l)
	}
}

// rows sets one row per partition history: the latest deletedRows rows of
// deleted topics, every live one.
func (tb *timelineBuilder) rows(h *History) {
	t := tb.t
	var live, deleted []PartitionRow
	for _, ph := range h.Partitions() {
		r := PartitionRow{Topic: ph.Topic, TopicID: ph.TopicID, Partition: ph.Partition, LeaderChanges: ph.LeaderChanges, ISRShrinks: ph.ISRShrinks}
		t.Totals.LeaderChanges += ph.LeaderChanges
		t.Totals.ISRShrinks += ph.ISRShrinks
		if pt := ph.track; pt != nil {
			r.LeaderlessMs, r.Leaders, r.LastLeaderChange = pt.ms, pt.leaders, pt.last
			if pt.since >= 0 {
				r.LeaderlessMs += t.End - pt.since
			}
		}
		s := ph.Current()
		if n := len(ph.Events); n > 0 && ph.Events[n-1].Changed&Deleted != 0 {
			before := ph.Events[n-1].Before
			r.Leader, r.LeaderEpoch, r.ISR, r.Deleted = before.Leader, -1, before.ISR, true
			deleted = append(deleted, r)
			continue
		}
		r.Leader, r.LeaderEpoch, r.ISR = s.Leader, s.LeaderEpoch, s.ISR
		live = append(live, r)
	}
	if n := len(deleted) - tb.deletedRows; tb.deletedRows > 0 && n > 0 {
		// Keep the latest deletions.
		slices.SortStableFunc(deleted, func(a, b PartitionRow) int { return cmp.Compare(deletedAt(h, a), deletedAt(h, b)) })
		t.Totals.DeletedRowsLeftOut = n
		deleted = deleted[n:]
	}
	t.Partitions = append(live, deleted...)
	slices.SortStableFunc(t.Partitions, func(a, b PartitionRow) int {
		if c := cmp.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Partition, b.Partition); c != 0 {
			return c
		}
		switch {
		case !a.Deleted && b.Deleted:
			return -1
		case a.Deleted && !b.Deleted:
			return 1
		}
		return 0
	})
	for i := range t.Partitions {
		if t.Partitions[i].ISR == nil {
			t.Partitions[i].ISR = []int32{}
		}
	}
	t.Totals.Partitions = len(t.Partitions)
}

// deletedAt is the offset at which a deleted row's topic was deleted.
func deletedAt(h *History, r PartitionRow) int64 {
	ph, _ := h.Partition(r.TopicID, r.Partition)
	return ph.Events[len(ph.Events)-1].At.Offset
}
