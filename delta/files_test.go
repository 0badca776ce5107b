package delta

import (
	"cmp"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// The helpers below read the corpus and the vectors with package record's
// readers, which check every batch's CRC and offsets, and feed the records
// to deltas as Kafka's MetadataLoader does.

// bootstrapName is the file name of BootstrapDirectory's binary file.
const bootstrapName = "bootstrap.checkpoint"

// loadSnapshotFile loads a snapshot (or bootstrap) file onto base as
// MetadataLoader.loadSnapshot does.
func loadSnapshotFile(t testing.TB, base *image.Image, path string) *image.Image {
	t.Helper()
	if filepath.Base(path) == bootstrapName {
		return loadBootstrapFile(t, base, path)
	}
	s, err := metalog.OpenSnapshot(metalog.OS{}, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return loadSnapshot(t, base, s)
}

// loadSnapshot reads the whole of s into a snapshot delta on base and
// applies it only once the footer is read (ErrIncompleteSnapshot refuses a
// snapshot without one). The provenance is the snapshot id (offset − 1,
// epoch) and the header's LastContainedLogTimestamp, as
// RecordsSnapshotReader gives them to the loader.
func loadSnapshot(t testing.TB, base *image.Image, s *metalog.SnapshotReader) *image.Image {
	t.Helper()
	d := NewSnapshot(base)
	var dec record.Decoder // Replay copies what it keeps of a record
	for {
		b, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.IsControl() {
			continue
		}
		for _, e := range b.Entries {
			r, _, err := dec.Decode(e.Value)
			if err != nil {
				t.Fatalf("%s: record at offset %d: %v", s.Name(), e.Offset, err)
			}
			if err := d.Replay(r); err != nil {
				t.Fatalf("%s: %v", s.Name(), err)
			}
		}
	}
	d.FinishSnapshot()
	img, err := d.Apply(image.Provenance{
		LastContainedOffset:    s.LastContainedLogOffset(),
		LastContainedEpoch:     s.LastContainedLogEpoch(),
		LastContainedLogTimeMs: s.LastContainedLogTimestamp(),
		BatchAligned:           true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// loadBootstrapFile loads a bootstrap.checkpoint as a snapshot: the file
// has the snapshot format at offset 0 and epoch 0 and its header's
// LastContainedLogTimestamp is 0 (BootstrapDirectory).
func loadBootstrapFile(t testing.TB, base *image.Image, path string) *image.Image {
	t.Helper()
	entries, err := metalog.ReadBootstrap(metalog.OS{}, path)
	if err != nil {
		t.Fatal(err)
	}
	d := NewSnapshot(base)
	replayEntries(t, entries, func(r record.Record) {
		if err := d.Replay(r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	})
	d.FinishSnapshot()
	img, err := d.Apply(image.Provenance{LastContainedOffset: -1, LastContainedEpoch: 0, LastContainedLogTimeMs: 0, BatchAligned: true})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func replayEntries(t testing.TB, entries []metalog.Entry, fn func(record.Record)) {
	t.Helper()
	for _, e := range entries {
		r, _, err := e.Decode()
		if err != nil {
			t.Fatalf("record at offset %d: %v", e.Offset, err)
		}
		fn(r)
	}
}

// batchSource is what replayLog reads batches from: a SegmentReader or a
// DirReader.
type batchSource interface {
	Next() (*metalog.Batch, error)
}

// replayLog replays the batches of src whose last offset is at or after
// from, stopping after offset until (-1: all), onto x. It returns the
// provenance of the last batch replayed, or p when there was none; a log
// batch's append time is its MaxTimestamp.
func replayLog(t testing.TB, x *txReplayer, src batchSource, from, until int64, p image.Provenance) image.Provenance {
	t.Helper()
	for {
		b, err := src.Next()
		if errors.Is(err, io.EOF) {
			return p
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.LastOffset() < from || (until >= 0 && b.BaseOffset > until) {
			continue
		}
		if !b.IsControl() {
			replayEntries(t, b.Entries, func(r record.Record) { x.replay(t, r) })
		}
		p = image.Provenance{LastContainedOffset: b.LastOffset(), LastContainedEpoch: b.PartitionLeaderEpoch, LastContainedLogTimeMs: b.MaxTimestamp, BatchAligned: !x.inTx}
	}
}

// replayLogFiles replays the batches of segments whose last offset is at or
// after from onto base as one delta, and stops after offset until (-1: all).
func replayLogFiles(t testing.TB, base *image.Image, from, until int64, segments ...string) *image.Image {
	t.Helper()
	x := &txReplayer{d: New(base)}
	p := base.Provenance()
	for _, path := range segments {
		seg, err := metalog.OpenSegment(metalog.OS{}, path, metalog.Finished)
		if err != nil {
			t.Fatal(err)
		}
		p = replayLog(t, x, seg, from, until, p)
		seg.Close()
	}
	img, err := x.d.Apply(p)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// loadDir loads a __cluster_metadata-0 directory as a broker does at start
// (metalog.OpenDir): the latest snapshot, then every batch from its offset on.
func loadDir(t testing.TB, dir string) *image.Image {
	t.Helper()
	r, err := metalog.OpenDir(metalog.OS{}, dir, metalog.Finished)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img := image.Empty()
	if s := r.Snapshot(); s != nil {
		img = loadSnapshot(t, img, s)
	}
	x := &txReplayer{d: New(img)}
	p := replayLog(t, x, r, r.StartOffset(), -1, img.Provenance())
	img, err = x.d.Apply(p)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// dirFiles returns a __cluster_metadata-0 directory's latest snapshot ("" if
// none; the largest id, as KafkaMetadataLog.latestSnapshotId chooses) and
// all of its segments in base-offset order.
func dirFiles(t testing.TB, dir string) (snapshot string, segments []string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var best metalog.SnapshotID
	type seg struct {
		base int64
		path string
	}
	var segs []seg
	for _, e := range ents {
		n := e.Name()
		if id, err := metalog.ParseSnapshotName(n); err == nil {
			if snapshot == "" || best.Less(id) {
				best, snapshot = id, filepath.Join(dir, n)
			}
		} else if o, err := metalog.ParseSegmentName(n); err == nil {
			segs = append(segs, seg{o, filepath.Join(dir, n)})
		}
	}
	slices.SortFunc(segs, func(a, b seg) int { return cmp.Compare(a.base, b.base) })
	for _, s := range segs {
		segments = append(segments, s.path)
	}
	return snapshot, segments
}

// snapshotOffset is the end offset in a snapshot's file name.
func snapshotOffset(t testing.TB, path string) int64 {
	t.Helper()
	id, err := metalog.ParseSnapshotName(filepath.Base(path))
	if err != nil {
		t.Fatalf("not a snapshot name: %s", path)
	}
	return id.EndOffset
}
