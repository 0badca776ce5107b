package publisher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// txState is MetadataBatchLoader.TransactionState.
type txState int8

const (
	txNone txState = iota
	txStarted
	txContinued
	txEnded
	txAborted
)

func (s txState) open() bool { return s == txStarted || s == txContinued }

// Loader is Kafka's MetadataLoader together with its MetadataBatchLoader:
// the embedder feeds it committed batches and snapshots and reports the
// high watermark; it builds deltas, keeps the current image, and publishes
// one new image per commit to its publishers once it has caught up.
//
// A Loader is thread-unsafe, as raft's RawNode is: it has no goroutine and
// no lock, every method does its work on the caller's goroutine, and
// publishers, hooks and the fault handler run there too. Its methods must
// be called from one goroutine at a time (the loader's goroutine); Runner is
// the concurrent wrapper that gives it a goroutine of its own, for callers
// on several goroutines. Publishers, hooks and the fault handler may call
// Install, Remove, Publishers and Stats; they must not call the input
// methods (HandleCommit, HandleCommitReader, LoadSnapshot, SetHighWatermark,
// SetLeader, ReportReadError, Close).
//
// Four methods may be called from any goroutine at any time: Image, Watch,
// WaitForOffset and Stats. Readers use them or the Cache publisher; none
// waits for the loader's work.
type Loader struct {
	cfg Config
	log *slog.Logger

	// Everything below is owned by the loader's goroutine (Kafka's single
	// event thread) except board, loaded and stats, which readers load.
	closed        bool
	img           *image.Image // the newest image, published or not
	d             *delta.Delta // the delta being built over img
	lastOffset    int64        // the last offset loaded
	lastEpoch     int32        // epoch of the batch holding lastOffset
	lastTime      int64        // append time of that batch
	numBytes      int64
	numBatches    int
	elapsed       time.Duration
	tx            txState
	hasSeenRecord bool
	catchingUp    bool
	hw            int64
	leader        LeaderAndEpoch
	kraftVersion  int16
	halted        error
	scratch       []*entry
	timed         bool // measure times that only hooks report

	pubs    []*entry // install order
	busy    bool     // an operation is running: Install and Remove defer to leave
	toClose []*entry

	listeners map[int]func(*Fault)
	nextID    int

	board  latestPublication
	loaded atomic.Pointer[image.Image] // img, for Image()

	smu   sync.Mutex // guards stats, for Stats on any goroutine
	stats Stats
}

type entry struct {
	p       Publisher
	name    string
	ready   bool // has received the full image
	removed bool
}

// NewLoader returns a loader holding the empty image, catching up, with no
// publishers.
func NewLoader(cfg Config) *Loader {
	l := &Loader{cfg: cfg, log: cfg.Logger}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	l.resetToImage(image.Empty())
	l.hasSeenRecord = false // MetadataBatchLoader's constructor
	l.catchingUp = true
	l.hw = -1
	l.leader = UnknownLeader
	l.kraftVersion = -1
	l.board.publish(nil, false)
	l.timed = cfg.Hooks.Published != nil || cfg.Hooks.CommitHandled != nil
	l.stats = Stats{LastApplied: image.EmptyProvenance, Loaded: image.EmptyProvenance, HighWatermark: -1, Leader: UnknownLeader, KRaftVersion: -1}
	return l
}

// enter starts an operation: it marks the loader busy, so that Install and
// Remove called meanwhile (by a publisher, a hook or the fault handler)
// leave their work to leave. An input method called during an operation
// breaks the single-goroutine rule: it panics rather than corrupt the
// operation in progress.
func (l *Loader) enter() {
	if l.busy {
		panic("publisher: Loader input method called during an operation (from a publisher, hook or fault handler, or from a second goroutine)")
	}
	l.busy = true
}

// leave ends an operation: it initializes publishers installed meanwhile
// (once caught up), closes publishers removed meanwhile, and clears the
// busy flag.
func (l *Loader) leave() {
	for {
		if l.closed && len(l.pubs) > 0 { // installed while closing
			for _, e := range l.pubs {
				e.removed = true
			}
			l.toClose = append(l.toClose, l.pubs...)
			l.pubs = nil
		}
		pending := !l.catchingUp && !l.closed && l.hasPending()
		closes := l.toClose
		l.toClose = nil
		if !pending && len(closes) == 0 {
			l.busy = false
			break
		}
		for _, e := range closes {
			if err := closeEntry(e); err != nil {
				l.fault(&Fault{Kind: FaultClose, Publisher: e.name, Offset: -1, Err: err})
			}
		}
		if pending {
			l.initPending(l.img, nil)
		}
	}
}

