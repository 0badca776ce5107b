package publisher

import (
	"errors"
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// TestLoaderHaltsOnNewerMetadataVersion: in Skip mode, the default (Kafka's
// broker skips a record it cannot replay), a FeatureLevelRecord for a
// metadata.version level kmeta does not know still halts the loader, in a
// commit and in a snapshot: the error names the offset and the level, the
// last good image stays served, and a good snapshot resumes loading.
func TestLoaderHaltsOnNewerMetadataVersion(t *testing.T) {
	fl := func(level int16) *record.FeatureLevelRecord {
		r := record.NewFeatureLevelRecord()
		r.Name, r.FeatureLevel = image.MetadataVersionFeature, level
		return r
	}
	l := NewLoader(Config{FaultHandler: func(*Loader, *Fault) {}})
	defer l.Close()
	cache := NewCache("t")
	if err := l.Install(cache); err != nil {
		t.Fatal(err)
	}
	f := &feed{epoch: 1}
	if err := l.HandleCommit(f.batch(fl(int16(image.MV4_4_IV2)), topicRec("a", 1))); err != nil {
		t.Fatal(err)
	}
	l.SetHighWatermark(f.next)
	good := cache.Load()
	if mv, _ := good.Features().MetadataVersion(); mv != image.MV4_4_IV2 {
		t.Fatalf("metadata.version %v, want 4.4-IV2", mv)
	}

	err := l.HandleCommit(f.batch(topicRec("b", 2), fl(99)))
	if !errors.Is(err, ErrHalted) || !errors.Is(err, delta.ErrNewerVersion) {
		t.Fatalf("commit: got %v, want ErrHalted wrapping delta.ErrNewerVersion", err)
	}
	var re *ReplayError
	if !errors.As(err, &re) || re.Offset != 3 {
		t.Fatalf("replay error %v, want one at offset 3", err)
	}
	if cache.Load() != good || l.Image() != good {
		t.Fatalf("the last good image is no longer served")
	}
	if err := l.HandleCommit(f.batch(topicRec("c", 3))); !errors.Is(err, ErrHalted) {
		t.Fatalf("after the halt: got %v, want ErrHalted", err)
	}

	err = l.LoadSnapshot(Snapshot{LastContainedOffset: 9, LastContainedEpoch: 1, Records: []record.Record{fl(99)}}.Reader())
	if !errors.Is(err, ErrHalted) || !errors.Is(err, delta.ErrNewerVersion) {
		t.Fatalf("snapshot: got %v, want ErrHalted wrapping delta.ErrNewerVersion", err)
	}
	if cache.Load() != good {
		t.Fatalf("a refused snapshot replaced the image")
	}
	if err := l.LoadSnapshot(Snapshot{LastContainedOffset: 9, LastContainedEpoch: 1, Records: []record.Record{fl(int16(image.MV4_3_IV0))}}.Reader()); err != nil {
		t.Fatalf("a good snapshot: %v", err)
	}
	if mv, _ := l.Image().Features().MetadataVersion(); mv != image.MV4_3_IV0 {
		t.Fatalf("after the good snapshot: metadata.version %v", mv)
	}
	if st := l.Stats(); st.ReplayErrors != 2 {
		t.Fatalf("replay errors %d, want 2", st.ReplayErrors)
	}
}
