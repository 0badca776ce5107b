package history

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kmeta-go/kmeta/record/metalog"
)

// Read gathers the history of path: a log segment (<offset>.log), a
// snapshot (<offset>-<epoch>.checkpoint), a bootstrap.checkpoint, a
// __cluster_metadata-0 directory, or a metadata log directory holding one.
//
// A directory is read from as far back as its files allow: from offset 0
// when its first segment starts there (its snapshots are then redundant),
// else from its earliest snapshot that the segments continue, then every
// segment batch after it.
//
// On an error (a damaged file, a batch cut short at the end of the last
// segment, a record that does not decode) Read returns the history of
// everything before it together with the error, which names the file and
// offset; the history's findings end with a RuleUnreadable finding saying
// the same. A segment that starts above offset 0 is replayed from the
// files before it in its directory (a snapshot the segments continue, the
// earlier segments), its findings from its own first offset on; without
// them Read returns a *StartError and no history.
func Read(path string, opts Options) (*History, error) {
	l, err := openLog(path, nil)
	if err != nil {
		return nil, err
	}
	defer l.close()
	b := NewBuilder(BuilderConfig(opts))
	b.verify = l.later
	b.chk.from = l.from
	err = l.feed(b, nil)
	if err != nil {
		b.chk.unreadable(err)
	}
	return b.Finish(), err
}

// OpenLog chooses the files to read for path as Read does (at nil: from as
// far back as the files allow) or as ImageAt does (at an offset point: from
// the latest snapshot at or before it; other points as nil). Close it when
// done.
func OpenLog(path string, at *Point) (*Log, error) {
	var upTo *int64
	if at != nil {
		if o, ok := at.Offset(); ok && o != math.MaxInt64 {
			upTo = &o
		}
	}
	l, err := openLog(path, upTo)
	if err != nil {
		return nil, err
	}
	l.path = path
	return l, nil
}

// Snapshot returns the snapshot (or bootstrap file) the log starts from and
// its path, nil if none. Read it before the batches.
func (l *Log) Snapshot() (*metalog.SnapshotReader, string) { return l.snap, l.snapshot }

// Segments returns the paths of the segments read, in order.
func (l *Log) Segments() []string { return l.segments }

// Start is the first log offset read from the segments.
func (l *Log) Start() int64 { return l.start }

// EachBatch calls fn with the base name of its file for every log batch
// from Start on, in order, until fn returns false or an error. A batch cut
// short at the end of the last segment is an error (after the batches
// before it), as every damage is. The batch is valid until fn returns.
func (l *Log) EachBatch(fn func(file string, b *metalog.Batch) (bool, error)) error {
	return l.eachBatch(fn)
}

// Close closes the snapshot.
func (l *Log) Close() error { l.close(); return nil }

// Log is the files of a path in reading order, as Read and ImageAt choose
// them: at most one snapshot (or a bootstrap file), then segments.
type Log struct {
	snapshot  string // path of the snapshot or bootstrap file, if any
	bootstrap bool
	start     int64    // first log offset to read from the segments
	segments  []string // segment paths, in base offset order
	later     []string // paths of the snapshots after the start, by offset
	snap      *metalog.SnapshotReader
	// from is the first offset of the file asked for when it is a segment
	// starting mid-log read after the files before it (0 otherwise).
	from int64
	path string // the path OpenLog was given
}

// StartError is the error of replaying a log segment that starts above
// offset 0 (its first batch's base offset) without the snapshot or the
// segments before it: the records of the segment change brokers, topics
// and partitions that those files created, so a replay from the segment
// alone would reject most of them. Kafka's own loader starts from a
// snapshot or from offset 0 (KafkaRaftClient, MetadataLoader).
type StartError struct {
	// File is the segment's path.
	File string
	// Offset is its base offset.
	Offset int64
}

// Error is the one line metadump prints for it.
func (e *StartError) Error() string {
	return fmt.Sprintf("%s starts at offset %d: replay needs the snapshot or segments before it", e.File, e.Offset)
}

func (l *Log) close() {
	if l.snap != nil {
		l.snap.Close()
	}
}

type segment struct {
	base int64
	path string
}