func (l *Loader) hasPending() bool {
	for _, e := range l.pubs {
		if !e.ready {
			return true
		}
	}
	return false
}

// usable reports why input is refused, or nil.
func (l *Loader) usable() error {
	if l.closed {
		return ErrClosed
	}
	return l.halted
}

// resetToImage is MetadataBatchLoader.resetToImage, with Kafka 4.x's
// hasSeenRecord = !image.isEmpty().
func (l *Loader) resetToImage(img *image.Image) {
	p := img.Provenance()
	l.img = img
	l.loaded.Store(img)
	l.d = delta.New(img)
	l.tx = txNone
	l.lastOffset, l.lastEpoch, l.lastTime = p.LastContainedOffset, p.LastContainedEpoch, p.LastContainedLogTimeMs
	l.numBytes, l.numBatches, l.elapsed = 0, 0, 0
	l.hasSeenRecord = !img.IsEmpty()
}

// SetHighWatermark reports the raft high watermark: the offset after the
// last committed record (RaftClient.highWatermark). Until one is known, and
// until the loader's image reaches hw-1, nothing is published
// (MetadataLoader.stillNeedToCatchUp). When this call completes the catch-up
// (the commits already loaded reach hw-1), the current image is published at
// once to the publishers installed so far: Kafka's loader does the same from
// its 100 ms InitializeNewPublishers retry.
func (l *Loader) SetHighWatermark(hw int64) {
	l.enter()
	defer l.leave()
	if l.closed {
		return
	}
	l.hw = hw
	l.setStats(func(s *Stats) { s.HighWatermark = hw })
	if l.catchingUp && !l.stillCatchingUp(l.img.Provenance().LastContainedOffset) {
		l.publish(nil, l.img, Manifest{}, 0, false, nil)
	}
}

// stillCatchingUp is MetadataLoader.stillNeedToCatchUp: once it returns
// false it always will.
func (l *Loader) stillCatchingUp(offset int64) bool {
	if !l.catchingUp {
		return false
	}
	if l.hw < 0 || l.hw-1 > offset || !l.hasSeenRecord {
		return true
	}
	l.catchingUp = false
	p := l.img.Provenance()
	l.log.Info("finished catching up to the current high water mark", "offset", offset, "highWatermark", l.hw)
	l.setStats(func(s *Stats) { s.CaughtUp = true })
	if h := l.cfg.Hooks.CaughtUp; h != nil {
		h(p)
	}
	return false
}

// SetLeader reports a new raft leader (RaftClient.Listener.handleLeaderChange).
// As in KafkaRaftClient, only a higher epoch, or a leader becoming known in
// the same epoch, counts. Publishers implementing ControllerListener hear of
// it. The loader also learns of leaders from LeaderChange control records.
func (l *Loader) SetLeader(le LeaderAndEpoch) {
	l.enter()
	defer l.leave()
	if l.closed {
		return
	}
	l.setLeader(le)
}

func (l *Loader) setLeader(le LeaderAndEpoch) {
	cur := l.leader
	if le.Epoch < cur.Epoch || (le.Epoch == cur.Epoch && (cur.LeaderID >= 0 || le.LeaderID < 0)) {
		return
	}
	l.leader = le
	l.setStats(func(s *Stats) { s.Leader = le })
	if h := l.cfg.Hooks.LeaderChanged; h != nil {
		h(le)
	}
	for _, e := range l.readyEntries() {
		if cl, ok := e.p.(ControllerListener); ok && !e.removed {
			if err := callControllerChange(cl, le); err != nil {
				l.fault(&Fault{Kind: FaultPublisher, Publisher: e.name, Offset: l.img.Provenance().LastContainedOffset, Err: err})
			}
		}
	}
	l.scratch = clearEntries(l.scratch)
}

