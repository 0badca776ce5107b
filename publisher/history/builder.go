package history

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// Builder gathers a History from batches handed to it in log order: a
// snapshot first if the log starts from one (LoadSnapshot), then log
// batches (AddBatch). Read does this for files and directories; use a
// Builder for batches from elsewhere (a live follower, a test).
//
// A Builder is used by one goroutine.
type Builder struct {
	cfg BuilderConfig
	lim int // 0: no limit
	h   *History
	chk checker

	cur   *image.Image // the image after the last applied unit
	d     *delta.Delta // records since cur
	dirty bool         // d holds accepted records that change something
	batch int          // number of the batch being read (1-based)

	// an open metadata transaction (KIP-868)
	inTx    bool
	txBase  *image.Image
	pending []func() // the transaction's events, run at its end

	// per partition, the last state (shares slices between events) and
	// its history once made
	last partSlots
	// per topic, the batch number of its creation
	created map[record.UUID]int
	// per topic, the batch number of its last growth
	grown map[record.UUID]int
	// per broker, its open interval state
	brokerState map[int32]brokerNow

	// snapshots to compare with the replay when it reaches their offset
	verify []string
	// the raft leader (the active controller) of the last LeaderChange
	raftLeader int32

	lastPos Position
	started bool
	err     error

	// tl, when set, gathers a Timeline in the same replay (ReadTimeline).
	tl *timelineBuilder
	// lean is set when only the counts and states are wanted
	// (ReadTimeline): no partition events are kept and no checks run.
	lean bool

	// names caches topic names by id (an id never changes its name);
	// counts caches, for the delta countsOf, the live partitions of the
	// topics a new partition was added to, so that a record costs O(1),
	// not a copy of its topic's partitions (delta.Delta.Topic).
	names    map[record.UUID]string
	counts   map[record.UUID]int
	countsOf *delta.Delta

	// scratch is where stateOf reads a partition's lists; ids holds the
	// lists of a lean builder's states, histories the partition
	// histories.
	scratch   []int32
	ids       idChunk
	histories chunk[PartitionHistory]
}

// partSlot is what the builder keeps per live partition: its last state
// and, once an event made it, its history (one map lookup per record).
type partSlot struct {
	state PartitionState
	ph    *PartitionHistory
}

type brokerNow struct {
	state BrokerState
	epoch int64
}

// NewBuilder returns an empty builder.
func NewBuilder(cfg BuilderConfig) *Builder {
	b := &Builder{
		cfg: cfg,
		lim: cfg.limit(),
		h: &History{
			brokers: map[int32]*BrokerHistory{},
			topics:  map[record.UUID]*TopicHistory{},
		},
		cur:         image.Empty(),
		created:     map[record.UUID]int{},
		grown:       map[record.UUID]int{},
		brokerState: map[int32]brokerNow{},
	}
	b.d = delta.New(b.cur)
	b.chk.init(b)
	return b
}

// Image is the image of everything accepted so far (an open transaction
// excluded).
func (b *Builder) Image() (*image.Image, error) {
	if err := b.apply(); err != nil {
		return nil, err
	}
	if b.inTx {
		return b.txBase, nil
	}
	return b.cur, nil
}

func (b *Builder) apply() error {
	if !b.dirty {
		return nil
	}
	p := image.Provenance{LastContainedOffset: b.lastPos.Offset, LastContainedEpoch: b.lastPos.RaftEpoch, LastContainedLogTimeMs: b.lastPos.AppendTime}
	img, err := b.d.Apply(p)
	if err != nil {
		return fmt.Errorf("history: applying records up to offset %d: %w", b.lastPos.Offset, err)
	}
	b.cur, b.d, b.dirty = img, delta.New(img), false
	return nil
}

func (b *Builder) file(name string) {
	if n := len(b.h.Files); n == 0 || b.h.Files[n-1] != name {
		b.h.Files = append(b.h.Files, name)
	}
}