// metadataDir returns path's __cluster_metadata-0 when path is the log
// directory holding it.
func metadataDir(path string) string {
	sub := filepath.Join(path, metalog.MetadataPartitionDir)
	if st, err := os.Stat(sub); err == nil && st.IsDir() {
		return sub
	}
	return path
}

// openLog chooses the files to read for path. With upTo set (time travel
// to an offset), a directory starts from its latest snapshot that ends at
// or before upTo+1; otherwise from the earliest start the files allow.
func openLog(path string, upTo *int64) (*Log, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return openFile(path, upTo)
	}
	dir := metadataDir(path)
	segs, snaps, err := listLog(dir)
	if err != nil {
		return nil, err
	}
	return plan(dir, segs, snaps, upTo)
}

// plan chooses the snapshot and segments of dir to read (see openLog).
func plan(dir string, segs []segment, snaps []metalog.SnapshotID, upTo *int64) (*Log, error) {
	if len(snaps) == 0 && len(segs) > 0 && segs[0].base > 0 {
		return nil, &StartError{File: segs[0].path, Offset: segs[0].base}
	}
	chosen, err := startSnapshot(dir, segs, snaps, upTo)
	if err != nil {
		return nil, err
	}
	l := &Log{}
	if chosen != nil {
		l.start = chosen.EndOffset
		p := filepath.Join(dir, chosen.FileName())
		s, err := metalog.OpenSnapshot(metalog.OS{}, p)
		if err != nil {
			return nil, err
		}
		l.snapshot, l.snap = p, s
	}
	for i := range snaps {
		if snaps[i].EndOffset > l.start {
			l.later = append(l.later, filepath.Join(dir, snaps[i].FileName()))
		}
	}
	for i, s := range segs {
		// Keep the segments from the last one at or before start.
		if i+1 < len(segs) && segs[i+1].base <= l.start {
			continue
		}
		if s.base > l.start && len(l.segments) == 0 {
			l.close()
			return nil, fmt.Errorf("%s: the log after offset %d is missing: the first segment after it is %s", dir, l.start-1, filepath.Base(s.path))
		}
		l.segments = append(l.segments, s.path)
	}
	return l, nil
}

// openMidLog is openLog of a segment starting at base > 0: its directory's
// files up to it (the earlier segments from offset 0, or from a snapshot
// that they continue and that ends before the next segment, then the
// segment), or a *StartError when they are not there.
func openMidLog(path string, base int64, upTo *int64) (*Log, error) {
	missing := &StartError{File: path, Offset: base}
	segs, snaps, err := listLog(filepath.Dir(path))
	if err != nil {
		return nil, missing
	}
	var keep []segment
	next := int64(math.MaxInt64) // the base of the segment after it
	for _, s := range segs {
		if s.base <= base {
			keep = append(keep, s)
		} else {
			next = min(next, s.base)
		}
	}
	var usable []metalog.SnapshotID
	for _, id := range snaps {
		if len(keep) > 0 && keep[0].base <= id.EndOffset && id.EndOffset <= next {
			usable = append(usable, id)
		}
	}
	if len(keep) == 0 || keep[len(keep)-1].base != base || (keep[0].base > 0 && len(usable) == 0) {
		return nil, missing
	}
	keep[len(keep)-1].path = path
	l, err := plan(filepath.Dir(path), keep, usable, upTo)
	if err != nil {
		return nil, err
	}
	l.from = base
	return l, nil
}

// openFile is openLog of one file: a bootstrap.checkpoint, a snapshot or a
// log segment.
func openFile(path string, upTo *int64) (*Log, error) {
	l := &Log{}
	name := filepath.Base(path)
	switch {
	case name == metalog.BootstrapFileName:
		s, err := metalog.OpenBootstrap(metalog.OS{}, path)
		if err != nil {
			return nil, err
		}
		l.snapshot, l.bootstrap, l.snap = path, true, s
	case strings.HasSuffix(name, metalog.SnapshotSuffix):
		s, err := metalog.OpenSnapshot(metalog.OS{}, path)
		if err != nil {
			return nil, err
		}
		l.snapshot, l.snap = path, s
	case strings.HasSuffix(name, ".log"):
		base, err := metalog.ParseSegmentName(name)
		if err != nil {
			return nil, err
		}
		if base > 0 {
			return openMidLog(path, base, upTo)
		}
		l.segments = []string{path}
	default:
		return nil, fmt.Errorf("%s: not a segment (.log), snapshot (.checkpoint), bootstrap.checkpoint or directory", path)
	}
	return l, nil
}

