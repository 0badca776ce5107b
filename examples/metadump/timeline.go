package main

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/history"
	"github.com/kmeta-go/kmeta/record"
)

// The timeline of a metadata log: what -timeline prints and what
// -timeline -o report.html draws. It is built in one pass over the log
// (after a look at its first batch and its last segment for the time
// range), replayed through
// kmeta's loader as MetadataLoader replays it, so that the image at every
// moment of the report is the image a broker would have had.

//go:embed timeline.html
var timelineHTML string

// Broker lane states, as BrokerRegistration's fenced and
// inControlledShutdown flags combine.
const (
	laneRegistered = 0 // registered and unfenced
	laneFenced     = 1 // fenced (BrokerRegistration.fenced)
	laneShutdown   = 2 // in controlled shutdown (BrokerRegistration.inControlledShutdown)
)

// timelineBuckets is how many equal time buckets the density charts have.
const timelineBuckets = 600

// maxDeletedRows caps the rows kept for partitions of deleted topics (the
// latest deletions are kept; the rest are counted in Totals).
const maxDeletedRows = 2000

// maxMomentLines caps the diff lines kept for one moment; the rest are
// counted.
const maxMomentLines = 40

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
}

// lane is one broker's states over time: segments [start ms, end ms, state].
type lane struct {
	ID   int32      `json:"id"`
	Segs [][3]int64 `json:"segs"`
}

// raftEpoch is one KRaft leader epoch: from its first batch's append time,
// with the leader its LeaderChange control record names (-1 when the log
// holds none).
type raftEpoch struct {
	Start  int64 `json:"start"`
	Epoch  int32 `json:"epoch"`
	Leader int32 `json:"leader"`
	Offset int64 `json:"offset"`
}

// moment is one bucket in which the image changed: the diff of the image at
// its end against the image at the end of the previous moment.
type moment struct {
	T      int64    `json:"t"`      // ms, append time of the last batch in it
	From   int64    `json:"from"`   // last offset of the image before
	Offset int64    `json:"offset"` // last offset of the image after
	Bucket int      `json:"bucket"`
	Diff   []string `json:"diff"`
	More   int      `json:"more,omitempty"` // diff lines left out
}