func (b *Builder) at(pos Position) {
	if !b.started {
		b.h.First, b.started = pos, true
	}
	b.lastPos = pos
	b.h.Last = pos
}

// LoadSnapshot reads every batch of a snapshot (file is its base name) and
// loads it as Kafka's MetadataLoader.loadSnapshot does: whatever the
// snapshot does not re-assert is deleted. Its records' positions carry the
// snapshot's last contained offset, epoch and timestamp.
func (b *Builder) LoadSnapshot(file string, s *metalog.SnapshotReader) error {
	if b.err != nil {
		return b.err
	}
	if err := b.apply(); err != nil {
		return err
	}
	if b.inTx {
		// A snapshot replaces the log, an open transaction included.
		b.abortTx(Position{File: file, Offset: s.LastContainedLogOffset(), Snapshot: true})
	}
	b.file(file)
	pos := Position{File: file, Offset: s.LastContainedLogOffset(), AppendTime: s.LastContainedLogTimestamp(), RaftEpoch: s.LastContainedLogEpoch(), Snapshot: true}
	before := b.cur
	b.d = delta.NewSnapshot(b.cur)
	b.batch++
	for {
		batch, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.err = err
			return err
		}
		b.h.Batches++
		b.h.Records += len(batch.Entries)
		if batch.IsControl() {
			// Header, footer, and in Kafka 3.9+ the KRaftVersion and
			// Voters records of the snapshot.
			for _, e := range batch.Entries {
				if c, err := e.DecodeControl(); err == nil {
					if v, ok := c.(*record.VotersRecord); ok {
						b.chk.votersRecord(pos, v)
					}
				}
			}
			continue
		}
		for _, e := range batch.Entries {
			r, v, err := e.Decode()
			if err != nil {
				b.err = fmt.Errorf("%s: record at offset %d: %w", file, e.Offset, err)
				return b.err
			}
			pos.RecordVersion = v
			b.at(pos)
			b.replay(pos, r)
		}
	}
	b.d.FinishSnapshot()
	b.dirty = true
	if err := b.apply(); err != nil {
		b.err = err
		return err
	}
	b.snapshotDeletions(pos, before, b.cur)
	b.chk.commit(pos)
	if b.tl != nil {
		b.tl.snapshotLoaded(b.cur)
	}
	return nil
}

// snapshotDeletions records what a snapshot dropped from the image before
// it: topics it did not re-assert, brokers it did not register.
func (b *Builder) snapshotDeletions(pos Position, before, after *image.Image) {
	for t := range before.Topics().All() {
		if _, ok := after.Topics().ByID(t.ID()); ok {
			continue
		}
		parts := make([]image.PartitionRegistration, 0, t.NumPartitions())
		for p := range t.Partitions() {
			parts = append(parts, p.Registration())
		}
		b.topicDeleted(pos, nil, t.ID(), t.Name(), parts)
	}
	for br := range before.Cluster().Brokers() {
		if _, ok := after.Cluster().Broker(br.ID()); !ok {
			b.brokerEvent(pos, nil, br.ID(), BrokerUnregistered, br.Epoch(), StateUnregistered)
		}
	}
}

