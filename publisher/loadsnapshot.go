package publisher

import (
	"fmt"
	"io"
	"time"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// SnapshotReader is a snapshot as LoadSnapshot reads it (Kafka's
// SnapshotReader, a source of batches): its id, the append time of the last
// record it covers, and its batches in order, io.EOF after the last.
// *metalog.SnapshotReader is one (a snapshot file, read batch by batch);
// Snapshot.Reader makes one of a snapshot held in memory. A reader that
// also has Name() string is named by it in logs and errors, and one with
// KRaftVersion() (int16, bool) sets the loader's kraft.version.
type SnapshotReader interface {
	ID() metalog.SnapshotID
	LastContainedLogTimestamp() int64
	Next() (*metalog.Batch, error)
}

// Reader returns a SnapshotReader of s: id {LastContainedOffset+1,
// LastContainedEpoch}, the records in one batch at their highest versions.
// LoadSnapshot replays s's records directly, without encoding them.
func (s Snapshot) Reader() SnapshotReader { return &memSnapshot{s: s} }

// memSnapshot is Snapshot.Reader's SnapshotReader.
type memSnapshot struct {
	s    Snapshot
	done bool
}

func (m *memSnapshot) ID() metalog.SnapshotID {
	return metalog.SnapshotID{EndOffset: m.s.LastContainedOffset + 1, Epoch: m.s.LastContainedEpoch}
}

func (m *memSnapshot) LastContainedLogTimestamp() int64 { return m.s.LastContainedLogTime }

func (m *memSnapshot) Name() string {
	id := m.ID()
	return fmt.Sprintf("snapshot %d-%d", id.EndOffset, id.Epoch)
}

// Next encodes the records as one batch at offset 0, then io.EOF.
func (m *memSnapshot) Next() (*metalog.Batch, error) {
	if m.done || len(m.s.Records) == 0 {
		return nil, io.EOF
	}
	m.done = true
	rb := record.Batch{LeaderEpoch: m.s.LastContainedEpoch, AppendTime: m.s.LastContainedLogTime}
	for _, r := range m.s.Records {
		rb.Records = append(rb.Records, record.VersionedRecord{Record: r, Version: r.HighestVersion()})
	}
	buf, err := metalog.AppendDecoded(nil, &rb)
	if err != nil {
		return nil, fmt.Errorf("publisher: %s: %w", m.Name(), err)
	}
	b := new(metalog.Batch)
	if _, err := metalog.ParseBatch(buf, b); err != nil {
		return nil, fmt.Errorf("publisher: %s: %w", m.Name(), err)
	}
	return b, nil
}

// LoadSnapshot loads a snapshot (RaftClient.Listener.handleLoadSnapshot): a
// delta from the current image that replays every record and then deletes
// whatever the snapshot did not re-assert (delta.NewSnapshot,
// FinishSnapshot), published with the provenance Kafka's loader takes from
// the reader: the id's offset and epoch and LastContainedLogTimestamp. A
// *metalog.SnapshotReader is read batch by batch, each record decoded with
// one reused record.Decoder (the delta copies what it keeps), so a big
// snapshot file streams. Anything loaded but not yet published (an open
// transaction) is discarded. A halted loader resumes from a snapshot.
//
// It reads s to its end; a snapshot that is damaged or lacks its footer
// (metalog.ErrIncompleteSnapshot) is an error and changes nothing. It does
// not close s.
func (l *Loader) LoadSnapshot(s SnapshotReader) error {
	l.enter()
	defer l.leave()
	id := s.ID()
	p := image.Provenance{LastContainedOffset: id.EndOffset - 1, LastContainedEpoch: id.Epoch, LastContainedLogTimeMs: s.LastContainedLogTimestamp(), BatchAligned: true}
	var name string
	if n, ok := s.(interface{ Name() string }); ok {
		name = n.Name()
	} else {
		name = fmt.Sprintf("snapshot %d-%d", id.EndOffset, id.Epoch)
	}
	if m, ok := s.(*memSnapshot); ok {
		if id.EndOffset <= 0 && len(m.s.Records) == 0 {
			// A snapshot of no log at all: the empty image, with its provenance.
			p = image.EmptyProvenance
		}
		return l.loadSnapshot(p, id, name, &sliceRecords{recs: m.s.Records})
	}
	if k, ok := s.(interface{ KRaftVersion() (int16, bool) }); ok {
		if v, ok := k.KRaftVersion(); ok {
			defer func() { l.kraftVersion = v; l.setStats(func(s *Stats) { s.KRaftVersion = v }) }()
		}
	}
	return l.loadSnapshot(p, id, name, &readerRecords{r: s, name: name})
}

// snapshotRecords yields a snapshot's records one at a time, each with the
// base offset of its batch inside the snapshot (-1 for a list of records)
// and its index there, and io.EOF at the end. keep returns the record next
// returned last as a value that outlives the next call, for an error to hold.
type snapshotRecords interface {
	next() (r record.Record, base int64, index int, err error)
	keep() record.Record
}

// sliceRecords yields the records of a snapshot held in memory.
type sliceRecords struct {
	recs []record.Record
	i    int
}

func (s *sliceRecords) next() (record.Record, int64, int, error) {
	if s.i >= len(s.recs) {
		return nil, 0, 0, io.EOF
	}
	s.i++
	return s.recs[s.i-1], -1, s.i - 1, nil
}

func (s *sliceRecords) keep() record.Record { return s.recs[s.i-1] }

// readerRecords yields the records a SnapshotReader reads, decoded
// with one reused record.Decoder: the delta copies what it keeps of each
// record before the next is decoded, so a snapshot load allocates little
// beyond what the image holds.
type readerRecords struct {
	r    SnapshotReader
	name string
	b    *metalog.Batch // the batch being read; nil before the first
	i    int            // the index in b of the next record
	dec  record.Decoder
}

func (s *readerRecords) next() (record.Record, int64, int, error) {
	for s.b == nil || s.i >= len(s.b.Entries) {
		b, err := s.r.Next()
		if err != nil {
			return nil, 0, 0, err
		}
		s.b, s.i = b, 0
		if b.IsControl() {
			s.i = len(b.Entries)
		}
	}
	e := &s.b.Entries[s.i]
	rec, _, err := s.dec.Decode(e.Value)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("publisher: %s: batch at offset %d: record at offset %d: %w", s.name, s.b.BaseOffset, e.Offset, err)
	}
	s.i++
	return rec, s.b.BaseOffset, s.i - 1, nil
}

