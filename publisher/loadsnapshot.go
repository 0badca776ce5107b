package publisher

import (
	"fmt"
	"io"
	"time"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// LoadSnapshot loads a snapshot held in memory
// (RaftClient.Listener.handleLoadSnapshot): a delta from the current image
// that replays every record and then deletes whatever the snapshot did not
// re-assert (delta.NewSnapshot, FinishSnapshot). Anything loaded but not
// yet published (an open transaction) is discarded. A halted loader resumes
// from a snapshot.
func (l *Loader) LoadSnapshot(s Snapshot) error {
	l.enter()
	defer l.leave()
	p := image.Provenance{LastContainedOffset: s.LastContainedOffset, LastContainedEpoch: s.LastContainedEpoch, LastContainedLogTimeMs: s.LastContainedLogTime, BatchAligned: true}
	if s.LastContainedOffset < 0 && len(s.Records) == 0 {
		// A snapshot of no log at all: the empty image, with its provenance.
		p = image.EmptyProvenance
	}
	i := 0
	id := record.SnapshotID{EndOffset: s.LastContainedOffset + 1, Epoch: s.LastContainedEpoch}
	return l.loadSnapshot(p, id, fmt.Sprintf("snapshot %d-%d", id.EndOffset, id.Epoch), func() ([]record.Record, int64, error) {
		if i > 0 {
			return nil, 0, io.EOF
		}
		i++
		return s.Records, -1, nil
	})
}

// LoadSnapshotReader loads the snapshot a record.SnapshotReader reads, as
// LoadSnapshot does, with the provenance Kafka's loader takes from it: the
// id's offset and epoch and the header's LastContainedLogTimestamp. It reads
// the reader to its end; a snapshot that is damaged or lacks its footer
// (record.ErrIncompleteSnapshot) is an error and changes nothing. It does
// not close the reader.
func (l *Loader) LoadSnapshotReader(r *record.SnapshotReader) error {
	l.enter()
	defer l.leave()
	p := image.Provenance{LastContainedOffset: r.LastContainedLogOffset(), LastContainedEpoch: r.LastContainedLogEpoch(), LastContainedLogTimeMs: r.LastContainedLogTimestamp(), BatchAligned: true}
	if v, ok := r.KRaftVersion(); ok {
		defer func() { l.kraftVersion = v; l.setStats(func(s *Stats) { s.KRaftVersion = v }) }()
	}
	return l.loadSnapshot(p, r.ID(), r.Name(), func() ([]record.Record, int64, error) {
		for {
			b, err := r.Next()
			if err != nil {
				return nil, 0, err
			}
			if b.IsControl() {
				continue
			}
			recs, err := b.DecodeRecords()
			if err != nil {
				return nil, 0, fmt.Errorf("publisher: %s: batch at offset %d: %w", r.Name(), b.BaseOffset, err)
			}
			out := make([]record.Record, len(recs))
			for i, d := range recs {
				out[i] = d.Record
			}
			return out, b.BaseOffset, nil
		}
	})
}

// loadSnapshot is MetadataLoader's snapshot load of the snapshot id, called
// name in logs. next returns the records of the snapshot batch by batch with
// the batch's base offset inside the snapshot (-1 for a list of records),
// and io.EOF at the end.
func (l *Loader) loadSnapshot(p image.Provenance, id record.SnapshotID, name string, next func() ([]record.Record, int64, error)) error {
	if l.closed {
		return ErrClosed
	}
	start := time.Now()
	d := delta.NewSnapshot(l.img)
	n := 0
	for {
		recs, base, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		for i, r := range recs {
			n++
			if err := d.Replay(r); err != nil {
				re := &ReplayError{Offset: -1, Snapshot: &id, Batch: base, Index: i, Record: r, Err: err}
				l.setStats(func(s *Stats) { s.ReplayErrors++ })
				l.fault(&Fault{Kind: FaultReplay, Offset: p.LastContainedOffset, Err: re})
				if l.mustHalt(err) {
					return l.halt(re)
				}
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
		l.publish(d, img, Manifest{Type: SnapshotLoad, Provenance: p, Leader: l.leader, Elapsed: el}, apply, true)
	}
	return nil
}
