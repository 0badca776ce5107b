package delta

import (
	"path/filepath"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/imagetest"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
)

func scenarios(t *testing.T) []string { return sharedtest.Scenarios(t) }

func replayAll(t testing.TB, d *Delta, recs []image.VersionedRecord) {
	t.Helper()
	for i, r := range recs {
		if err := d.Replay(r.Record); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
}

// TestVectorHistoryEqualsSnapshot: replaying Kafka's history gives the image
// whose records Kafka's MetadataImage.write produced.
func TestVectorHistoryEqualsSnapshot(t *testing.T) {
	for _, dir := range scenarios(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			hist := imagetest.ReadJSONL(t, filepath.Join(dir, "history-records.jsonl"))
			d := New(nil)
			replayAll(t, d, hist)
			img, err := d.Apply(image.EmptyProvenance)
			if err != nil {
				t.Fatal(err)
			}
			imagetest.CompareImage(t, img, imagetest.ReadLines(t, filepath.Join(dir, "snapshot-records.jsonl")))
		})
	}
}

// TestVectorSnapshotRecordsRoundTrip: loading the snapshot's records as a
// snapshot gives the same records back.
func TestVectorSnapshotRecordsRoundTrip(t *testing.T) {
	for _, dir := range scenarios(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			recs := imagetest.ReadJSONL(t, filepath.Join(dir, "snapshot-records.jsonl"))
			d := NewSnapshot(nil)
			replayAll(t, d, recs)
			d.FinishSnapshot()
			img, err := d.Apply(image.EmptyProvenance)
			if err != nil {
				t.Fatal(err)
			}
			imagetest.CompareImage(t, img, imagetest.ReadLines(t, filepath.Join(dir, "snapshot-records.jsonl")))
		})
	}
}