// AddBatch replays one log batch (file is the base name of the file it
// came from). Control batches record raft leader changes. A record the
// replay rejects is kept as a Rejection and skipped; AddBatch returns an
// error only for a record that does not decode, and then refuses more
// input.
func (b *Builder) AddBatch(file string, batch *metalog.Batch) error {
	if b.err != nil {
		return b.err
	}
	if b.tl != nil {
		if err := b.tl.beforeBatch(b, batch); err != nil {
			b.err = err
			return err
		}
	}
	b.file(file)
	b.batch++
	b.h.Batches++
	b.h.Records += len(batch.Entries)
	pos := Position{File: file, AppendTime: batch.AppendTime(), RaftEpoch: batch.PartitionLeaderEpoch}
	if batch.IsControl() {
		for _, e := range batch.Entries {
			pos.Offset = e.Offset
			b.at(pos)
			c, err := e.DecodeControl()
			if err != nil {
				// Kafka's loader skips control records it cannot read;
				// offsets advance.
				continue
			}
			b.control(pos, c)
		}
		if b.tl != nil {
			b.tl.afterBatch(b, batch)
		}
		return nil
	}
	for _, e := range batch.Entries {
		pos.Offset = e.Offset
		r, v, err := e.Decode()
		if err != nil {
			b.err = fmt.Errorf("%s: record at offset %d: %w", file, e.Offset, err)
			return b.err
		}
		pos.RecordVersion = v
		b.at(pos)
		b.replay(pos, r)
	}
	if !b.inTx {
		if err := b.apply(); err != nil {
			b.err = err
			return err
		}
		b.chk.commit(pos)
	}
	b.verifySnapshots(batch.LastOffset())
	if b.tl != nil {
		b.tl.afterBatch(b, batch)
	}
	return nil
}

// verifySnapshots compares the snapshots of the directory that end at
// offset with the image the replay reached there (Kafka writes a snapshot
// of the image its loader published at a batch boundary:
// SnapshotGenerator, so the two must be equal).
func (b *Builder) verifySnapshots(offset int64) {
	for len(b.verify) > 0 {
		id, err := metalog.ParseSnapshotName(filepath.Base(b.verify[0]))
		if err != nil || id.EndOffset-1 < offset || (id.EndOffset-1 == offset && b.inTx) {
			b.verify = b.verify[1:]
			continue
		}
		if id.EndOffset-1 > offset {
			return
		}
		path := b.verify[0]
		b.verify = b.verify[1:]
		img, err := snapshotImage(path)
		pos := Position{File: filepath.Base(path), Offset: offset, RaftEpoch: id.Epoch, Snapshot: true}
		if err != nil {
			b.chk.snapshotMismatch(pos, fmt.Sprintf("snapshot %s cannot be read: %v", pos.File, err))
			continue
		}
		pos.AppendTime = img.Provenance().LastContainedLogTimeMs
		b.h.SnapshotsVerified++
		if ds := image.Diff(b.cur, img, image.DiffOptions{}); len(ds) > 0 {
			b.chk.snapshotMismatch(pos, fmt.Sprintf("snapshot %s differs from the log replayed to offset %d in %d entities, first: %s", pos.File, offset, len(ds), ds[0]))
		}
	}
}

// snapshotImage loads a snapshot file as Kafka's loader does.
func snapshotImage(path string) (*image.Image, error) {
	s, err := metalog.OpenSnapshot(metalog.OS{}, path)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	ld := publisher.NewLoader(publisher.Config{})
	defer ld.Close()
	if err := ld.LoadSnapshot(s); err != nil {
		return nil, err
	}
	return ld.Image(), nil
}

// Finish closes the open intervals at the last position, runs the
// end-of-log checks and returns the history. The builder must not be used
// afterwards.
func (b *Builder) Finish() *History {
	h := b.h
	for _, bh := range h.brokers {
		if n := len(bh.Intervals); n > 0 && bh.Intervals[n-1].Open {
			bh.Intervals[n-1].To = b.lastPos
		}
		bh.Events, bh.Dropped = trim(bh.Events, b.lim, bh.Dropped)
		bh.Intervals, bh.Dropped = trim(bh.Intervals, b.lim, bh.Dropped)
	}
	h.partitions.each(func(_ TopicPartition, p *PartitionHistory) bool {
		p.Events, p.Dropped = trim(p.Events, b.lim, p.Dropped)
		return true
	})
	for _, t := range h.topics {
		t.Events, t.Dropped = trim(t.Events, b.lim, t.Dropped)
	}
	h.Changes, h.DroppedChanges = trim(h.Changes, b.lim, h.DroppedChanges)
	h.RaftLeaders, h.DroppedRaftLeaders = trim(h.RaftLeaders, b.lim, h.DroppedRaftLeaders)
	h.Rejections, h.DroppedRejections = trim(h.Rejections, b.lim, h.DroppedRejections)
	b.chk.finish(b.lastPos)
	h.Findings, h.DroppedFindings = trim(h.Findings, b.lim, h.DroppedFindings)
	return h
}