// keep decodes the last record again with record.Decode, which allocates
// a record of its own (it decoded before, so it decodes again).
func (s *readerRecords) keep() record.Record {
	rec, _, _ := record.Decode(s.b.Entries[s.i-1].Value)
	return rec
}

// loadSnapshot is MetadataLoader's snapshot load of the snapshot id, called
// name in logs, replaying the records recs yields.
func (l *Loader) loadSnapshot(p image.Provenance, id metalog.SnapshotID, name string, recs snapshotRecords) error {
	if l.closed {
		return ErrClosed
	}
	start := time.Now()
	fromEmpty := l.img == nil || l.img.IsEmpty()
	d := delta.NewSnapshot(l.img)
	n := 0
	for {
		r, base, i, err := recs.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		n++
		if err := d.Replay(r); err != nil {
			re := &ReplayError{Offset: -1, Snapshot: &id, Batch: base, Index: i, Record: recs.keep(), Err: err}
			l.setStats(func(s *Stats) { s.ReplayErrors++ })
			l.fault(&Fault{Kind: FaultReplay, Offset: p.LastContainedOffset, Err: re})
			if l.mustHalt(err) {
				return l.halt(re)
			}
		}
	}
	d.FinishSnapshot()
	t0 := l.clock()
	img, err := d.Apply(p)
	apply := since(t0)
	if err != nil {
		l.setStats(func(s *Stats) { s.ApplyErrors++ })
		f := &Fault{Kind: FaultApply, Offset: p.LastContainedOffset, Err: fmt.Errorf("%s: %w", name, err)}
		l.fault(f)
		if l.cfg.ReplayErrors == Halt {
			return l.halt(f)
		}
		return f
	}
	l.halted = nil
	l.resetToImage(img)
	loads := int64(0)
	l.setStats(func(s *Stats) {
		s.Halted = nil
		s.SnapshotLoads++
		loads = s.SnapshotLoads
		s.Loaded = p
	})
	el := time.Since(start)
	l.log.Info("loaded snapshot", "snapshot", name, "offset", p.LastContainedOffset, "records", n, "elapsed", el)
	if h := l.cfg.Hooks.SnapshotLoaded; h != nil {
		h(SnapshotInfo{Provenance: p, Records: n, Elapsed: el, Loads: loads})
	}
	if !l.stillCatchingUp(p.LastContainedOffset) {
		// A snapshot over the empty image is already the whole image as a
		// delta from the empty image: publishers waiting for their first
		// image get it instead of a rewrite of the image (see initPending).
		var full *delta.Delta
		if fromEmpty {
			full = d
		}
		l.publish(d, img, Manifest{Type: SnapshotLoad, Provenance: p, Leader: l.leader, Elapsed: el}, apply, true, full)
	}
	return nil
}
