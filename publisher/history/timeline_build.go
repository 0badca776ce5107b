package history

import (
	"cmp"
	"slices"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/record"
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

// partTrack is what a row needs beyond the PartitionHistory's counts (the
// builder is lean: it keeps no events).
type partTrack struct {
	started bool  // set by the first event
	since   int64 // -1 while led
	ms      int64
	leaders []int32
	last    int64
	// leader, epoch and isr are the last state; for a deleted partition,
	// the state before its deletion (epoch -1), deletedAt the offset of
	// the deletion.
	leader, epoch int32
	isr           []int32
	deleted       bool
	deletedAt     int64
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

// partition follows one partition event (shrank: ev.ISRShrank, as the
// history counted it): leader changes and ISR shrinks per bucket, the time
// without a leader, the last leaders.
func (tb *timelineBuilder) partition(ph *PartitionHistory, ev *PartitionEvent, shrank bool) {
	t := tb.t
	pt := &ph.track
	if !pt.started {
		pt.started, pt.since = true, -1
	}
	if ev.Changed&Deleted != 0 {
		pt.leader, pt.epoch, pt.isr, pt.deleted, pt.deletedAt = ev.Before.Leader, -1, ev.Before.ISR, true, ev.At.Offset
	} else {
		pt.leader, pt.epoch, pt.isr, pt.deleted = ev.After.Leader, ev.After.LeaderEpoch, ev.After.ISR, false
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
	if shrank {
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

// rows sets one row per partition history: every live one, and the
// latest deletedRows rows of deleted topics. They are ordered by topic
// name and partition, a live row before a deleted one, then by topic id;
// deleted rows, when some were left out, by deletion before topic id.
func (tb *timelineBuilder) rows(h *History) {
	t := tb.t
	keys := rowKeys(h)
	deleted := 0
	for i := range keys {
		ph := keys[i].ph
		t.Totals.LeaderChanges += ph.LeaderChanges
		t.Totals.ISRShrinks += ph.ISRShrinks
		if keys[i].deleted {
			deleted++
		}
	}
	byDeletion := false
	if n := deleted - tb.deletedRows; tb.deletedRows > 0 && n > 0 {
		// Keep the latest deletions (History.Partitions' order among
		// deletions at one offset).
		slices.SortFunc(keys, func(a, b rowKey) int {
			if a.deleted != b.deleted {
				return boolOrder(a.deleted, b.deleted)
			}
			if c := cmp.Compare(a.deletedAt, b.deletedAt); c != 0 {
				return c
			}
			if c := cmp.Compare(a.id, b.id); c != 0 {
				return c
			}
			return cmp.Compare(a.part, b.part)
		})
		live := len(keys) - deleted
		keys = append(keys[:live], keys[live+n:]...)
		t.Totals.DeletedRowsLeftOut, byDeletion = n, true
	}
	slices.SortFunc(keys, func(a, b rowKey) int {
		if c := cmp.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(a.part, b.part); c != 0 {
			return c
		}
		if a.deleted != b.deleted {
			return boolOrder(a.deleted, b.deleted)
		}
		if c := cmp.Compare(a.deletedAt, b.deletedAt); byDeletion && a.deleted && c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	t.Partitions = make([]PartitionRow, len(keys))
	for i := range keys {
		t.Partitions[i] = tb.row(keys[i].ph)
	}
	t.Totals.Partitions = len(t.Partitions)
}

// rowKey is what rows sorts a partition history by: integers, so that
// sorting tens of thousands of them reads no string and follows no
// pointer.
type rowKey struct {
	ph        *PartitionHistory
	deletedAt int64
	// name ranks the topic's name, id the topic's (name, id) among the
	// topics of the partitions.
	name, id int32
	part     int32
	deleted  bool
}

// rowKeys returns the keys of h's partition histories, ranks set.
func rowKeys(h *History) []rowKey {
	type topic struct {
		name string
		id   record.UUID
		rank int32
	}
	index := map[record.UUID]int32{}
	var topics []topic
	keys := make([]rowKey, 0, h.partitions.len())
	h.partitions.each(func(_ TopicPartition, ph *PartitionHistory) bool {
		i, ok := index[ph.TopicID]
		if !ok {
			i = int32(len(topics))
			index[ph.TopicID] = i
			topics = append(topics, topic{name: ph.Topic, id: ph.TopicID})
		}
		keys = append(keys, rowKey{ph: ph, deletedAt: ph.track.deletedAt, id: i, part: ph.Partition, deleted: ph.track.deleted})
		return true
	})
	order := make([]int32, len(topics))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(topics[a].name, topics[b].name); c != 0 {
			return c
		}
		return compareUUID(topics[a].id, topics[b].id)
	})
	names := make([]int32, len(topics))
	for r, i := range order {
		topics[i].rank = int32(r)
		names[i] = int32(r)
		if r > 0 && topics[order[r-1]].name == topics[i].name {
			names[i] = names[order[r-1]]
		}
	}
	for k := range keys {
		i := keys[k].id
		keys[k].id, keys[k].name = topics[i].rank, names[i]
	}
	return keys
}

// row is the row of a partition's history.
func (tb *timelineBuilder) row(ph *PartitionHistory) PartitionRow {
	pt := &ph.track
	r := PartitionRow{Topic: ph.Topic, TopicID: ph.TopicID, Partition: ph.Partition, LeaderChanges: ph.LeaderChanges, ISRShrinks: ph.ISRShrinks,
		Leader: pt.leader, LeaderEpoch: pt.epoch, ISR: pt.isr, Deleted: pt.deleted,
		LeaderlessMs: pt.ms, Leaders: pt.leaders, LastLeaderChange: pt.last}
	if pt.since >= 0 {
		r.LeaderlessMs += tb.t.End - pt.since
	}
	if r.ISR == nil {
		r.ISR = []int32{}
	}
	return r
}

// boolOrder orders false before true.
func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
