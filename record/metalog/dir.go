package metalog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"sort"

	"github.com/kmeta-go/kmeta/record"
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
// more bytes and for the next segment (named after the next offset; for a
// directory opened without segments, the one named after the start offset),
// so a follower can keep calling Next. An empty active segment (as
// UnifiedLog.roll leaves one) is waited on, never taken for its own
// successor. A batch cut short in a segment that a later segment follows is
// damage in both modes: Kafka appends only to the newest segment. Verify
// tells a follower whether the directory still holds what it read (not
// truncated, rewritten, deleted or replaced under it); the reader itself
// never reopens the directory. The reader keeps one entry per segment it
// moved to (a path), nothing per batch.
type DirReader struct {
	fsys  FS
	dir   string // the directory's name in fsys, and in errors
	mode  Mode
	snap  *SnapshotReader
	segs  []string // base names of the segments to read, in order
	files []string // base names of the files chosen
	start int64    // first log offset to deliver
	idx   int
	cur   *SegmentReader
	last  int64
	err   error
	// The last batch Next returned: its file, byte position, base offset
	// and CRC, so that Verify can tell whether it is still there.
	lastFile string
	lastPos  int64
	lastBase int64
	lastCRC  uint32
	hdr      [21]byte // Verify's read of the last batch's header
}

// OpenDir opens the __cluster_metadata-0 directory dir of fsys (OS{} for the
// operating system's files, a *MemFS, FromIOFS of an archive...), choosing
// the snapshot and segments to read and opening the snapshot. Errors name
// files as fsys.PathJoin(dir, name). Finished mode needs only Open and
// ReadDir; Follow mode what FS says a live directory gives. Close it when
// done.
func OpenDir(fsys FS, dir string, mode Mode) (*DirReader, error) {
	ents, err := fsys.ReadDir(dir)
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

	d := &DirReader{fsys: fsys, dir: dir, mode: mode, last: -1}
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
				return nil, fmt.Errorf("metalog: %s: no snapshot, and the first segment %s does not start at offset 0", dir, segs[0].name)
			}
			return nil, fmt.Errorf("metalog: %s: snapshot %s ends at offset %d but the first segment %s starts after it", dir, snapName, d.start, segs[0].name)
		}
		for _, s := range segs[first:] {
			d.segs = append(d.segs, s.name)
			d.files = append(d.files, s.name)
		}
	}
	if snapName != "" {
		if d.snap, err = OpenSnapshot(fsys, d.name(snapName)); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// name is the name of the directory's file base in fsys, and in errors.
func (d *DirReader) name(base string) string { return d.fsys.PathJoin(d.dir, base) }

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
				if d.mode == Follow && len(d.segs) == 0 && d.followFirst() {
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
				d.cur.shrink()
				return nil, io.EOF
			}
			// The next segment must begin where this one ended.
			next := d.segs[d.idx+1]
			base, _ := ParseSegmentName(next)
			if want := d.cur.NextOffset(); base != want {
				return nil, d.fail(&CorruptionError{File: d.name(next), Position: 0, Offset: base,
					Err: fmt.Errorf("%w: segment starts at offset %d but the previous segment ends before offset %d", record.ErrCorrupt, base, want)})
			}
			d.cur.Close()
			d.cur = nil
			d.idx++
			continue
		}
		if err != nil {
			if errors.Is(err, ErrIncompleteTail) {
				return d.incompleteTail(err)
			}
			return nil, d.fail(err)
		}
		if b.LastOffset() < d.start {
			continue // covered by the snapshot
		}
		if b.BaseOffset < d.start {
			return nil, d.fail(&CorruptionError{File: d.cur.Name(), Position: b.Position, Offset: b.BaseOffset,
				Err: fmt.Errorf("%w: the snapshot ends at offset %d, inside the batch at offsets %d..%d", record.ErrCorrupt, d.start, b.BaseOffset, b.LastOffset())})
		}
		d.last = b.LastOffset()
		d.lastFile, d.lastPos, d.lastBase, d.lastCRC = d.cur.Name(), b.Position, b.BaseOffset, b.CRC
		return b, nil
	}
}

