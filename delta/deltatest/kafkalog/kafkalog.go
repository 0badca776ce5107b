// Package kafkalog changes a __cluster_metadata-0 directory the way Kafka's
// log layer does, for tests of readers that follow a live directory: batches
// appended to the active segment (UnifiedLog.append, LogSegment.append),
// with .index and .timeindex files beside each segment (sparse entries every
// index interval, preallocated and trimmed on roll as AbstractIndex does); a
// segment roll once the active segment would exceed the segment size
// (LogSegment.shouldRoll, UnifiedLog.roll); snapshots written as
// <id>-<random>.checkpoint.part and renamed to <id>.checkpoint
// (FileRawSnapshotWriter.freeze); deletion of the segments and snapshots
// below a snapshot (KafkaMetadataLog.deleteBeforeSnapshot,
// UnifiedLog.deleteOldSegments, renaming to .deleted first); truncation of
// the log's tail (UnifiedLog.truncateTo, LogSegment.truncateTo) and full
// truncation to a snapshot (truncateFullyAndStartAt). It also writes a
// batch in two pieces, as a reader may see an append in progress.
//
// It is test support for readers of a live directory (like its parent
// deltatest), and holds no Kafka code: the files are what those Kafka
// classes leave on disk, written with the record package.
package kafkalog

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// DefaultSegmentBytes is a small segment size for tests; Kafka's
// metadata.log.segment.bytes defaults to 1 GiB (and may be set down to
// metadata.log.segment.min.bytes, 8 MiB).
const DefaultSegmentBytes = 64 << 10

// indexInterval is LogConfig's index.interval.bytes default: an index entry
// every 4096 bytes appended.
const indexInterval = 4096

// indexPrealloc is how much Kafka-like preallocation the writer gives a new
// index file (Kafka preallocates segment.index.bytes, 10 MiB, and trims the
// file to its entries on roll); kept small here.
const indexPrealloc = 8 << 10

// Config is what a Log keeps for its life (given to Create); the zero
// value is Kafka's defaults where Kafka has one.
type Config struct {
	// SegmentBytes rolls the active segment when an append would take it
	// past this size (0: DefaultSegmentBytes).
	SegmentBytes int64
	// KeepDeleted leaves the .deleted files that deletion renames segments
	// and snapshots to, as Kafka does until file.delete.delay.ms passes;
	// false removes them at once.
	KeepDeleted bool
}

// batchPos is where one batch is in its segment.
type batchPos struct {
	base, last int64
	pos        int64
	epoch      int32
	time       int64
}

type segment struct {
	base    int64
	f       *os.File
	size    int64
	batches []batchPos
	// bytes since the last index entry, and the index entries written.
	sinceIndex   int64
	indexEntries int64
}

// Log is a metadata log directory being written.
type Log struct {
	dir   string
	cfg   Config
	segs  []*segment // in base offset order; the last is active
	next  int64      // log end offset
	snaps []metalog.SnapshotID
	// partial is a batch written in part by AppendPartial.
	partial []byte
}