// HandleCommit loads the batches of one raft commit and publishes the result
// (RaftClient.Listener.handleCommit): one new image per commit, except that
// records before a BeginTransactionRecord are published on their own and an
// open transaction defers publication to the commit that ends it.
//
// It returns an error for a batch that does not continue the log
// (ErrOffset), when the loader is halted or closed, or for the replay error
// that halts it (Halt mode). In Skip mode replay errors go to the fault
// handler and the commit is published without the bad records. A nil
// control record (one DecodeBatch could not decode) is a FaultControl: its
// batch's control records are not applied, and its offsets advance.
func (l *Loader) HandleCommit(batches ...record.Batch) error {
	l.enter()
	defer l.leave()
	start := l.clock()
	for i := range batches {
		if err := l.loadBatch(&batches[i]); err != nil {
			return err
		}
	}
	return l.commit(start, len(batches))
}

// BatchReader yields the batches of one commit in order, decoded, and io.EOF
// after the last (raft's BatchReader, which RaftClient.Listener.handleCommit
// takes). DecodeBatch decodes a batch the metalog readers read.
type BatchReader interface {
	Next() (record.Batch, error)
}

// HandleCommitReader loads the commit r yields, batch by batch, and
// publishes it as HandleCommit does. It is HandleCommit for a commit read
// from a file (a whole segment, or everything up to a point): the loader
// replays each batch before asking for the next, so neither the loader
// nor the caller holds the commit's decoded batches at once. An error
// from r other than io.EOF is returned, and what was loaded of the commit
// stays pending, published with the next commit. A reader that yields no
// batch leaves the loader as it was: no commit is counted.
func (l *Loader) HandleCommitReader(r BatchReader) error {
	l.enter()
	defer l.leave()
	start := l.clock()
	n := 0
	for {
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := l.loadBatch(&b); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return nil
	}
	return l.commit(start, n)
}

// DecodeBatch decodes a batch read by the metalog readers (metalog.OpenDir,
// OpenSegment, ParseBatch...) for HandleCommit or a BatchReader. A data
// record that does not decode is an error naming its offset, as is a batch
// whose records do not span its offsets (ErrOffset). A control record that
// does not decode is left nil in Control: the loader reports it as a
// FaultControl and the offsets advance. The result does not alias b.
func DecodeBatch(b *metalog.Batch) (record.Batch, error) {
	count := len(b.Entries)
	if b.LastOffset()-b.BaseOffset+1 != int64(count) {
		return record.Batch{}, fmt.Errorf("%w: batch at offset %d holds %d records but spans %d offsets", ErrOffset, b.BaseOffset, count, b.LastOffset()-b.BaseOffset+1)
	}
	if !b.IsControl() {
		mb, err := b.Decode()
		if err != nil {
			return record.Batch{}, fmt.Errorf("publisher: batch at offset %d: %w", b.BaseOffset, err)
		}
		return mb, nil
	}
	mb := record.Batch{BaseOffset: b.BaseOffset, LeaderEpoch: b.PartitionLeaderEpoch, AppendTime: b.AppendTime(), Size: b.Size()}
	mb.Control = make([]record.ControlRecord, count)
	for i, e := range b.Entries {
		if c, err := e.DecodeControl(); err == nil {
			mb.Control[i] = c
		}
	}
	return mb, nil
}

func (l *Loader) loadBatch(b *record.Batch) error {
	n := len(b.Records) + len(b.Control)
	if n == 0 {
		return fmt.Errorf("%w: empty batch at offset %d", ErrOffset, b.BaseOffset)
	}
	if len(b.Records) > 0 && len(b.Control) > 0 {
		return fmt.Errorf("publisher: batch at offset %d mixes data and control records", b.BaseOffset)
	}
	for _, c := range b.Control {
		if c == nil {
			l.fault(&Fault{Kind: FaultControl, Offset: b.BaseOffset, Err: fmt.Errorf("control batch at offset %d: undecodable control record; offsets advance", b.BaseOffset)})
			nb := *b
			nb.Control = nil
			return l.loadBatchSpan(&nb, b.LastOffset())
		}
	}
	return l.loadBatchSpan(b, b.LastOffset())
}

