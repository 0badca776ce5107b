package kafkalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/record/metalog"
)

func names(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, e := range ents {
		info, _ := e.Info()
		out[e.Name()] = info.Size()
	}
	return out
}

// TestLogLikeKafka: the files the writer leaves are those Kafka's log layer
// leaves: segments rolled by size with .index and .timeindex beside them
// (trimmed on roll), a snapshot only as .checkpoint.part until frozen,
// segments and older snapshots below a snapshot renamed to .deleted, a
// truncated tail cut at a batch boundary, and a log truncated fully
// starting over with an empty segment at the given offset. A Finished
// reader reads the directory back with every offset continuous.
func TestLogLikeKafka(t *testing.T) {
	dir := filepath.Join(t.TempDir(), metalog.MetadataPartitionDir)
	c, err := NewCluster(1)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Create(dir, 0, Config{SegmentBytes: 2 << 10, KeepDeleted: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := c.Churn(30, "a"); err != nil {
		t.Fatal(err)
	}
	if err := c.Write(l); err != nil {
		t.Fatal(err)
	}
	checkRolledSegments(t, l, dir)
	id := checkSnapshotWrite(t, l, c, dir)
	checkRetention(t, l, dir, id)
	checkTruncation(t, l, c, dir, id)
	checkFullTruncation(t, l, dir, id)
}

// checkRolledSegments: segments rolled by size, each with its .index
// (trimmed to its entries on roll) and .timeindex.
func checkRolledSegments(t *testing.T, l *Log, dir string) {
	segs := l.Segments()
	if len(segs) < 3 {
		t.Fatalf("segments %v: no roll by size", segs)
	}
	files := names(t, dir)
	for i, base := range segs {
		for _, suf := range []string{".log", ".index", ".timeindex"} {
			n := metalog.SegmentName(base)
			n = strings.TrimSuffix(n, ".log") + suf
			size, ok := files[n]
			if !ok {
				t.Fatalf("%s missing: %v", n, files)
			}
			if suf == ".log" && i < len(segs)-1 && size > 2<<10 {
				t.Errorf("%s is %d bytes, over the segment size", n, size)
			}
			if suf == ".index" && i < len(segs)-1 && size%8 != 0 || suf == ".index" && i < len(segs)-1 && size >= indexPrealloc {
				t.Errorf("%s is %d bytes: not trimmed to its entries on roll", n, size)
			}
		}
	}
}

// checkSnapshotWrite: a snapshot is a .checkpoint.part until frozen, then
// renamed into place.
func checkSnapshotWrite(t *testing.T, l *Log, c *Cluster, dir string) metalog.SnapshotID {
	sw, err := l.StartSnapshot(c.Sim.Image())
	if err != nil {
		t.Fatal(err)
	}
	part := 0
	for n := range names(t, dir) {
		if strings.HasSuffix(n, ".checkpoint.part") {
			part++
		}
		if strings.HasSuffix(n, ".checkpoint") {
			t.Errorf("%s frozen before Freeze", n)
		}
	}
	if part != 1 {
		t.Fatalf("%d .checkpoint.part files", part)
	}
	id, err := sw.Freeze()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := names(t, dir)[id.FileName()]; !ok {
		t.Fatal("snapshot not renamed into place")
	}
	return id
}

// checkRetention: after a roll, the segments below the snapshot are renamed
// to .deleted.
func checkRetention(t *testing.T, l *Log, dir string, id metalog.SnapshotID) {
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	if err := l.DeleteBeforeSnapshot(id); err != nil {
		t.Fatal(err)
	}
	if got := l.Segments(); len(got) != 1 || got[0] != id.EndOffset {
		t.Errorf("segments after retention %v, want only the one at %d", got, id.EndOffset)
	}
	if _, ok := names(t, dir)[metalog.SegmentName(0)+".deleted"]; !ok {
		t.Errorf("deleted segment not renamed to .deleted: %v", names(t, dir))
	}
}

// checkTruncation: a truncated tail is cut at a batch boundary, and a
// Finished reader reads the directory to its end with continuous offsets.
func checkTruncation(t *testing.T, l *Log, c *Cluster, dir string, id metalog.SnapshotID) {
	if err := c.Churn(10, "b"); err != nil {
		t.Fatal(err)
	}
	if err := c.Write(l); err != nil {
		t.Fatal(err)
	}
	mid := id.EndOffset + (l.EndOffset()-id.EndOffset)/2
	end, err := l.TruncateTo(mid)
	if err != nil {
		t.Fatal(err)
	}
	if end > mid || end < id.EndOffset {
		t.Fatalf("truncated to %d, asked %d", end, mid)
	}
	d, err := metalog.OpenDir(metalog.OS{}, dir, metalog.Finished)
	if err != nil {
		t.Fatal(err)
	}
	last := int64(-1)
	for {
		b, err := d.Next()
		if err != nil {
			break
		}
		last = b.LastOffset()
	}
	d.Close()
	if last != end-1 {
		t.Errorf("the directory reads to offset %d, the log ends at %d", last, end)
	}
}

// checkFullTruncation: a log truncated fully starts over with an empty
// segment at the given offset.
func checkFullTruncation(t *testing.T, l *Log, dir string, id metalog.SnapshotID) {
	if err := l.TruncateFullyAndStartAt(id.EndOffset); err != nil {
		t.Fatal(err)
	}
	if got := l.Segments(); len(got) != 1 || got[0] != id.EndOffset || names(t, dir)[metalog.SegmentName(id.EndOffset)] != 0 {
		t.Errorf("after a full truncation: segments %v, files %v", got, names(t, dir))
	}
}
