package history

import (
	"errors"
	"io"
	"time"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// DefaultBuckets is the number of equal time buckets of a Timeline when
// TimelineOptions.Buckets is 0.
const DefaultBuckets = 600

// TimelineOptions tune ReadTimeline. The zero value gives the defaults.
type TimelineOptions struct {
	// Options tune the replay as they tune Read's (Limit bounds the
	// broker intervals, topic events and raft leaders the timeline is
	// made from); Unredacted also shows secrets in the moments'
	// differences.
	Options
	// Buckets is the number of equal time buckets the log's time range
	// is cut into; 0 means DefaultBuckets.
	Buckets int
	// MomentDiffs is the most differences a moment keeps (Moment.More
	// counts the rest); 0 means 40, a negative value keeps all.
	MomentDiffs int
	// DeletedRows is the most rows of partitions of deleted topics kept
	// (the latest deletions; Totals.DeletedRowsLeftOut counts the rest);
	// 0 means 2000, a negative value keeps all.
	DeletedRows int
}

func (o TimelineOptions) buckets() int {
	if o.Buckets > 0 {
		return o.Buckets
	}
	return DefaultBuckets
}

func orDefault(n, def int) int {
	switch {
	case n == 0:
		return def
	case n < 0:
		return 0 // no limit
	}
	return n
}

// Timeline is what happened over a log, cut into equal time buckets: the
// brokers' states, the raft leader epochs, leader changes, ISR shrinks and
// partitions without a leader per bucket, the moments (buckets in which
// the image changed, with the image diff of each) and one row per
// partition. Its counts are the History's (PartitionEvent.LeaderChanged,
// PartitionEvent.ISRShrank, BrokerHistory.Fencings), so every tool that
// prints one prints the same number.
type Timeline struct {
	// Start and End are the first and last append times (ms), widened to
	// the starting snapshot's time.
	Start, End int64
	// FirstOffset is the starting snapshot's last contained offset, else
	// the first batch's base offset; LastOffset the last offset read.
	FirstOffset, LastOffset int64
	// Batches and Records count the log batches read (snapshot excluded).
	Batches, Records int
	// BucketMs is the length of a bucket in milliseconds.
	BucketMs float64
	// LeaderChanges and ISRShrinks count the events of each bucket;
	// Leaderless is the most partitions without a leader in each.
	LeaderChanges, ISRShrinks, Leaderless []int
	// Brokers is one lane per broker id, by id.
	Brokers []BrokerLane
	// RaftEpochs lists the raft leader epochs in log order.
	RaftEpochs []RaftEpoch
	// Moments lists the buckets in which the image changed.
	Moments []Moment
	// Partitions is one row per partition of each topic id, by topic name
	// and partition, a live row before a deleted one.
	Partitions []PartitionRow
	// Totals are the counts over the whole log.
	Totals TimelineTotals
}

// Bucket is the bucket of an append time (clamped into the first or last).
func (t *Timeline) Bucket(ms int64) int {
	n := len(t.LeaderChanges)
	i := int(float64(ms-t.Start) / t.BucketMs)
	return max(0, min(i, n-1))
}

// BrokerLane is one broker's states over time.
type BrokerLane struct {
	ID int32
	// Spans are its registered states in order (unregistered time has
	// none); the last one of a broker still registered ends at End.
	Spans []LaneSpan
	// Fencings and Registrations are the BrokerHistory's counts.
	Fencings, Registrations int
	// Shutdowns counts its controlled shutdowns (KIP-841 spans).
	Shutdowns int
	// FencedMs is the time it spent fenced.
	FencedMs int64
}

// LaneSpan is a span of append time (ms) in one broker state.
type LaneSpan struct {
	From, To int64
	State    BrokerState
}

// RaftEpoch is one KRaft leader epoch: from its first batch, with the
// leader its LeaderChange control record names (-1 when the log holds
// none).
type RaftEpoch struct {
	Start  int64 // ms, the append time of its first batch
	Epoch  int32
	Leader int32
	Offset int64 // its first batch's base offset
}

// Moment is one bucket in which the image changed: the differences of the
// image after its last batch from the image after the previous moment
// (image.DiffTotal, secrets redacted as Kafka's Normal criterion unless
// Unredacted).
type Moment struct {
	Time   int64 // ms, the append time of the last batch in it
	From   int64 // last offset of the image before
	Offset int64 // last offset of the image after
	Bucket int
	Diff   []image.Difference
	More   int // differences left out by MomentDiffs
}

// PartitionRow is one partition's leadership over the log.
type PartitionRow struct {
	Topic     string
	TopicID   record.UUID
	Partition int32
	// Leader, LeaderEpoch and ISR are the final state; for a deleted
	// topic, the leader and ISR before its deletion and LeaderEpoch -1.
	Leader, LeaderEpoch int32
	ISR                 []int32
	// LeaderChanges and ISRShrinks are the PartitionHistory's counts.
	LeaderChanges, ISRShrinks int
	// LeaderlessMs is the time it spent without a leader.
	LeaderlessMs int64
	// Leaders are its last leaders, oldest first (NoLeader included).
	Leaders []int32
	// LastLeaderChange is the append time (ms) of its last leader change
	// (or of its creation).
	LastLeaderChange int64
	Deleted          bool
}

// TimelineTotals are the counts of a Timeline over the whole log.
type TimelineTotals struct {
	LeaderChanges, ISRShrinks, Fencings, Registrations int
	TopicsCreated, TopicsDeleted                       int
	Brokers, Partitions, RaftEpochs, Moments           int
	// LeaderlessNow counts the partitions without a leader at the end.
	LeaderlessNow      int
	DeletedRowsLeftOut int
}

// ReadTimeline reads path as Read does and returns its Timeline (after a
// look at the batch headers of its first batch and last segment for the
// time range). The replay is the History's, lean: it counts as Read counts
// (PartitionEvent.LeaderChanged, PartitionEvent.ISRShrank,
// BrokerHistory.Fencings) but keeps no partition events and runs no
// checks; call Read for those. On an error it returns what was read before
// it with the error, as Read does.
func ReadTimeline(path string, opts TimelineOptions) (*Timeline, error) {
	l, err := openLog(path, nil)
	if err != nil {
		return nil, err
	}
	defer l.close()
	t := &Timeline{FirstOffset: -1, LastOffset: -1}
	found := timeRange(l, &t.Start, &t.End)
	snapOffset, snapTime := int64(-1), int64(0)
	if l.snap != nil {
		snapOffset, snapTime = l.snap.LastContainedLogOffset(), l.snap.LastContainedLogTimestamp()
	}
	t.setBuckets(opts.buckets(), snapOffset, snapTime, !found)
	b := NewBuilder(BuilderConfig(opts.Options))
	b.lean, b.chk.off = true, true
	b.tl = newTimelineBuilder(t, opts)
	err = l.feed(b, nil)
	if ferr := b.tl.flush(b); err == nil {
		err = ferr
	}
	h := b.Finish()
	if t.LastOffset < 0 {
		t.LastOffset = snapOffset
	}
	b.tl.finish(h)
	return t, err
}

// setBuckets widens the time range to the starting snapshot's time (all of
// it when no batch was found) and sizes the per-bucket counts.
func (t *Timeline) setBuckets(n int, snapOffset, snapTime int64, noBatch bool) {
	if snapOffset >= 0 {
		t.FirstOffset = snapOffset
		if noBatch || (snapTime > 0 && snapTime < t.Start) {
			t.Start = snapTime
		}
		if noBatch || t.End < t.Start {
			t.End = max(t.End, t.Start)
		}
	}
	span := t.End - t.Start
	if span <= 0 {
		span = 1000
		t.End = t.Start + span
	}
	t.BucketMs = float64(span+1) / float64(n)
	t.LeaderChanges = make([]int, n)
	t.ISRShrinks = make([]int, n)
	t.Leaderless = make([]int, n)
	for i := range t.Leaderless {
		t.Leaderless[i] = -1 // no batch in the bucket yet: filled forward in finish
	}
}

// timeRange sets start to the append time of the first batch l reads and
// end to the latest append time in its last segment; it reports whether
// there is any batch. It reads batch headers only, and stops quietly at
// damage: the replay after it reports that.
func timeRange(l *Log, start, end *int64) bool {
	segs := l.segments
	if len(segs) == 0 {
		return false
	}
	found := false
	scan := func(path string, all bool) {
		seg, err := metalog.OpenSegment(metalog.OS{}, path, metalog.Finished)
		if err != nil {
			return
		}
		defer seg.Close()
		for {
			b, err := seg.Next()
			if errors.Is(err, io.EOF) || err != nil {
				return
			}
			if b.LastOffset() < l.start {
				continue
			}
			at := b.AppendTime()
			if !found {
				*start, *end, found = at, at, true
			}
			*start, *end = min(*start, at), max(*end, at)
			if !all {
				return
			}
		}
	}
	scan(segs[0], len(segs) == 1)
	if len(segs) > 1 {
		scan(segs[len(segs)-1], true)
	}
	return found
}

// Duration is the timeline's time range.
func (t *Timeline) Duration() time.Duration {
	return time.Duration(t.End-t.Start) * time.Millisecond
}
