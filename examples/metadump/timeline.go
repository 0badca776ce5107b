package main

import (
	_ "embed"

	"github.com/kmeta-go/kmeta/publisher/history"
)

// -timeline: what happened over the log (history.ReadTimeline, one replay
// with the history), printed as text (timeline_write.go) or drawn as one
// self-contained HTML report (timeline.html, with the timeline as JSON in
// the shape below).

//go:embed timeline.html
var timelineHTML string

// Broker lane states as timeline.html draws them.
const (
	laneRegistered = 0 // registered and unfenced
	laneFenced     = 1 // fenced (BrokerRegistration.fenced)
	laneShutdown   = 2 // in controlled shutdown (BrokerRegistration.inControlledShutdown)
)

// timeline is a history.Timeline in the JSON shape timeline.html reads.
type timeline struct {
	Source      string      `json:"source"`
	Start       int64       `json:"start"` // ms, first append time
	End         int64       `json:"end"`   // ms, last append time
	FirstOffset int64       `json:"firstOffset"`
	LastOffset  int64       `json:"lastOffset"`
	Batches     int         `json:"batches"`
	Records     int         `json:"records"`
	BucketMs    float64     `json:"bucketMs"`
	Brokers     []lane      `json:"brokers"`
	Raft        []raftEpoch `json:"raft"`
	Leader      []int       `json:"leaderChanges"` // per bucket
	Shrinks     []int       `json:"isrShrinks"`    // per bucket
	Offline     []int       `json:"offline"`       // per bucket, the most partitions without a leader
	Moments     []moment    `json:"moments"`
	Partitions  []partRow   `json:"-"`
	// Topics and Rows are Partitions as the report carries them: one array
	// per partition, its topic an index into Topics (see timeline.html).
	Topics []string       `json:"topics"`
	Rows   [][]any        `json:"rows"`
	Totals map[string]int `json:"totals"`

	tl *history.Timeline
}

// lane is one broker's states over time: segments [start ms, end ms, state].
type lane struct {
	ID   int32      `json:"id"`
	Segs [][3]int64 `json:"segs"`
}

// raftEpoch is one KRaft leader epoch (history.RaftEpoch).
type raftEpoch struct {
	Start  int64 `json:"start"`
	Epoch  int32 `json:"epoch"`
	Leader int32 `json:"leader"`
	Offset int64 `json:"offset"`
}

// moment is one bucket in which the image changed (history.Moment), its
// differences as the shell's diff prints them.
type moment struct {
	T      int64    `json:"t"`      // ms, append time of the last batch in it
	From   int64    `json:"from"`   // last offset of the image before
	Offset int64    `json:"offset"` // last offset of the image after
	Bucket int      `json:"bucket"`
	Diff   []string `json:"diff"`
	More   int      `json:"more,omitempty"` // diff lines left out
}

// partRow is one partition's leadership over the log (history.PartitionRow).
type partRow struct {
	Topic     string
	Partition int32
	Leader    int32
	Epoch     int32
	ISR       []int32
	Changes   int
	Shrinks   int
	OfflineMs int64
	Leaders   []int32 // the last leaders, oldest first
	Last      int64   // ms of the last leader change
	Deleted   bool
}

// buildTimeline reads the timeline of path (history.ReadTimeline). On an
// error it returns what was read before it with the error.
func buildTimeline(path string, unredacted bool) (*timeline, error) {
	tl, err := history.ReadTimeline(path, history.TimelineOptions{Options: history.Options{Unredacted: unredacted}})
	if tl == nil {
		return nil, err
	}
	return reportOf(path, tl), err
}

// reportOf puts tl in the report's shape.
func reportOf(path string, tl *history.Timeline) *timeline {
	t := &timeline{Source: path, Start: tl.Start, End: tl.End, FirstOffset: tl.FirstOffset, LastOffset: tl.LastOffset,
		Batches: tl.Batches, Records: tl.Records, BucketMs: tl.BucketMs, Leader: tl.LeaderChanges, Shrinks: tl.ISRShrinks,
		Offline: tl.Leaderless, Brokers: []lane{}, Raft: []raftEpoch{}, Moments: []moment{}, tl: tl}
	for _, b := range tl.Brokers {
		l := lane{ID: b.ID, Segs: [][3]int64{}}
		for _, s := range b.Spans {
			l.Segs = append(l.Segs, [3]int64{s.From, s.To, laneState(s.State)})
		}
		t.Brokers = append(t.Brokers, l)
	}
	for _, r := range tl.RaftEpochs {
		t.Raft = append(t.Raft, raftEpoch(r))
	}
	for _, m := range tl.Moments {
		t.Moments = append(t.Moments, moment{T: m.Time, From: m.From, Offset: m.Offset, Bucket: m.Bucket, Diff: diffLines(m.Diff), More: m.More})
	}
	for _, r := range tl.Partitions {
		t.Partitions = append(t.Partitions, partRow{Topic: r.Topic, Partition: r.Partition, Leader: r.Leader, Epoch: r.LeaderEpoch, ISR: r.ISR,
			Changes: r.LeaderChanges, Shrinks: r.ISRShrinks, OfflineMs: r.LeaderlessMs, Leaders: r.Leaders, Last: r.LastLeaderChange, Deleted: r.Deleted})
	}
	tot := tl.Totals
	t.Totals = map[string]int{"leaderChanges": tot.LeaderChanges, "isrShrinks": tot.ISRShrinks, "fencings": tot.Fencings,
		"registrations": tot.Registrations, "topicsCreated": tot.TopicsCreated, "topicsDeleted": tot.TopicsDeleted,
		"brokers": tot.Brokers, "partitions": tot.Partitions, "raftEpochs": tot.RaftEpochs, "moments": tot.Moments,
		"offlineNow": tot.LeaderlessNow}
	if tot.DeletedRowsLeftOut > 0 {
		t.Totals["deletedRowsLeftOut"] = tot.DeletedRowsLeftOut
	}
	t.packRows()
	return t
}

func laneState(s history.BrokerState) int64 {
	switch s {
	case history.StateFenced:
		return laneFenced
	case history.StateShuttingDown:
		return laneShutdown
	}
	return laneRegistered
}

// packRows sets Topics and Rows, the partitions as the report carries them
// (see timeline.html).
func (t *timeline) packRows() {
	idx := map[string]int{}
	for _, r := range t.Partitions {
		i, ok := idx[r.Topic]
		if !ok {
			i = len(t.Topics)
			idx[r.Topic] = i
			t.Topics = append(t.Topics, r.Topic)
		}
		del := 0
		if r.Deleted {
			del = 1
		}
		leaders := r.Leaders
		if leaders == nil {
			leaders = []int32{}
		}
		t.Rows = append(t.Rows, []any{i, r.Partition, r.Leader, r.Epoch, r.ISR, r.Changes, r.Shrinks, r.OfflineMs, leaders, r.Last, del})
	}
	if t.Rows == nil {
		t.Rows, t.Topics = [][]any{}, []string{}
	}
}