// partRow is one partition's leadership over the log.
type partRow struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"p"`
	Leader    int32   `json:"leader"`
	Epoch     int32   `json:"epoch"`
	ISR       []int32 `json:"isr"`
	Changes   int     `json:"changes"`
	Shrinks   int     `json:"shrinks"`
	OfflineMs int64   `json:"offlineMs"`
	Leaders   []int32 `json:"leaders"` // the last leaders, oldest first
	Last      int64   `json:"last"`    // ms of the last leader change
	Deleted   bool    `json:"deleted,omitempty"`
}

type tp struct {
	topic record.UUID
	part  int32
}

type partState struct {
	row          *partRow
	isr          []int32
	offlineSince int64 // -1 while led
}

type brokerState struct {
	registered, fenced, shutdown bool
	since                        int64
	lane                         *lane
}

func (b *brokerState) state() int64 {
	switch {
	case b.fenced:
		return laneFenced
	case b.shutdown:
		return laneShutdown
	}
	return laneRegistered
}

// timelineBuilder follows the records of the log: partition leaders and
// ISRs as PartitionRecord and PartitionChangeRecord set them
// (PartitionRegistration.merge: leader -2 and a null ISR mean unchanged),
// broker states as RegisterBrokerRecord, BrokerRegistrationChangeRecord,
// FenceBrokerRecord, UnfenceBrokerRecord and UnregisterBrokerRecord set them
// (ClusterDelta.replay), and raft epochs from the batches' partition leader
// epochs and LeaderChange control records.
type timelineBuilder struct {
	t       *timeline
	topics  map[record.UUID]string
	parts   map[tp]*partState
	byTopic map[record.UUID][]tp
	brokers map[int32]*brokerState
	offline int
	now     int64
	bucket  int
	// seedOffline is the number of leaderless partitions of the starting
	// image.
	seedOffline int
	offEnd      []int // per bucket, leaderless partitions after its last batch (-1: none)
}

const maxLeadersKept = 12

func bucketOf(t *timeline, ms int64) int {
	i := int(float64(ms-t.Start) / t.BucketMs)
	return max(0, min(i, timelineBuckets-1))
}

// buildTimeline reads path, choosing its files as history.Read does
// (history.OpenLog: from as far back as the files allow, a snapshot only
// where no segment reaches back before it): the first batch and the last
// segment's batch headers for the time range (timeRange), then every batch,
// replayed through kmeta's loader
// (publisher.Loader in Halt mode: a record Kafka's replay rejects stops the
// report with an error naming it).
func buildTimeline(path string) (*timeline, error) {
	t := &timeline{Source: path, FirstOffset: -1, LastOffset: -1, Totals: map[string]int{}}
	// The time range: the first batch read and the last segment's batches
	// (append times only grow, but a batch out of order is clamped into
	// the first or last bucket).
	hl, err := history.OpenLog(path, nil)
	if err != nil {
		return nil, err
	}
	found, err := timeRange(hl, &t.Start, &t.End)
	hl.Close()
	if err != nil {
		return nil, err
	}

	hl, err = history.OpenLog(path, nil)
	if err != nil {
		return nil, err
	}
	defer hl.Close()
	l := publisher.NewLoader(publisher.Config{ReplayErrors: publisher.Halt})
	defer l.Close()
	if snap, name := hl.Snapshot(); snap != nil {
		if err := l.LoadSnapshotReader(snap); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	start := l.Image()
	t.setBuckets(start, !found)

	tb := &timelineBuilder{t: t, topics: map[record.UUID]string{}, parts: map[tp]*partState{},
		byTopic: map[record.UUID][]tp{}, brokers: map[int32]*brokerState{}, now: t.Start,
		offEnd: slices.Repeat([]int{-1}, timelineBuckets)}
	tb.seed(start)

	r := &timelineReplay{t: t, tb: tb, l: l, prev: start, bucket: -1}
	if err := hl.EachBatch(r.batch); err != nil {
		return nil, err
	}
	if err := r.flush(); err != nil {
		return nil, err
	}
	if t.LastOffset < 0 {
		t.LastOffset = start.Provenance().LastContainedOffset
	}
	final, err := r.image()
	if err != nil {
		return nil, err
	}
	tb.finish(final)
	return t, nil
}

// setBuckets widens the time range to the starting image's snapshot time
// (all of it when no batch was found) and sizes the density charts.
func (t *timeline) setBuckets(start *image.Image, noBatch bool) {
	if p := start.Provenance(); p.LastContainedOffset >= 0 {
		t.FirstOffset = p.LastContainedOffset
		if noBatch || (p.LastContainedLogTimeMs > 0 && p.LastContainedLogTimeMs < t.Start) {
			t.Start = p.LastContainedLogTimeMs
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
	t.BucketMs = float64(span+1) / timelineBuckets
	t.Leader = make([]int, timelineBuckets)
	t.Shrinks = make([]int, timelineBuckets)
	t.Offline = make([]int, timelineBuckets)
	for i := range t.Offline {
		t.Offline[i] = -1 // no batch in the bucket yet: filled forward in finish
	}
}

// timelineReplay feeds the batches of the log to the loader and the
// builder, and records a moment for each bucket in which the image changed.
type timelineReplay struct {
	t      *timeline
	tb     *timelineBuilder
	l      *publisher.Loader
	prev   *image.Image // the image at the end of the last moment
	bucket int          // the bucket of the last batch, -1 before the first
	// changed is whether a record since prev can change the image; dirty
	// whether a batch was loaded since the last commit.
	changed, dirty bool
	lastT          int64 // the append time of the last batch
}

// image is the loader's image after every batch loaded so far.
func (r *timelineReplay) image() (*image.Image, error) {
	if r.dirty {
		if err := r.l.Commit(); err != nil {
			return nil, err
		}
		r.dirty = false
	}
	return r.l.Image(), nil
}

// flush ends the current bucket: a moment when the image differs from prev.
func (r *timelineReplay) flush() error {
	if !r.changed {
		return nil
	}
	img, err := r.image()
	if err != nil {
		return err
	}
	lines, total := diffImages(r.prev, img, maxMomentLines)
	if total > 0 {
		m := moment{T: r.lastT, From: r.prev.Provenance().LastContainedOffset, Offset: img.Provenance().LastContainedOffset, Bucket: r.bucket}
		m.More = total - len(lines)
		m.Diff = lines
		r.t.Moments = append(r.t.Moments, m)
	}
	r.prev = img
	r.changed = false
	return nil
}

// batch is history.Log.EachBatch's callback: it loads b and follows its
// records.
func (r *timelineReplay) batch(file string, b *record.Batch) (bool, error) {
	t, tb := r.t, r.tb
	mb, err := loaderBatch(file, b)
	if err != nil {
		return false, err
	}
	at := b.AppendTime()
	bk := bucketOf(t, at)
	if bk != r.bucket {
		if err := r.flush(); err != nil {
			return false, err
		}
		r.bucket = bk
		t.Offline[bk] = max(t.Offline[bk], tb.offline)
	}
	if err := r.l.LoadBatch(mb); err != nil {
		return false, fmt.Errorf("%s: batch at offset %d: %w", file, b.BaseOffset, err)
	}
	r.dirty = true
	tb.now, tb.bucket = at, bk
	if t.FirstOffset < 0 {
		t.FirstOffset = b.BaseOffset
	}
	t.LastOffset = b.LastOffset()
	t.Batches++
	t.Records += len(b.Entries)
	tb.raft(b, mb.Control)
	for _, rec := range mb.Records {
		if tb.record(rec) {
			r.changed = true
		}
	}
	if tb.offline > t.Offline[bk] {
		t.Offline[bk] = tb.offline
	}
	tb.offEnd[bk] = tb.offline
	r.lastT = at
	return true, nil
}

// loaderBatch decodes b, read from file, into the loader's batch.
func loaderBatch(file string, b *record.Batch) (publisher.Batch, error) {
	mb := publisher.Batch{BaseOffset: b.BaseOffset, Epoch: b.PartitionLeaderEpoch, AppendTime: b.AppendTime(), Size: b.Size()}
	if b.IsControl() {
		for _, e := range b.Entries {
			c, err := e.DecodeControl()
			if err != nil {
				return mb, fmt.Errorf("%s: control record at offset %d: %w", file, e.Offset, err)
			}
			mb.Control = append(mb.Control, c)
		}
		return mb, nil
	}
	recs, err := b.DecodeRecords()
	if err != nil {
		return mb, fmt.Errorf("%s: batch at offset %d: %w", file, b.BaseOffset, err)
	}
	mb.Records = make([]record.Record, len(recs))
	for i, r := range recs {
		mb.Records[i] = r.Record
	}
	return mb, nil
}

// timeRange sets start to the append time of the first batch hl reads and
// end to the latest append time in its last segment; it reports whether
// there is any batch.
func timeRange(hl *history.Log, start, end *int64) (bool, error) {
	segs := hl.Segments()
	if len(segs) == 0 {
		return false, nil
	}
	found := false
	scan := func(path string, all bool) error {
		// As history.Log reads them: a batch cut short at the end of the
		// last segment (a node still writing) is left out.
		last := path == segs[len(segs)-1]
		mode := record.Finished
		if last {
			mode = record.Follow
		}
		seg, err := record.OpenSegment(path, mode)
		if err != nil {
			return err
		}
		defer seg.Close()
		for {
			b, err := seg.Next()
			if errors.Is(err, io.EOF) || (last && errors.Is(err, record.ErrIncompleteTail)) {
				return nil
			}
			if err != nil {
				return err
			}
			if b.LastOffset() < hl.Start() {
				continue
			}
			at := b.AppendTime()
			if !found {
				*start, *end, found = at, at, true
			}
			*start, *end = min(*start, at), max(*end, at)
			if !all {
				return nil
			}
		}
	}
	if err := scan(segs[0], len(segs) == 1); err != nil {
		return false, err
	}
	if len(segs) > 1 {
		if err := scan(segs[len(segs)-1], true); err != nil {
			return false, err
		}
	}
	return found, nil
}

// seed starts the builder's state from the image the log starts from.
func (tb *timelineBuilder) seed(img *image.Image) {
	for b := range img.Cluster().Brokers() {
		bs := tb.broker(b.ID())
		bs.registered, bs.fenced, bs.shutdown, bs.since = true, b.Fenced(), b.InControlledShutdown(), tb.now
	}
	for t := range img.Topics().All() {
		tb.topics[t.ID()] = t.Name()
		for p := range t.Partitions() {
			ps := tb.part(tp{t.ID(), p.ID()})
			ps.row.Leader, ps.row.Epoch, ps.isr = p.Leader(), p.LeaderEpoch(), p.ISR()
			ps.row.Leaders = append(ps.row.Leaders, p.Leader())
			if p.Leader() == image.NoLeader {
				ps.offlineSince = tb.now
				tb.offline++
			}
		}
	}
	tb.seedOffline = tb.offline
}

func (tb *timelineBuilder) broker(id int32) *brokerState {
	b := tb.brokers[id]
	if b == nil {
		b = &brokerState{lane: &lane{ID: id}}
		tb.brokers[id] = b
	}
	return b
}

func (tb *timelineBuilder) part(k tp) *partState {
	ps := tb.parts[k]
	if ps == nil {
		ps = &partState{row: &partRow{Topic: tb.topics[k.topic], Partition: k.part, Leader: image.NoLeader}, offlineSince: -1}
		tb.parts[k] = ps
		tb.byTopic[k.topic] = append(tb.byTopic[k.topic], k)
	}
	return ps
}

// closeSeg ends a broker's current segment at now.
func (tb *timelineBuilder) closeSeg(b *brokerState) {
	if b.registered && tb.now > b.since {
		b.lane.Segs = append(b.lane.Segs, [3]int64{b.since, tb.now, b.state()})
	}
	b.since = tb.now
}

func (tb *timelineBuilder) setBroker(id int32, f func(b *brokerState)) {
	b := tb.broker(id)
	before := *b
	f(b)
	if before.registered != b.registered || before.state() != b.state() {
		save := *b
		*b = before
		tb.closeSeg(b)
		*b = save
		b.since = tb.now
	}
}

func (tb *timelineBuilder) setLeader(ps *partState, leader int32) {
	if leader == ps.row.Leader {
		return
	}
	ps.row.Leader = leader
	ps.row.Changes++
	ps.row.Last = tb.now
	ps.row.Leaders = append(ps.row.Leaders, leader)
	if len(ps.row.Leaders) > maxLeadersKept {
		ps.row.Leaders = ps.row.Leaders[len(ps.row.Leaders)-maxLeadersKept:]
	}
	tb.t.Leader[tb.bucket]++
	tb.t.Totals["leaderChanges"]++
	if leader == image.NoLeader {
		ps.offlineSince = tb.now
		tb.offline++
	} else if ps.offlineSince >= 0 {
		ps.row.OfflineMs += tb.now - ps.offlineSince
		ps.offlineSince = -1
		tb.offline--
	}
}

func (tb *timelineBuilder) setISR(ps *partState, isr []int32) {
	for _, r := range ps.isr {
		if !slices.Contains(isr, r) {
			ps.row.Shrinks++
			tb.t.Shrinks[tb.bucket]++
			tb.t.Totals["isrShrinks"]++
			break
		}
	}
	ps.isr = slices.Clone(isr)
}

// record follows one data record; it reports whether the record can change
// the image (a NoOpRecord cannot).
func (tb *timelineBuilder) record(r record.Record) bool {
	switch r := r.(type) {
	case *record.NoOpRecord:
		return false
	case *record.TopicRecord:
		tb.topics[r.TopicID] = r.Name
		tb.t.Totals["topicsCreated"]++
	case *record.PartitionRecord:
		tb.partitionRecord(r)
	case *record.PartitionChangeRecord:
		ps := tb.parts[tp{r.TopicID, r.PartitionID}]
		if ps == nil {
			return true
		}
		if r.Leader != -2 {
			tb.setLeader(ps, r.Leader)
		}
		if r.ISR != nil {
			tb.setISR(ps, r.ISR)
		}
	case *record.RemoveTopicRecord:
		tb.removeTopic(r.TopicID)
	default:
		tb.brokerRecord(r)
	}
	return true
}

// partitionRecord follows a PartitionRecord: a partition's first leader, or
// a leader change when the partition was seen before.
func (tb *timelineBuilder) partitionRecord(r *record.PartitionRecord) {
	ps := tb.part(tp{r.TopicID, r.PartitionID})
	ps.row.Topic = tb.topics[r.TopicID]
	if ps.row.Changes == 0 && len(ps.row.Leaders) == 0 {
		ps.row.Leaders = append(ps.row.Leaders, r.Leader)
		ps.row.Leader = r.Leader
		ps.row.Last = tb.now
		if r.Leader == image.NoLeader {
			ps.offlineSince = tb.now
			tb.offline++
		}
	} else {
		tb.setLeader(ps, r.Leader)
	}
	tb.setISR(ps, r.ISR)
	ps.row.Epoch = r.LeaderEpoch
}

// removeTopic follows a RemoveTopicRecord: the topic's partitions become
// deleted rows.
func (tb *timelineBuilder) removeTopic(id record.UUID) {
	for _, k := range tb.byTopic[id] {
		ps := tb.parts[k]
		if ps.row.Deleted {
			continue
		}
		if ps.offlineSince >= 0 {
			ps.row.OfflineMs += tb.now - ps.offlineSince
			ps.offlineSince = -1
			tb.offline--
		}
		ps.row.Deleted = true
		// What it was when its topic went: the last ISR seen; the leader
		// epoch is the image's only (shown for live partitions).
		ps.row.ISR = slices.Clone(ps.isr)
		ps.row.Epoch = -1
		// A topic of the same id cannot come back; a new topic of the
		// same name gets new rows.
		delete(tb.parts, k)
		tb.t.Partitions = append(tb.t.Partitions, *ps.row)
	}
	delete(tb.byTopic, id)
	tb.t.Totals["topicsDeleted"]++
}

// brokerRecord follows the records that set a broker's state
// (ClusterDelta.replay); it ignores every other record.
func (tb *timelineBuilder) brokerRecord(r record.Record) {
	switch r := r.(type) {
	case *record.RegisterBrokerRecord:
		tb.setBroker(r.BrokerID, func(b *brokerState) {
			b.registered, b.fenced, b.shutdown = true, r.Fenced, r.InControlledShutdown
		})
		tb.t.Totals["registrations"]++
	case *record.BrokerRegistrationChangeRecord:
		tb.setBroker(r.BrokerID, func(b *brokerState) {
			// BrokerRegistrationFencingChange: 1 FENCE, -1 UNFENCE, 0 NONE;
			// BrokerRegistrationInControlledShutdownChange: 1 IN_CONTROLLED_SHUTDOWN.
			switch r.Fenced {
			case 1:
				b.fenced = true
			case -1:
				b.fenced = false
			}
			if r.InControlledShutdown == 1 {
				b.shutdown = true
			}
		})
		if r.Fenced == 1 {
			tb.t.Totals["fencings"]++
		}
	case *record.FenceBrokerRecord:
		tb.setBroker(r.ID, func(b *brokerState) { b.fenced = true })
		tb.t.Totals["fencings"]++
	case *record.UnfenceBrokerRecord:
		tb.setBroker(r.ID, func(b *brokerState) { b.fenced = false })
	case *record.UnregisterBrokerRecord:
		tb.setBroker(r.BrokerID, func(b *brokerState) { b.registered, b.fenced, b.shutdown = false, false, false })
	}
}

// raft follows the raft leader epoch of each batch (its partition leader
// epoch) and the leader a LeaderChangeMessage names.
func (tb *timelineBuilder) raft(b *record.Batch, ctl []record.ControlRecord) {
	t := tb.t
	if n := len(t.Raft); n == 0 || t.Raft[n-1].Epoch != b.PartitionLeaderEpoch {
		t.Raft = append(t.Raft, raftEpoch{Start: tb.now, Epoch: b.PartitionLeaderEpoch, Leader: -1, Offset: b.BaseOffset})
	}
	for _, c := range ctl {
		if lc, ok := c.(*record.LeaderChangeMessage); ok {
			t.Raft[len(t.Raft)-1].Leader = lc.LeaderID
		}
	}
}

// finish closes the open intervals at the end of the log and takes the final
// leader epochs and ISRs from the final image.
func (tb *timelineBuilder) finish(final *image.Image) {
	t := tb.t
	tb.now = t.End
	tb.fillOffline()
	tb.finishBrokers()
	tb.finishPartitions(final)
	if t.Raft == nil {
		t.Raft = []raftEpoch{}
	}
	if t.Moments == nil {
		t.Moments = []moment{}
	}
	t.packRows()
	t.Totals["brokers"] = len(t.Brokers)
	t.Totals["partitions"] = len(t.Partitions)
	t.Totals["raftEpochs"] = len(t.Raft)
	t.Totals["moments"] = len(t.Moments)
	t.Totals["offlineNow"] = tb.offline
}

// fillOffline fills forward the buckets no batch fell in: each holds the
// leaderless partitions after the last batch before it.
func (tb *timelineBuilder) fillOffline() {
	t := tb.t
	carry := tb.seedOffline
	for i, n := range t.Offline {
		if n < 0 {
			t.Offline[i] = carry
		}
		if tb.offEnd[i] >= 0 {
			carry = tb.offEnd[i]
		}
	}
}

// finishBrokers closes every broker's last segment and puts the lanes in
// the timeline by broker id.
func (tb *timelineBuilder) finishBrokers() {
	t := tb.t
	ids := make([]int32, 0, len(tb.brokers))
	for id := range tb.brokers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		b := tb.brokers[id]
		tb.closeSeg(b)
		if b.lane.Segs == nil {
			b.lane.Segs = [][3]int64{}
		}
		t.Brokers = append(t.Brokers, *b.lane)
	}
}

// finishPartitions keeps the latest maxDeletedRows rows of deleted topics,
// adds a row for every live partition as the final image has it and sorts
// them by topic and partition, a live row before a deleted one.
func (tb *timelineBuilder) finishPartitions(final *image.Image) {
	t := tb.t
	var deleted []partRow
	for _, r := range t.Partitions {
		if r.Deleted {
			deleted = append(deleted, r)
		}
	}
	if n := len(deleted) - maxDeletedRows; n > 0 {
		t.Totals["deletedRowsLeftOut"] = n
		deleted = deleted[n:]
	}
	t.Partitions = deleted
	for k, ps := range tb.parts {
		if ps.offlineSince >= 0 {
			ps.row.OfflineMs += tb.now - ps.offlineSince
		}
		if tp, ok := final.Topics().ByID(k.topic); ok {
			ps.row.Topic = tp.Name()
			if p, ok := tp.Partition(k.part); ok {
				ps.row.Epoch = p.LeaderEpoch()
				ps.row.ISR = p.ISR()
				ps.row.Leader = p.Leader()
			}
		}
		t.Partitions = append(t.Partitions, *ps.row)
	}
	sort.Slice(t.Partitions, func(i, j int) bool {
		a, b := &t.Partitions[i], &t.Partitions[j]
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		if a.Partition != b.Partition {
			return a.Partition < b.Partition
		}
		return !a.Deleted && b.Deleted
	})
	for i := range t.Partitions {
		if t.Partitions[i].ISR == nil {
			t.Partitions[i].ISR = []int32{}
		}
	}
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
		t.Rows = append(t.Rows, []any{i, r.Partition, r.Leader, r.Epoch, r.ISR, r.Changes, r.Shrinks, r.OfflineMs, r.Leaders, r.Last, del})
	}
	if t.Rows == nil {
		t.Rows, t.Topics = [][]any{}, []string{}
	}
}
