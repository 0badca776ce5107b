package record

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// MetadataPartitionDir is the name of the metadata log's partition directory
// inside the metadata log directory.
const MetadataPartitionDir = "__cluster_metadata-0"

// DirReader reads a __cluster_metadata-0 directory the way a broker loads it
// at start-up (KafkaMetadataLog, KafkaRaftClient and the metadata loader): the
// latest frozen snapshot, then the log batches that follow it.
//
// The latest snapshot is the one with the largest id (offset, then epoch;
// Snapshots.parse, KafkaMetadataLog.latestSnapshotId). Files that are not
// frozen snapshots or segments are ignored: .checkpoint.part (being written),
// .checkpoint.deleted (being deleted), .index, .timeindex,
// leader-epoch-checkpoint, partition.metadata, quorum-state and anything
// else. The log is read from the snapshot's end offset (0 without a
// snapshot): from the last segment whose base offset is at or before it, and
// batches that end before it are skipped, since a segment that begins before
// the snapshot's end offset is normal. Segments are chained in base-offset
// order, each beginning where the previous one ended. Refused with an error:
// no snapshot and a first segment not at offset 0, a gap or overlap between
// segments, offsets not continuous inside a segment, a snapshot end offset
// that falls inside a batch.
//
// In Finished mode a batch cut short at the end of the last segment is
// damage. In Follow mode it is ErrIncompleteTail, and when the last segment
// is exhausted Next returns io.EOF but looks again on the next call, both for
// more bytes and for the next segment (named after the next offset), so a
// follower can keep calling Next.
type DirReader struct {
	dir   string
	mode  Mode
	snap  *SnapshotReader
	segs  []string // segment paths to read, in order
	files []string // base names of the files chosen
	start int64    // first log offset to deliver
	idx   int
	cur   *SegmentReader
	last  int64
	err   error
}

// OpenDir opens the __cluster_metadata-0 directory at dir, choosing the
// snapshot and segments to read and opening the snapshot. Close it when
// done.
func OpenDir(dir string, mode Mode) (*DirReader, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	type seg struct {
		base int64
		name string
	}
	var segs []seg
	var snapName string
	var snapID SnapshotID
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		n := e.Name()
		if base, err := ParseSegmentName(n); err == nil {
			segs = append(segs, seg{base, n})
			continue
		}
		if id, err := ParseSnapshotName(n); err == nil {
			if snapName == "" || snapID.Less(id) {
				snapName, snapID = n, id
			}
		}
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].base < segs[j].base })

	d := &DirReader{dir: dir, mode: mode, last: -1}
	if snapName != "" {
		d.start = snapID.EndOffset
		d.last = snapID.EndOffset - 1
		d.files = append(d.files, snapName)
	}
	first := 0
	if len(segs) > 0 {
		// The last segment at or before the start offset holds it.
		first = -1
		for i, s := range segs {
			if s.base <= d.start {
				first = i
			}
		}
		if first < 0 {
			if snapName == "" {
				return nil, fmt.Errorf("record: %s: no snapshot, and the first segment %s does not start at offset 0", dir, segs[0].name)
			}
			return nil, fmt.Errorf("record: %s: snapshot %s ends at offset %d but the first segment %s starts after it", dir, snapName, d.start, segs[0].name)
		}
		for _, s := range segs[first:] {
			d.segs = append(d.segs, filepath.Join(dir, s.name))
			d.files = append(d.files, s.name)
		}
	}
	if snapName != "" {
		if d.snap, err = OpenSnapshot(filepath.Join(dir, snapName)); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Snapshot returns the reader of the latest snapshot, or nil when the
// directory has none. Read it before the log batches; Close closes it.
func (d *DirReader) Snapshot() *SnapshotReader { return d.snap }

// Files returns the base names of the files the reader chose, the snapshot
// first, then the segments in the order they are read.
func (d *DirReader) Files() []string { return d.files }

// StartOffset is the first log offset Next delivers: the snapshot's end
// offset, or 0 without a snapshot.
func (d *DirReader) StartOffset() int64 { return d.start }

// LastOffset is the last offset read so far: the last offset of the last
// batch Next returned, or the snapshot's last contained offset before that,
// or -1.
func (d *DirReader) LastOffset() int64 { return d.last }

// Next returns the next log batch after the snapshot, io.EOF at the end
// (in Follow mode: for now), or an error (a *CorruptionError for anything
// about the bytes). The batch is valid until the next call.
func (d *DirReader) Next() (*Batch, error) {
	if d.err != nil {
		return nil, d.err
	}
	for {
		if d.cur == nil {
			if d.idx >= len(d.segs) {
				if d.mode == Follow && d.idx > 0 && d.followNext() {
					continue
				}
				return nil, io.EOF
			}
			if err := d.open(d.segs[d.idx]); err != nil {
				return nil, err
			}
		}
		b, err := d.cur.Next()
		if errors.Is(err, io.EOF) {
			if d.idx == len(d.segs)-1 {
				if d.mode == Follow && d.followNext() {
					continue
				}
				return nil, io.EOF
			}
			// The next segment must begin where this one ended.
			next := d.segs[d.idx+1]
			base, _ := ParseSegmentName(filepath.Base(next))
			if want := d.cur.NextOffset(); base != want {
				return nil, d.fail(&CorruptionError{File: next, Position: 0, Offset: base,
					Err: fmt.Errorf("%w: segment starts at offset %d but the previous segment ends before offset %d", ErrCorrupt, base, want)})
			}
			d.cur.Close()
			d.cur = nil
			d.idx++
			continue
		}
		if err != nil {
			if errors.Is(err, ErrIncompleteTail) {
				return nil, err
			}
			return nil, d.fail(err)
		}
		if b.LastOffset() < d.start {
			continue // covered by the snapshot
		}
		if b.BaseOffset < d.start {
			return nil, d.fail(&CorruptionError{File: d.cur.Name(), Position: b.Position, Offset: b.BaseOffset,
				Err: fmt.Errorf("%w: the snapshot ends at offset %d, inside the batch at offsets %d..%d", ErrCorrupt, d.start, b.BaseOffset, b.LastOffset())})
		}
		d.last = b.LastOffset()
		return b, nil
	}
}

func (d *DirReader) open(path string) error {
	mode := Finished
	if d.mode == Follow && d.idx == len(d.segs)-1 {
		mode = Follow
	}
	s, err := OpenSegment(path, mode)
	if err != nil {
		return d.fail(err)
	}
	d.cur = s
	return nil
}

// followNext switches to the segment that begins at the current segment's
// next offset, if it has appeared, and reports whether it did.
func (d *DirReader) followNext() bool {
	if d.cur == nil {
		return false
	}
	next := d.cur.NextOffset()
	p := filepath.Join(d.dir, SegmentName(next))
	if p == d.segs[d.idx] {
		return false // an empty segment: it ends where it begins, at its own name
	}
	if _, err := os.Stat(p); err != nil {
		return false
	}
	d.cur.Close()
	d.cur = nil
	d.segs = append(d.segs, p)
	d.files = append(d.files, filepath.Base(p))
	d.idx++
	return true
}

func (d *DirReader) fail(err error) error {
	d.err = err
	return err
}

// Close closes every file the reader has open.
func (d *DirReader) Close() error {
	var err error
	if d.cur != nil {
		err = d.cur.Close()
		d.cur = nil
	}
	if d.snap != nil {
		if cerr := d.snap.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