// push appends v to s, keeping at most lim entries (compacting once the
// slice holds twice as many, so that appends stay amortized O(1)).
func push[T any](s []T, v T, lim int, dropped *int) []T {
	s = append(s, v)
	if lim > 0 && len(s) >= 2*lim {
		n := len(s) - lim
		*dropped += n
		s = append(s[:0:0], s[n:]...)
	}
	return s
}

func trim[T any](s []T, lim, dropped int) ([]T, int) {
	if lim > 0 && len(s) > lim {
		n := len(s) - lim
		return slices.Clone(s[n:]), dropped + n
	}
	return s, dropped
}

// emit runs fn now, or at the end of the open transaction.
func (b *Builder) emit(fn func()) {
	if b.inTx {
		b.pending = append(b.pending, fn)
		return
	}
	fn()
}

func (b *Builder) control(pos Position, c record.ControlRecord) {
	switch c := c.(type) {
	case *record.LeaderChangeMessage:
		rl := RaftLeader{At: pos, LeaderID: c.LeaderID, Epoch: pos.RaftEpoch}
		for _, v := range c.Voters {
			rl.Voters = append(rl.Voters, v.VoterID)
		}
		b.h.RaftLeaders = push(b.h.RaftLeaders, rl, b.lim, &b.h.DroppedRaftLeaders)
		b.raftLeader = c.LeaderID
		b.chk.leaderChange(pos, c)
	case *record.VotersRecord:
		b.chk.votersRecord(pos, c)
	}
}

func (b *Builder) reject(pos Position, r record.Record, err error) {
	rej := Rejection{At: pos, Record: b.redacted(r), Err: err}
	b.h.Rejections = push(b.h.Rejections, rej, b.lim, &b.h.DroppedRejections)
	b.chk.rejected(rej)
}

// topicName is the name of live topic id.
func (b *Builder) topicName(id record.UUID) string {
	if n, ok := b.names[id]; ok {
		return n
	}
	name, _, ok := b.d.Topic(id)
	if ok {
		if b.names == nil {
			b.names = map[record.UUID]string{}
		}
		b.names[id] = name
	}
	return name
}

// partitionCount is the number of live partitions of topic id after a
// partition was added to it by the record just replayed.
func (b *Builder) partitionCount(id record.UUID) int {
	if b.countsOf != b.d {
		b.counts, b.countsOf = map[record.UUID]int{}, b.d
	}
	n, ok := b.counts[id]
	if !ok {
		_, parts, _ := b.d.Topic(id)
		n = len(parts)
	} else {
		n++
	}
	b.counts[id] = n
	return n
}