// incompleteTail handles a batch cut short at the end of the segment being
// followed. Kafka appends only to the newest segment (UnifiedLog.append
// writes to the active segment; roll makes a new one only after the last
// append to the old one completed), so a tail cut short in a segment that
// a later segment follows is damage, not an append in progress. The bytes
// are read once more first: the batch may have been completed and the
// segment rolled since the first read.
func (d *DirReader) incompleteTail(err error) (*Batch, error) {
	later := d.laterSegment()
	if later == "" {
		return nil, err
	}
	b, err := d.cur.Next()
	if err == nil {
		if b.LastOffset() < d.start {
			return d.Next()
		}
		d.last = b.LastOffset()
		d.lastFile, d.lastPos, d.lastBase, d.lastCRC = d.cur.Name(), b.Position, b.BaseOffset, b.CRC
		return b, nil
	}
	var ce *CorruptionError
	if errors.Is(err, ErrIncompleteTail) && errors.As(err, &ce) {
		return nil, d.fail(&CorruptionError{File: ce.File, Position: ce.Position, Offset: ce.Offset,
			Err: fmt.Errorf("%w: %v, but segment %s follows: a tail cut short that is not in the newest segment", record.ErrCorrupt, ce.Err, later)})
	}
	return nil, d.fail(err)
}

// laterSegment returns the name of a segment in the directory whose base
// offset is above the current segment's, or "".
func (d *DirReader) laterSegment() string {
	if d.cur == nil {
		return ""
	}
	ents, err := d.fsys.ReadDir(d.dir)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		if base, err := ParseSegmentName(e.Name()); err == nil && base > d.cur.BaseOffset() {
			return e.Name()
		}
	}
	return ""
}

// followFirst, for a directory that had no segment when it was opened,
// takes the segment that begins at the start offset once it appears (the
// segment UnifiedLog creates at the log start offset).
func (d *DirReader) followFirst() bool {
	p := SegmentName(d.start)
	if _, err := d.fsys.Stat(d.name(p)); err != nil {
		return false
	}
	d.segs = append(d.segs, p)
	d.files = append(d.files, p)
	return true
}

// ErrLogChanged is wrapped by the error Verify returns when the directory
// no longer holds what the reader read: the segment being read was
// truncated (UnifiedLog.truncateTo, as the raft client truncates a diverging
// suffix), rewritten, deleted (retention after a snapshot,
// UnifiedLog.deleteOldSegments; KafkaMetadataLog.truncateToLatestSnapshot)
// or replaced, or segments appeared in a directory that had none where
// the reader expects its first one. A follower reopens the directory.
var ErrLogChanged = errors.New("the log changed under the reader")