// listLog lists the segments of dir by base offset and its snapshots in
// OffsetAndEpoch order.
func listLog(dir string) ([]segment, []metalog.SnapshotID, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var segs []segment
	var snaps []metalog.SnapshotID
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		n := e.Name()
		if base, err := metalog.ParseSegmentName(n); err == nil {
			segs = append(segs, segment{base, filepath.Join(dir, n)})
			continue
		}
		if id, err := metalog.ParseSnapshotName(n); err == nil {
			snaps = append(snaps, id)
		}
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].base < segs[j].base })
	sort.Slice(snaps, func(i, j int) bool { return snaps[i].Less(snaps[j]) })
	if len(segs) == 0 && len(snaps) == 0 {
		return nil, nil, fmt.Errorf("%s: no snapshot and no log segment", dir)
	}
	return segs, snaps, nil
}

// startSnapshot chooses the snapshot the log of dir is read from, nil for
// offset 0: offset 0 when the first segment starts there, else a snapshot
// the segments continue (its end offset at or after the first segment's
// base), else the last snapshot alone. With upTo, the latest such snapshot
// that ends at or before upTo+1.
func startSnapshot(dir string, segs []segment, snaps []metalog.SnapshotID, upTo *int64) (*metalog.SnapshotID, error) {
	continues := func(end int64) bool {
		if len(segs) == 0 {
			return true
		}
		return segs[0].base <= end
	}
	var chosen *metalog.SnapshotID
	fromZero := len(segs) > 0 && segs[0].base == 0
	if upTo == nil {
		if !fromZero {
			for i := range snaps {
				if continues(snaps[i].EndOffset) {
					chosen = &snaps[i]
					break
				}
			}
			if chosen == nil {
				chosen = &snaps[len(snaps)-1]
			}
		}
		return chosen, nil
	}
	for i := range snaps {
		if snaps[i].EndOffset <= *upTo+1 && continues(snaps[i].EndOffset) {
			chosen = &snaps[i]
		}
	}
	if chosen == nil && !fromZero {
		first := "no snapshot"
		if len(snaps) > 0 {
			first = "its first snapshot " + snaps[0].FileName()
		} else if len(segs) > 0 {
			first = "its first segment " + filepath.Base(segs[0].path)
		}
		return nil, fmt.Errorf("%s: cannot go back to offset %d: the directory holds no log from offset 0 and %s starts later", dir, *upTo, first)
	}
	return chosen, nil
}

// feed hands the snapshot and the batches to b. stop, when set, is asked
// before each log batch whether to stop.
func (l *Log) feed(b *Builder, stop func(*metalog.Batch) bool) error {
	if l.snap != nil {
		// A bootstrap file holds the records a new cluster starts from
		// (BootstrapDirectory.read): replayed like a snapshot.
		if err := b.LoadSnapshot(filepath.Base(l.snapshot), l.snap); err != nil {
			return err
		}
	}
	return l.eachBatch(func(name string, batch *metalog.Batch) (bool, error) {
		if stop != nil && stop(batch) {
			return false, nil
		}
		return true, b.AddBatch(name, batch)
	})
}

// eachBatch calls fn for every log batch at or after l.start, in order,
// until fn returns false or an error. Every segment is read as a finished
// file (metalog.Finished), as metadump's dump reads it: a batch cut short at
// the end of the last segment is damage, reported after the batches before
// it (*metalog.CorruptionError), never left out without a word.
func (l *Log) eachBatch(fn func(name string, b *metalog.Batch) (bool, error)) error {
	r := logReader{l: l, next: l.start}
	defer r.close()
	for {
		name, b, err := r.read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if ok, err := fn(name, b); err != nil || !ok {
			return err
		}
	}
}