// replay replays one data record and records what it changed.
func (b *Builder) replay(pos Position, r record.Record) {
	switch r := r.(type) {
	case *record.BeginTransactionRecord, *record.EndTransactionRecord, *record.AbortTransactionRecord:
		b.replayMarker(pos, r)
		return
	case *record.PartitionRecord:
		before, existed := b.d.Partition(r.TopicID, r.PartitionID)
		if err := b.d.Replay(r); err != nil {
			b.reject(pos, r, err)
			return
		}
		b.dirty = true
		name := b.topicName(r.TopicID)
		after, _ := b.d.Partition(r.TopicID, r.PartitionID)
		b.partitionChanged(pos, r, name, r.TopicID, before, existed, after)
		if !existed {
			b.partitionAdded(pos, r, r.TopicID)
		}
		return
	case *record.PartitionChangeRecord:
		before, existed := b.d.Partition(r.TopicID, r.PartitionID)
		if err := b.d.Replay(r); err != nil {
			b.reject(pos, r, err)
			return
		}
		b.dirty = true
		name := b.topicName(r.TopicID)
		after, _ := b.d.Partition(r.TopicID, r.PartitionID)
		b.partitionChanged(pos, r, name, r.TopicID, before, existed, after)
		return
	case *record.TopicRecord:
		if err := b.d.Replay(r); err != nil {
			b.reject(pos, r, err)
			return
		}
		b.dirty = true
		b.topicCreated(pos, r)
		return
	case *record.RemoveTopicRecord:
		name, parts, _ := b.d.Topic(r.TopicID)
		parts = slices.Clone(parts)
		if err := b.d.Replay(r); err != nil {
			b.reject(pos, r, err)
			return
		}
		b.dirty = true
		b.topicDeleted(pos, r, r.TopicID, name, parts)
		return
	case *record.ClearElrRecord:
		b.replayClearELR(pos, r)
		return
	case *record.RegisterBrokerRecord, *record.UnregisterBrokerRecord, *record.FenceBrokerRecord,
		*record.UnfenceBrokerRecord, *record.BrokerRegistrationChangeRecord:
		b.replayBroker(pos, r)
		return
	}
	if err := b.d.Replay(r); err != nil {
		b.reject(pos, r, err)
		return
	}
	switch r.(type) {
	case *record.NoOpRecord:
		return
	}
	b.dirty = true
	b.otherChange(pos, r)
}

// replayMarker follows a transaction marker: Begin starts holding the
// events of the transaction, End releases them, Abort drops them with the
// transaction's changes.
func (b *Builder) replayMarker(pos Position, r record.Record) {
	switch r := r.(type) {
	case *record.BeginTransactionRecord:
		if err := b.apply(); err != nil {
			b.reject(pos, r, err)
			return
		}
		name := ""
		if r.Name != nil {
			name = *r.Name
		}
		b.inTx, b.txBase, b.pending = true, b.cur, nil
		b.change(pos, r, ChangeTransaction, name, "begin")
	case *record.EndTransactionRecord:
		if !b.inTx {
			return
		}
		b.inTx = false
		for _, fn := range b.pending {
			fn()
		}
		b.pending = nil
		b.change(pos, r, ChangeTransaction, "", "end")
	case *record.AbortTransactionRecord:
		if b.inTx {
			b.abortTx(pos)
		}
		b.change(pos, r, ChangeTransaction, "", "abort")
	}
}

func (b *Builder) abortTx(pos Position) {
	b.h.Aborted += len(b.pending)
	b.inTx, b.pending = false, nil
	b.cur, b.d, b.dirty = b.txBase, delta.New(b.txBase), false
	// The tracked partition states may hold the aborted records' results:
	// re-read them from the image.
	b.last.each(func(tp TopicPartition, slot *partSlot) bool {
		p, ok := b.cur.Topics().Partition(tp.TopicID, tp.Partition)
		if ok {
			r := p.Registration()
			slot.state = b.stateOf(&r, slot.state)
		}
		return ok
	})
}

func (b *Builder) replayClearELR(pos Position, r *record.ClearElrRecord) {
	var ids []record.UUID
	if r.TopicName != "" {
		if id, ok := b.d.TopicID(r.TopicName); ok {
			ids = append(ids, id)
		}
	} else {
		for id := range b.h.topics {
			if _, _, ok := b.d.Topic(id); ok {
				ids = append(ids, id)
			}
		}
	}
	type snap struct {
		name  string
		parts []image.PartitionRegistration
	}
	befores := make([]snap, len(ids))
	for i, id := range ids {
		name, parts, _ := b.d.Topic(id)
		befores[i] = snap{name, slices.Clone(parts)}
	}
	if err := b.d.Replay(r); err != nil {
		b.reject(pos, r, err)
		return
	}
	b.dirty = true
	for i, id := range ids {
		for _, before := range befores[i].parts {
			after, ok := b.d.Partition(id, before.ID())
			if ok && !after.Equal(&before) {
				b.partitionChanged(pos, r, befores[i].name, id, before, true, after)
			}
		}
	}
}

