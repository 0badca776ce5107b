package deltatest

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// imageLines is an image as the sorted envelope JSON lines of its records
// (image.Records) plus its provenance: two images are the same image when
// these are equal.
func imageLines(t testing.TB, img *image.Image) []string {
	t.Helper()
	recs, err := img.Records(image.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := []string{img.Provenance().String()}
	for _, r := range recs {
		b, err := record.AppendEnvelopeJSON(nil, r.Record, r.Version)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	slices.Sort(out[1:])
	return out
}

func requireSameImage(t testing.TB, want, got *image.Image) {
	t.Helper()
	w, g := imageLines(t, want), imageLines(t, got)
	if !slices.Equal(w, g) {
		for i := 0; i < max(len(w), len(g)); i++ {
			var a, b string
			if i < len(w) {
				a = w[i]
			}
			if i < len(g) {
				b = g[i]
			}
			if a != b {
				t.Fatalf("images differ at line %d:\n want %s\n got  %s", i, a, b)
			}
		}
	}
}

// loadDirImage reads a metadata directory as a broker does at start-up
// (metalog.OpenDir: the latest snapshot, then the log after it) into an image
// with delta.
func loadDirImage(t testing.TB, dir string) *image.Image {
	t.Helper()
	r, err := metalog.OpenDir(metalog.OS{}, dir, metalog.Finished)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img := image.Empty()
	if r.Snapshot() != nil {
		d := delta.NewSnapshot(img)
		for {
			b, err := r.Snapshot().Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			replayBatch(t, d, b)
		}
		d.FinishSnapshot()
		if img, err = d.Apply(image.Provenance{LastContainedOffset: r.StartOffset() - 1, LastContainedEpoch: snapshotEpoch(t, r), LastContainedLogTimeMs: -1, BatchAligned: true}); err != nil {
			t.Fatal(err)
		}
	}
	d := delta.New(img)
	p := img.Provenance()
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		replayBatch(t, d, b)
		p = image.Provenance{LastContainedOffset: b.LastOffset(), LastContainedEpoch: b.PartitionLeaderEpoch, LastContainedLogTimeMs: b.AppendTime(), BatchAligned: true}
	}
	img, err = d.Apply(p)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func snapshotEpoch(t testing.TB, r *metalog.DirReader) int32 {
	for _, f := range r.Files() {
		if id, err := metalog.ParseSnapshotName(lastElem(f)); err == nil {
			return id.Epoch
		}
	}
	t.Fatal("no snapshot file")
	return 0
}

func lastElem(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

func replayBatch(t testing.TB, d *delta.Delta, b *metalog.Batch) {
	t.Helper()
	if b.IsControl() {
		return
	}
	recs, err := b.DecodeRecords()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := d.Replay(r.Record); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWriteDirReadsBack: a simulated cluster written as a
// __cluster_metadata-0 directory (segments, with and without a snapshot)
// reads back through metalog.OpenDir and delta into the simulator's image.
func TestWriteDirReadsBack(t *testing.T) {
	for _, mv := range propertyMVs {
		for _, snap := range []bool{false, true} {
			t.Run(fmt.Sprintf("mv=%s/snapshot=%t/seed=1", mv, snap), func(t *testing.T) {
				s := MustNew(Config{MetadataVersion: mv, Seed: 1})
				if err := s.AddBrokers(5, "a", "b", "c"); err != nil {
					t.Fatal(err)
				}
				randomOps(t, s, rand.New(rand.NewPCG(1, uint64(mv))), 120, func(string) {})
				opts := WriteDirOptions{SegmentBatches: 25}
				if snap {
					opts.SnapshotAt = s.NextOffset() / 2
				}
				dir, err := s.WriteDir(t.TempDir(), opts)
				if err != nil {
					t.Fatal(err)
				}
				requireSameImage(t, s.Image(), loadDirImage(t, dir))
			})
		}
	}
	t.Run("from-image", func(t *testing.T) {
		s := MustNew(Config{Seed: 2})
		if err := s.AddBrokers(3); err != nil {
			t.Fatal(err)
		}
		s.MustCreateTopic("orders", 6, 3)
		s2, err := FromImage(s.Image(), Config{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if err := s2.CrashBroker(2); err != nil {
			t.Fatal(err)
		}
		if err := s2.Advance(12 * time.Second); err != nil {
			t.Fatal(err)
		}
		dir, err := s2.WriteDir(t.TempDir(), WriteDirOptions{})
		if err != nil {
			t.Fatal(err)
		}
		requireSameImage(t, s2.Image(), loadDirImage(t, dir))
	})
}