// Create makes dir (if needed) and starts a log in it whose log start and
// end offset is start, with an empty active segment there (UnifiedLog
// creates the first segment at the log start offset; KafkaMetadataLog
// starts it after a snapshot at the snapshot's end offset).
func Create(dir string, start int64, cfg Config) (*Log, error) {
	if cfg.SegmentBytes <= 0 {
		cfg.SegmentBytes = DefaultSegmentBytes
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	l := &Log{dir: dir, cfg: cfg, next: start}
	if err := l.newSegment(start); err != nil {
		return nil, err
	}
	return l, nil
}

// Dir is the directory.
func (l *Log) Dir() string { return l.dir }

// EndOffset is the log end offset: the offset of the next batch.
func (l *Log) EndOffset() int64 { return l.next }

// StartOffset is the base offset of the first segment.
func (l *Log) StartOffset() int64 { return l.segs[0].base }

// Segments returns the base offsets of the segments.
func (l *Log) Segments() []int64 {
	out := make([]int64, len(l.segs))
	for i, s := range l.segs {
		out[i] = s.base
	}
	return out
}

// Snapshots returns the ids of the frozen snapshots written and not deleted.
func (l *Log) Snapshots() []metalog.SnapshotID { return append([]metalog.SnapshotID(nil), l.snaps...) }

func (l *Log) active() *segment { return l.segs[len(l.segs)-1] }

func (l *Log) path(base int64, suffix string) string {
	return filepath.Join(l.dir, fmt.Sprintf("%020d%s", base, suffix))
}

func (l *Log) newSegment(base int64) error {
	// UnifiedLog.roll: a segment file already there at the new base offset
	// is deleted first when empty.
	p := l.path(base, metalog.SegmentSuffix)
	if st, err := os.Stat(p); err == nil {
		if st.Size() > 0 {
			return fmt.Errorf("kafkalog: segment %s already exists and is not empty", p)
		}
		os.Remove(p)
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	for _, suf := range []string{".index", ".timeindex"} {
		if err := preallocate(l.path(base, suf)); err != nil {
			f.Close()
			return err
		}
	}
	l.segs = append(l.segs, &segment{base: base, f: f})
	return nil
}

func preallocate(p string) error {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if err := f.Truncate(indexPrealloc); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Roll closes the active segment (trimming its index files to their
// entries, AbstractIndex.trimToValidSize) and starts an empty one at the log
// end offset (UnifiedLog.roll).
func (l *Log) Roll() error {
	if l.partial != nil {
		return fmt.Errorf("kafkalog: roll with a batch half written")
	}
	a := l.active()
	if a.size == 0 {
		// UnifiedLog.roll: an empty active segment at the new base
		// offset is deleted and made again.
		a.f.Close()
		for _, suf := range []string{metalog.SegmentSuffix, ".index", ".timeindex"} {
			os.Remove(l.path(a.base, suf))
		}
		l.segs = l.segs[:len(l.segs)-1]
		return l.newSegment(l.next)
	}
	if err := l.trimIndexes(a); err != nil {
		return err
	}
	if err := a.f.Sync(); err != nil {
		return err
	}
	return l.newSegment(l.next)
}

func (l *Log) trimIndexes(s *segment) error {
	if err := os.Truncate(l.path(s.base, ".index"), s.indexEntries*8); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Truncate(l.path(s.base, ".timeindex"), s.indexEntries*12); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// Append appends one encoded batch (record batch v2) at the log end
// offset, rolling first when the active segment is not empty and the batch
// would take it past the segment size (LogSegment.shouldRoll).
func (l *Log) Append(batch []byte) error {
	if l.partial != nil {
		return fmt.Errorf("kafkalog: append with a batch half written")
	}
	if err := l.checkBatch(batch); err != nil {
		return err
	}
	if a := l.active(); a.size > 0 && a.size+int64(len(batch)) > l.cfg.SegmentBytes {
		if err := l.Roll(); err != nil {
			return err
		}
	}
	return l.write(batch, len(batch))
}

// AppendPartial writes the first n bytes of batch, as a reader may find an
// append in progress; Complete writes the rest.
func (l *Log) AppendPartial(batch []byte, n int) error {
	if l.partial != nil {
		return fmt.Errorf("kafkalog: append with a batch half written")
	}
	if n <= 0 || n >= len(batch) {
		return fmt.Errorf("kafkalog: partial length %d of a %d-byte batch", n, len(batch))
	}
	if err := l.checkBatch(batch); err != nil {
		return err
	}
	if a := l.active(); a.size > 0 && a.size+int64(len(batch)) > l.cfg.SegmentBytes {
		if err := l.Roll(); err != nil {
			return err
		}
	}
	a := l.active()
	if _, err := a.f.WriteAt(batch[:n], a.size); err != nil {
		return err
	}
	l.partial = append([]byte(nil), batch...)
	return nil
}

// Complete writes the rest of the batch AppendPartial began.
func (l *Log) Complete() error {
	if l.partial == nil {
		return fmt.Errorf("kafkalog: no batch half written")
	}
	b := l.partial
	l.partial = nil
	return l.write(b, len(b))
}

func (l *Log) checkBatch(batch []byte) error {
	if batch == nil {
		return nil
	}
	if len(batch) < metalog.BatchHeaderSize {
		return fmt.Errorf("kafkalog: %d bytes is no batch", len(batch))
	}
	if base := int64(binary.BigEndian.Uint64(batch)); base != l.next {
		return fmt.Errorf("kafkalog: batch at offset %d, the log ends at %d", base, l.next)
	}
	return nil
}

func (l *Log) write(batch []byte, n int) error {
	if batch == nil {
		return nil
	}
	var b metalog.Batch
	if _, err := metalog.ParseBatch(batch, &b); err != nil {
		return err
	}
	a := l.active()
	if _, err := a.f.WriteAt(batch, a.size); err != nil {
		return err
	}
	a.batches = append(a.batches, batchPos{base: b.BaseOffset, last: b.LastOffset(), pos: a.size, epoch: b.PartitionLeaderEpoch, time: b.MaxTimestamp})
	if a.sinceIndex >= indexInterval {
		// LogSegment.append: an offset index and a time index entry when
		// more than index.interval.bytes were appended since the last.
		if err := l.indexEntry(a, b.LastOffset(), a.size, b.MaxTimestamp); err != nil {
			return err
		}
		a.sinceIndex = 0
	}
	a.size += int64(len(batch))
	a.sinceIndex += int64(len(batch))
	l.next = b.NextOffset()
	return nil
}

func (l *Log) indexEntry(s *segment, offset, pos, ts int64) error {
	if (s.indexEntries+1)*12 > indexPrealloc {
		return nil // the preallocated index is full; Kafka would roll
	}
	var e [12]byte
	binary.BigEndian.PutUint32(e[0:], uint32(offset-s.base))
	binary.BigEndian.PutUint32(e[4:], uint32(pos))
	if err := writeAt(l.path(s.base, ".index"), e[:8], s.indexEntries*8); err != nil {
		return err
	}
	binary.BigEndian.PutUint64(e[0:], uint64(ts))
	binary.BigEndian.PutUint32(e[8:], uint32(offset-s.base))
	if err := writeAt(l.path(s.base, ".timeindex"), e[:12], s.indexEntries*12); err != nil {
		return err
	}
	s.indexEntries++
	return nil
}

func writeAt(p string, b []byte, off int64) error {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(b, off)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// AppendSim appends the simulator's batches, encoded as Kafka's raft layer
// writes them.
func (l *Log) AppendSim(batches ...record.Batch) error {
	for i := range batches {
		data, err := metalog.AppendDecoded(nil, &batches[i])
		if err != nil {
			return err
		}
		if err := l.Append(data); err != nil {
			return err
		}
	}
	return nil
}

// SnapshotWriter is a snapshot being written: its .checkpoint.part file is
// in the directory until Freeze renames it.
type SnapshotWriter struct {
	l *Log
	w *metalog.SnapshotWriter
}

// StartSnapshot writes img, as the controller's SnapshotEmitter does, into
// a .checkpoint.part file named after the snapshot id of img's provenance,
// and leaves it there until Freeze (KafkaMetadataLog.createSnapshot,
// FileRawSnapshotWriter).
func (l *Log) StartSnapshot(img *image.Image) (*SnapshotWriter, error) {
	p := img.Provenance()
	if p.LastContainedOffset < 0 {
		return nil, fmt.Errorf("kafkalog: no snapshot of an image before offset 0")
	}
	id := metalog.SnapshotID{EndOffset: p.LastContainedOffset + 1, Epoch: p.LastContainedEpoch}
	if n := len(l.snaps); n > 0 && id.Less(l.snaps[n-1]) {
		return nil, fmt.Errorf("kafkalog: snapshot %v is not after the latest %v", id, l.snaps[n-1])
	}
	t := p.LastContainedLogTimeMs
	w, err := metalog.CreateSnapshot(metalog.OS{}, l.dir, id, metalog.SnapshotWriterConfig{LastContainedLogTimestamp: t, Now: func() int64 { return t }})
	if err != nil {
		return nil, err
	}
	if err := img.Write(image.WriteOptions{}, func(r record.Record, v int16) error { return w.AppendRecord(r, v) }); err != nil {
		w.Close()
		return nil, err
	}
	return &SnapshotWriter{l: l, w: w}, nil
}

// Freeze writes the footer and renames the .part file to the snapshot's
// name (FileRawSnapshotWriter.freeze, Snapshots.moveRename).
func (s *SnapshotWriter) Freeze() (metalog.SnapshotID, error) {
	if _, err := s.w.Freeze(); err != nil {
		return metalog.SnapshotID{}, err
	}
	s.l.snaps = append(s.l.snaps, s.w.ID())
	return s.w.ID(), nil
}

// Snapshot writes and freezes a snapshot of img.
func (l *Log) Snapshot(img *image.Image) (metalog.SnapshotID, error) {
	s, err := l.StartSnapshot(img)
	if err != nil {
		return metalog.SnapshotID{}, err
	}
	return s.Freeze()
}

// DeleteBeforeSnapshot is KafkaMetadataLog.deleteBeforeSnapshot after the
// snapshot id was frozen: the log start offset moves to the snapshot's end
// offset, every segment whose next segment begins at or before it is
// deleted (UnifiedLog.deleteOldSegments; the active segment never is), and
// the older snapshots are deleted (removeSnapshotFilesBefore). Deleted
// files are renamed to .deleted first.
func (l *Log) DeleteBeforeSnapshot(id metalog.SnapshotID) error {
	for len(l.segs) > 1 && l.segs[1].base <= id.EndOffset {
		if err := l.deleteSegment(l.segs[0]); err != nil {
			return err
		}
		l.segs = l.segs[1:]
	}
	keep := l.snaps[:0]
	for _, s := range l.snaps {
		if s.Less(id) {
			if err := l.deleteFile(filepath.Join(l.dir, s.FileName())); err != nil {
				return err
			}
			continue
		}
		keep = append(keep, s)
	}
	l.snaps = keep
	return nil
}

func (l *Log) deleteSegment(s *segment) error {
	s.f.Close()
	for _, suf := range []string{metalog.SegmentSuffix, ".index", ".timeindex"} {
		if err := l.deleteFile(l.path(s.base, suf)); err != nil {
			return err
		}
	}
	return nil
}

// deleteFile renames p to p.deleted (LogSegment.changeFileSuffixes,
// Snapshots.deleteRename) and removes it unless KeepDeleted.
func (l *Log) deleteFile(p string) error {
	d := p + ".deleted"
	if err := os.Rename(p, d); err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	if l.cfg.KeepDeleted {
		return nil
	}
	return os.Remove(d)
}

// TruncateTo removes every offset at or after offset (UnifiedLog.truncateTo
// as the raft client calls it on a diverging epoch): segments that begin at
// or after it are deleted, and the segment holding it is cut at the batch
// that holds it (LogSegment.truncateTo: the whole batch goes). When offset
// is at or before the first segment's base, the log is truncated fully and
// starts at offset (truncateFullyAndStartAt). It returns the new log end
// offset, which is below offset when offset fell inside a batch.
func (l *Log) TruncateTo(offset int64) (int64, error) {
	if l.partial != nil {
		l.partial = nil // the half-written bytes go with the truncation
		if err := l.active().f.Truncate(l.active().size); err != nil {
			return 0, err
		}
	}
	if offset >= l.next {
		return l.next, nil
	}
	if offset <= l.segs[0].base {
		return offset, l.TruncateFullyAndStartAt(offset)
	}
	for len(l.segs) > 1 && l.active().base >= offset {
		if err := l.deleteSegment(l.active()); err != nil {
			return 0, err
		}
		l.segs = l.segs[:len(l.segs)-1]
	}
	a := l.active()
	i := sort.Search(len(a.batches), func(i int) bool { return a.batches[i].last >= offset })
	if i == len(a.batches) {
		// offset is the base of a segment just deleted: the log now ends
		// where this segment does.
		l.next = a.base
		if n := len(a.batches); n > 0 {
			l.next = a.batches[n-1].last + 1
		}
	} else {
		cut := a.batches[i].pos
		if err := a.f.Truncate(cut); err != nil {
			return 0, err
		}
		a.size = cut
		l.next = a.batches[i].base
		if i == 0 {
			l.next = a.base
		}
		a.batches = a.batches[:i]
		a.sinceIndex = 0
		// Index entries past the cut go too (OffsetIndex.truncateTo).
		a.indexEntries = 0
		if err := l.trimIndexes(a); err != nil {
			return 0, err
		}
		for _, suf := range []string{".index", ".timeindex"} {
			if err := os.Truncate(l.path(a.base, suf), indexPrealloc); err != nil {
				return 0, err
			}
		}
	}
	return l.next, nil
}

// TruncateFullyAndStartAt deletes every segment and starts an empty one at
// offset (UnifiedLog.truncateFullyAndStartAt, as
// KafkaMetadataLog.truncateToLatestSnapshot calls it when a follower
// downloaded a snapshot past its log end).
func (l *Log) TruncateFullyAndStartAt(offset int64) error {
	l.partial = nil
	old := l.segs
	last := old[len(old)-1]
	// LocalLog.truncateFullyAndStartAt: every segment but the last goes,
	// then createAndDeleteSegment replaces the last with the new one (the
	// old one renamed to .deleted first when they share a base offset), so
	// that the log has a segment at almost every moment.
	for _, s := range old[:len(old)-1] {
		if err := l.deleteSegment(s); err != nil {
			return err
		}
	}
	l.segs = nil
	l.next = offset
	if last.base == offset {
		if err := l.deleteSegment(last); err != nil {
			return err
		}
		return l.newSegment(offset)
	}
	if err := l.newSegment(offset); err != nil {
		return err
	}
	return l.deleteSegment(last)
}

// Close syncs and closes the segment files.
func (l *Log) Close() error {
	var err error
	for _, s := range l.segs {
		if cerr := s.f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// Files lists the directory's file names, sorted, for test messages.
func (l *Log) Files() string {
	ents, _ := os.ReadDir(l.dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}