func brokerStateOf(br *image.Broker) BrokerState {
	switch {
	case br == nil:
		return StateUnregistered
	case br.Fenced():
		return StateFenced
	case br.InControlledShutdown():
		return StateShuttingDown
	}
	return StateUnfenced
}

func (b *Builder) replayBroker(pos Position, r record.Record) {
	var id int32
	switch r := r.(type) {
	case *record.RegisterBrokerRecord:
		id = r.BrokerID
	case *record.UnregisterBrokerRecord:
		id = r.BrokerID
	case *record.FenceBrokerRecord:
		id = r.ID
	case *record.UnfenceBrokerRecord:
		id = r.ID
	case *record.BrokerRegistrationChangeRecord:
		id = r.BrokerID
	}
	before, _ := b.d.Broker(id)
	if err := b.d.Replay(r); err != nil {
		b.reject(pos, r, err)
		return
	}
	b.dirty = true
	after, ok := b.d.Broker(id)
	if !ok {
		after = nil
	}
	st := brokerStateOf(after)
	var epoch int64
	if after != nil {
		epoch = after.Epoch()
	} else if before != nil {
		epoch = before.Epoch()
	}
	switch r := r.(type) {
	case *record.RegisterBrokerRecord:
		b.brokerEvent(pos, r, id, BrokerRegistered, epoch, st)
	case *record.UnregisterBrokerRecord:
		b.brokerEvent(pos, r, id, BrokerUnregistered, epoch, st)
	case *record.FenceBrokerRecord:
		b.brokerEvent(pos, r, id, BrokerFenced, epoch, st)
	case *record.UnfenceBrokerRecord:
		b.brokerEvent(pos, r, id, BrokerUnfenced, epoch, st)
	case *record.BrokerRegistrationChangeRecord:
		switch {
		case r.Fenced == 1:
			b.brokerEvent(pos, r, id, BrokerFenced, epoch, st)
		case r.Fenced == -1:
			b.brokerEvent(pos, r, id, BrokerUnfenced, epoch, st)
		}
		if r.InControlledShutdown == 1 {
			b.brokerEvent(pos, r, id, BrokerControlledShutdown, epoch, st)
		}
		if len(r.LogDirs) > 0 {
			b.brokerEvent(pos, r, id, BrokerDirectoriesChanged, epoch, st)
		}
	}
}

func (b *Builder) brokerEvent(pos Position, r record.Record, id int32, kind BrokerEventKind, epoch int64, st BrokerState) {
	ev := BrokerEvent{At: pos, Kind: kind, Epoch: epoch, State: st, Record: r}
	b.emit(func() {
		bh, ok := b.h.brokers[id]
		if !ok {
			bh = &BrokerHistory{ID: id}
			b.h.brokers[id] = bh
		}
		if kind == BrokerRegistered {
			bh.Registrations++
		}
		bh.Events = push(bh.Events, ev, b.lim, &bh.Dropped)
		now := b.brokerState[id]
		next := brokerNow{st, epoch}
		if st == StateUnregistered {
			next.epoch = 0
		}
		if now != next || kind == BrokerRegistered {
			if n := len(bh.Intervals); n > 0 && bh.Intervals[n-1].Open {
				bh.Intervals[n-1].Open, bh.Intervals[n-1].To = false, pos
			}
			if st != StateUnregistered {
				if st == StateFenced && (now.state != StateFenced || kind == BrokerRegistered) {
					bh.Fencings++
				}
				bh.Intervals = push(bh.Intervals, BrokerInterval{State: st, Epoch: epoch, From: pos, To: pos, Open: true}, b.lim, &bh.Dropped)
			}
			b.brokerState[id] = next
		}
		b.chk.broker(bh, &bh.Events[len(bh.Events)-1])
	})
}