// Verify checks, in Follow mode, that the directory still holds what the
// reader has read: that the segment being read is still the file at its
// path, no shorter than the bytes read from it, and that the last batch
// returned is still at its position with the same base offset and CRC. It
// returns nil when it is, the reader's sticky error if it has one, or a
// *CorruptionError wrapping ErrLogChanged naming the file, the byte
// position and the offset. It costs a stat and a read of 21 bytes; a
// follower calls it when Next has nothing new.
func (d *DirReader) Verify() error {
	if d.err != nil {
		return d.err
	}
	if d.cur == nil {
		if len(d.segs) > 0 || d.idx > 0 {
			return nil
		}
		// No segment yet: the one expected is named after the start
		// offset; any other means the directory was rewritten.
		if _, err := d.fsys.Stat(d.dir); err != nil {
			return &CorruptionError{File: d.dir, Position: 0, Offset: d.start, Err: fmt.Errorf("%w: %v", ErrLogChanged, err)}
		}
		if later := d.segmentOtherThan(SegmentName(d.start)); later != "" {
			return &CorruptionError{File: d.name(later), Position: 0, Offset: d.start,
				Err: fmt.Errorf("%w: segment %s appeared, the log continues at offset %d", ErrLogChanged, later, d.start)}
		}
		return nil
	}
	name := d.cur.Name()
	pos := d.cur.Position()
	changed := func(format string, args ...any) error {
		return &CorruptionError{File: name, Position: pos, Offset: d.cur.NextOffset(), Err: fmt.Errorf("%w: "+format, append([]any{ErrLogChanged}, args...)...)}
	}
	st, err := d.fsys.Stat(name)
	if err != nil {
		return changed("segment no longer there: %v", err)
	}
	open, err := d.cur.f.Stat()
	if err != nil {
		return changed("%v", err)
	}
	ra := d.cur.f
	if !sameFile(st, open) {
		return changed("segment replaced by another file")
	}
	if st.Size() < pos {
		return changed("segment truncated to %d bytes, below the %d bytes read", st.Size(), pos)
	}
	if pend := d.cur.pending(); len(pend) > 0 {
		// Part of a batch read and waiting for the rest: it must still be
		// in the file, or the reader would wait for a length that is no
		// longer there.
		if st.Size() < pos+int64(len(pend)) {
			return changed("segment truncated to %d bytes, inside the %d bytes of a batch being read", st.Size(), len(pend))
		}
		n := min(len(pend), BatchHeaderSize)
		buf := make([]byte, n)
		if _, err := ra.ReadAt(buf, pos); err != nil || string(buf) != string(pend[:n]) {
			return changed("the batch being appended at byte %d was rewritten", pos)
		}
	}
	if d.lastFile == name {
		hdr := d.hdr[:] // not on the stack: ReadAt is an interface call
		if _, err := ra.ReadAt(hdr, d.lastPos); err != nil {
			return changed("last batch read (offset %d at byte %d) no longer readable: %v", d.lastBase, d.lastPos, err)
		}
		base := int64(binary.BigEndian.Uint64(hdr[0:]))
		crc := binary.BigEndian.Uint32(hdr[17:])
		if base != d.lastBase || crc != d.lastCRC {
			return changed("the batch at byte %d was rewritten (offset %d CRC %#08x, now offset %d CRC %#08x)", d.lastPos, d.lastBase, d.lastCRC, base, crc)
		}
	}
	return nil
}

// sameFile reports whether two FileInfos describe the same file:
// os.SameFile for the operating system's files, equal Sys values for
// others (MemFS gives each file its own).
func sameFile(a, b fs.FileInfo) bool {
	if os.SameFile(a, b) {
		return true
	}
	if os.SameFile(a, a) || os.SameFile(b, b) {
		return false // an operating system file, and another
	}
	sa, sb := a.Sys(), b.Sys()
	if sa == nil || sb == nil || !reflect.TypeOf(sa).Comparable() || !reflect.TypeOf(sb).Comparable() {
		return sa == nil && sb == nil
	}
	return sa == sb
}

func (d *DirReader) segmentOtherThan(name string) string {
	ents, err := d.fsys.ReadDir(d.dir)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		if _, err := ParseSegmentName(e.Name()); err == nil && e.Name() != name {
			return e.Name()
		}
	}
	return ""
}

// Position says where the reader stands: the file it reads (or the
// directory before any segment), the byte position of the next batch in it
// and the offset that batch must start at.
func (d *DirReader) Position() (file string, pos int64, offset int64) {
	if d.cur != nil {
		return d.cur.Name(), d.cur.Position(), d.cur.NextOffset()
	}
	if d.idx > 0 && d.idx <= len(d.segs) {
		return d.name(d.segs[d.idx-1]), 0, d.last + 1
	}
	return d.dir, 0, d.last + 1
}

func (d *DirReader) open(path string) error {
	mode := Finished
	if d.mode == Follow && d.idx == len(d.segs)-1 {
		mode = Follow
	}
	s, err := OpenSegment(d.fsys, d.name(path), mode)
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
	if next <= d.cur.BaseOffset() {
		// Nothing read from this segment yet: the segment named after the
		// next offset is this one (an empty active segment, as
		// UnifiedLog.roll leaves one). Kafka never rolls an empty segment,
		// so there is nothing to switch to.
		return false
	}
	p := SegmentName(next)
	if p == d.segs[d.idx] {
		return false // an empty segment: it ends where it begins, at its own name
	}
	if _, err := d.fsys.Stat(d.name(p)); err != nil {
		return false
	}
	d.cur.Close()
	d.cur = nil
	d.segs = append(d.segs, p)
	d.files = append(d.files, p)
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
