package publisher_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/imagetest"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// generate loads dir through a loader with a SnapshotGenerator writing into
// a temporary directory with a 1-byte trigger, feeds one NoOpRecord commit
// so that a log delta fires the trigger, and returns the snapshot's path
// and the image it was made from.
func generate(t *testing.T, dir string) (string, *image.Image) {
	t.Helper()
	out := t.TempDir()
	l := publisher.NewLoader(publisher.Config{ReplayErrors: publisher.Halt})
	g := publisher.NewSnapshotGenerator(&publisher.DirEmitter{Dir: out}, publisher.SnapshotGeneratorConfig{MaxBytes: 1})
	if err := l.Install(g); err != nil {
		t.Fatal(err)
	}
	if err := dirfollow.Load(l, dir); err != nil {
		t.Fatal(err)
	}
	p := l.Image().Provenance()
	if err := l.HandleCommit(record.Batch{BaseOffset: p.LastContainedOffset + 1, LeaderEpoch: p.LastContainedEpoch, AppendTime: p.LastContainedLogTimeMs, Records: versioned(record.NewNoOpRecord())}); err != nil {
		t.Fatal(err)
	}
	if st := l.Stats(); st.PublisherErrors != 0 {
		t.Fatalf("publisher errors: %+v", st)
	}
	img, _ := l.Watch()
	want := publisher.SnapshotID(img)
	if g.Latest().ID != want {
		t.Fatalf("generator wrote %v, want %v", g.Latest().ID, want)
	}
	path := filepath.Join(out, want.FileName())
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	return path, img
}

// readBack loads a snapshot file into a fresh loader and returns the image
// it publishes.
func readBack(t *testing.T, path string) *image.Image {
	t.Helper()
	s, err := metalog.OpenSnapshot(metalog.OS{}, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l := publisher.NewLoader(publisher.Config{ReplayErrors: publisher.Halt})
	if err := l.LoadSnapshot(s); err != nil {
		t.Fatal(err)
	}
	l.SetHighWatermark(s.ID().EndOffset)
	img, _ := l.Watch()
	if img == nil {
		t.Fatalf("snapshot %s published nothing", path)
	}
	return img
}

// snapshotLines returns the data records of a snapshot file as envelope
// lines, at the versions they were written.
func snapshotLines(t *testing.T, path string) []string {
	s, err := metalog.OpenSnapshot(metalog.OS{}, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var recs []image.VersionedRecord
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
		ds, err := b.DecodeRecords()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			recs = append(recs, image.VersionedRecord{Record: d.Record, Version: d.Version})
		}
	}
	return imagetest.EnvelopeLines(t, recs)
}

// TestSnapshotGeneratorCorpusRoundTrip: for every corpus directory, the
// snapshot the generator writes (SnapshotEmitter through
// metalog.CreateSnapshot) reads back into an image equal to Kafka's image of
// the directory, with the provenance of the image it was made from.
func TestSnapshotGeneratorCorpusRoundTrip(t *testing.T) {
	dirs, images, names := corpusDirs(t)
	for i, dir := range dirs {
		t.Run(names[i], func(t *testing.T) {
			path, src := generate(t, dir)
			back := readBack(t, path)
			if back.Provenance().LastContainedOffset != src.Provenance().LastContainedOffset || back.Provenance().LastContainedEpoch != src.Provenance().LastContainedEpoch {
				t.Errorf("provenance %v, want %v", back.Provenance(), src.Provenance())
			}
			imagetest.CompareImage(t, back, imagetest.ReadLines(t, images[i]))
		})
	}
}

// TestSnapshotGeneratorScenarios: for every snapshot scenario of
// vectors/snapshots and snapshots-4.4, the snapshot generated after
// replaying the history log holds exactly the records Kafka's
// MetadataImage.write produced (snapshot-records.jsonl, compared as a
// multiset).
func TestSnapshotGeneratorScenarios(t *testing.T) {
	for _, dir := range sharedtest.Scenarios(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			path, _ := generate(t, filepath.Join(dir, "history"))
			want := imagetest.Normalize(t, imagetest.ReadLines(t, filepath.Join(dir, "snapshot-records.jsonl")))
			if d := imagetest.DiffMultiset(want, imagetest.Normalize(t, snapshotLines(t, path))); d != "" {
				t.Errorf("generated snapshot differs from Kafka's:\n%s", d)
			}
		})
	}
}