// loadBatchSpan is MetadataBatchLoader.loadBatch for a batch ending at last.
func (l *Loader) loadBatchSpan(b *record.Batch, last int64) error {
	if err := l.usable(); err != nil {
		return err
	}
	if l.lastOffset >= 0 && b.BaseOffset != l.lastOffset+1 {
		return fmt.Errorf("%w: batch at offset %d, but the loader is at offset %d", ErrOffset, b.BaseOffset, l.lastOffset)
	}
	start := time.Now()
	for i, r := range b.Records {
		off := b.BaseOffset + int64(i)
		if err := l.replay(off, r.Record); err != nil {
			return err
		}
		// A transaction always starts from a clean delta: what precedes a
		// BeginTransactionRecord is published on its own, batch-aligned
		// only if the Begin is the batch's first record.
		if l.tx == txStarted && (i > 0 || l.numBatches > 0) {
			p := image.Provenance{LastContainedOffset: l.lastOffset, LastContainedEpoch: l.lastEpoch, LastContainedLogTimeMs: l.lastTime, BatchAligned: i == 0}
			if i > 0 {
				p.LastContainedEpoch, p.LastContainedLogTimeMs = b.LeaderEpoch, b.AppendTime
			}
			l.emit(l.d, l.logManifest(p))
			if l.halted != nil {
				return l.halted
			}
			l.tx = txStarted
		}
		l.lastOffset = off
	}
	for _, c := range b.Control {
		switch c := c.(type) {
		case *record.LeaderChangeMessage:
			l.setLeader(LeaderAndEpoch{LeaderID: c.LeaderID, Epoch: b.LeaderEpoch})
		case *record.KRaftVersionRecord:
			l.kraftVersion = c.KRaftVersion
			l.setStats(func(s *Stats) { s.KRaftVersion = c.KRaftVersion })
		}
	}
	size := b.Size
	if size == 0 {
		size = estimateSize(b)
	}
	el := time.Since(start)
	l.lastOffset, l.lastEpoch, l.lastTime = last, b.LeaderEpoch, b.AppendTime
	l.numBytes += int64(size)
	l.numBatches++
	l.elapsed += el
	if h := l.cfg.Hooks.BatchLoaded; h != nil {
		h(BatchInfo{BaseOffset: b.BaseOffset, LastOffset: last, Epoch: b.LeaderEpoch, Records: len(b.Records) + len(b.Control), Bytes: size, Control: len(b.Control) > 0, Elapsed: el})
	}
	return nil
}

func estimateSize(b *record.Batch) int {
	n := metalog.BatchHeaderSize
	for i, r := range b.Records {
		v := 0
		if r.Record != nil { // a nil record was reported as a replay fault
			if n, err := record.Size(r.Record, r.Record.HighestVersion()); err == nil {
				v = n
			}
		}
		n += metalog.RecordSize(int32(i), -1, v)
	}
	for i, c := range b.Control {
		v, err := c.BodySize(c.HighestVersion())
		if err != nil {
			v = 0
		}
		n += metalog.RecordSize(int32(len(b.Records)+i), 4, v)
	}
	return n
}

func (l *Loader) logManifest(p image.Provenance) Manifest {
	return Manifest{Type: LogDelta, Provenance: p, Leader: l.leader, NumBatches: l.numBatches, NumBytes: l.numBytes, Elapsed: l.elapsed}
}

// replay is MetadataBatchLoader.replay: transaction markers drive the
// transaction state, every other record goes to the delta.
//
// An AbortTransactionRecord discards the open transaction's records at once
// (a fresh delta over the current image). Kafka only discards them when the
// Abort is the last record of a commit; records that follow an Abort in the
// same commit make Kafka publish the aborted records too.
// kmeta fixes that on purpose: an aborted transaction leaves no trace.
func (l *Loader) replay(off int64, r record.Record) error {
	switch r.(type) {
	case *record.BeginTransactionRecord:
		if l.tx.open() {
			return l.replayFault(off, r, errBeginInTransaction)
		}
		l.tx = txStarted
		return nil
	case *record.EndTransactionRecord:
		if !l.tx.open() {
			return l.replayFault(off, r, errEndOutside)
		}
		l.tx = txEnded
		return nil
	case *record.AbortTransactionRecord:
		if !l.tx.open() {
			return l.replayFault(off, r, errAbortOutside)
		}
		l.tx = txAborted
		l.d = delta.New(l.img)
		return nil
	}
	switch l.tx {
	case txStarted:
		l.tx = txContinued
	case txEnded, txAborted:
		l.tx = txNone
	}
	l.hasSeenRecord = true
	if err := l.d.ReplayAt(off, r); err != nil {
		return l.replayFault(off, r, err)
	}
	return nil
}

// replayFault reports a record the loader could not replay, and in Halt
// mode halts.
func (l *Loader) replayFault(off int64, r record.Record, err error) error {
	re := &ReplayError{Offset: off, Batch: -1, Index: -1, Record: r, Err: err}
	l.setStats(func(s *Stats) { s.ReplayErrors++ })
	l.fault(&Fault{Kind: FaultReplay, Offset: off, Err: re})
	if l.mustHalt(err) {
		return l.halt(re)
	}
	return nil
}

// mustHalt reports whether a replay error halts the loader: always in Halt
// mode, and in every mode for a record only a newer Kafka can have written
// (delta.ErrNewerVersion), which no image kmeta builds could represent.
func (l *Loader) mustHalt(err error) bool {
	return l.cfg.ReplayErrors == Halt || errors.Is(err, delta.ErrNewerVersion)
}

// halt discards everything loaded since the last good image and refuses
// input until a snapshot is loaded.
func (l *Loader) halt(cause error) error {
	l.halted = fmt.Errorf("%w: %w", ErrHalted, cause)
	l.resetToImage(l.img)
	l.setStats(func(s *Stats) { s.Halted = l.halted })
	l.log.Error("metadata loader halted; serving the last good image", "offset", l.img.Provenance().LastContainedOffset, "err", cause)
	return l.halted
}

// commit is maybeFlushBatches: publish unless a transaction is open.
func (l *Loader) commit(start time.Time, batches int) error {
	if err := l.usable(); err != nil {
		return err
	}
	published := false
	if !l.tx.open() && l.numBatches > 0 {
		p := image.Provenance{LastContainedOffset: l.lastOffset, LastContainedEpoch: l.lastEpoch, LastContainedLogTimeMs: l.lastTime, BatchAligned: true}
		published = l.emit(l.d, l.logManifest(p))
	} else if l.tx.open() {
		l.log.Debug("not publishing: a metadata transaction is still open", "offset", l.lastOffset, "batches", l.numBatches)
	}
	l.setStats(func(s *Stats) { s.Commits++ })
	if h := l.cfg.Hooks.CommitHandled; h != nil {
		h(CommitInfo{LastOffset: l.lastOffset, Epoch: l.lastEpoch, Batches: batches, Published: published, Elapsed: since(start)})
	}
	return l.halted
}

// emit is applyDeltaAndUpdate followed by maybePublishMetadata: apply the
// delta, track the new image, publish it unless still catching up, and
// start a new delta over it.
//
// When Apply fails, Kafka keeps the old image and still calls the
// publishers. kmeta reports the fault and, in Skip mode, drops the commit's
// changes but advances the provenance (publishers get an empty delta), so
// the log position keeps moving; in Halt mode it halts.
func (l *Loader) emit(d *delta.Delta, m Manifest) bool {
	t0 := l.clock()
	img, err := d.Apply(m.Provenance)
	apply := since(t0)
	if err != nil {
		l.setStats(func(s *Stats) { s.ApplyErrors++ })
		l.fault(&Fault{Kind: FaultApply, Offset: m.Provenance.LastContainedOffset, Err: err})
		if l.cfg.ReplayErrors == Halt {
			l.halt(err)
			return false
		}
		img = image.NewBuilder(l.img).Image(m.Provenance)
		d = delta.New(l.img)
	}
	l.img = img
	l.loaded.Store(img)
	published := false
	if !l.stillCatchingUp(m.Provenance.LastContainedOffset) {
		l.publish(d, img, m, apply, true, nil)
		published = true
	}
	l.resetToImage(img)
	l.setStats(func(s *Stats) { s.Loaded = img.Provenance() })
	return published
}

// publish hands img to every ready publisher in install order (unless
// initialOnly), then gives publishers installed since the full image, then
// makes img the published image.
func (l *Loader) publish(d *delta.Delta, img *image.Image, m Manifest, apply time.Duration, dispatch bool, full *delta.Delta) {
	t0 := l.clock()
	n, failed := 0, 0
	if dispatch {
		for _, e := range l.readyEntries() {
			if e.removed {
				continue
			}
			n++
			if err := callUpdate(e.p, Update{Image: img, Manifest: m, Changes: Changes{d}}); err != nil {
				failed++
				l.setStats(func(s *Stats) { s.PublisherErrors++ })
				l.fault(&Fault{Kind: FaultPublisher, Publisher: e.name, Offset: img.Provenance().LastContainedOffset, Err: err})
			}
		}
		l.scratch = clearEntries(l.scratch)
	}
	l.initPending(img, full)
	pub := since(t0)
	l.board.publish(img, false)
	l.setStats(func(s *Stats) {
		s.LastApplied = img.Provenance()
		s.Loaded = img.Provenance()
		s.Publications++
	})
	if h := l.cfg.Hooks.Published; h != nil {
		mv, _ := img.Features().MetadataVersion()
		if !dispatch {
			m = Manifest{Type: SnapshotLoad, Provenance: img.Provenance()}
		}
		h(PublishInfo{Manifest: m, MetadataVersion: mv, Publishers: n, Failed: failed, Apply: apply, Publish: pub})
	}
}

// readyEntries copies the initialized publishers into l.scratch, so that a
// publisher removing or installing others does not change the list being
// walked.
func (l *Loader) readyEntries() []*entry {
	l.scratch = l.scratch[:0]
	for _, e := range l.pubs {
		if e.ready {
			l.scratch = append(l.scratch, e)
		}
	}
	return l.scratch
}

func clearEntries(s []*entry) []*entry {
	clear(s)
	return s[:0]
}

// fault counts nothing itself: it calls the hook and the handler.
func (l *Loader) fault(f *Fault) {
	if h := l.cfg.Hooks.Fault; h != nil {
		h(f)
	}
	l.notifyFaultListeners(f)
	if l.cfg.FaultHandler != nil {
		l.cfg.FaultHandler(l, f)
		return
	}
	l.log.Error("metadata loader fault", "kind", f.Kind.String(), "publisher", f.Publisher, "offset", f.Offset, "err", f.Err)
}

func (l *Loader) setStats(fn func(*Stats)) {
	l.smu.Lock()
	fn(&l.stats)
	l.smu.Unlock()
}

// Stats returns the loader's counters and position. Like Image, Watch and
// WaitForOffset it may be called from any goroutine: the counters are the
// one part of the loader behind a lock, held only to copy them.
func (l *Loader) Stats() Stats {
	l.smu.Lock()
	defer l.smu.Unlock()
	return l.stats
}

// Image returns the loader's newest image, published or not: it runs ahead
// of the published image while catching up, and inside an open transaction
// it stays at the last published one. It takes no lock. Readers should use
// a Cache, Watch or WaitForOffset, which only see published images.
func (l *Loader) Image() *image.Image { return l.loaded.Load() }

// Watch returns the last published image (nil before the first
// publication) and a channel that is closed when a newer image is published
// or the loader is closed. It never blocks.
func (l *Loader) Watch() (*image.Image, <-chan struct{}) {
	g := l.board.load()
	return g.img, g.wait()
}

// WaitForOffset returns the first published image that contains offset
// (its LastContainedOffset is at least offset): the broker's wait to be
// caught up to its own registration record before it asks to be unfenced
// (BrokerLifecycleManager's wait for its registration to be replayed). It returns ctx's error if ctx ends first, and ErrClosed if
// the loader is closed first. Every publisher has been given the image when
// it returns.
func (l *Loader) WaitForOffset(ctx context.Context, offset int64) (*image.Image, error) {
	for {
		g := l.board.load()
		if g.img != nil && g.img.Provenance().LastContainedOffset >= offset {
			return g.img, nil
		}
		if g.closed {
			return nil, ErrClosed
		}
		select {
		case <-g.wait():
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Close closes every publisher, the ones not yet initialized first
// (MetadataLoader.close), reporting close errors to the fault handler;
// wakes WaitForOffset callers with ErrClosed; and refuses input from then
// on. It returns the first close error.
func (l *Loader) Close() error {
	l.enter()
	defer l.leave()
	if l.closed {
		return nil
	}
	l.closed = true
	var order []*entry
	for _, e := range l.pubs {
		if !e.ready {
			order = append(order, e)
		}
	}
	for _, e := range l.pubs {
		if e.ready {
			order = append(order, e)
		}
	}
	l.pubs = nil
	var first error
	for _, e := range order {
		e.removed = true
		if err := closeEntry(e); err != nil {
			l.fault(&Fault{Kind: FaultClose, Publisher: e.name, Offset: -1, Err: err})
			if first == nil {
				first = err
			}
		}
	}
	l.board.publish(l.board.load().img, true)
	return first
}

// clock reads the clock when a hook will report the time measured.
func (l *Loader) clock() time.Time {
	if l.timed {
		return time.Now()
	}
	return time.Time{}
}

func since(t time.Time) time.Duration {
	if t.IsZero() {
		return 0
	}
	return time.Since(t)
}
