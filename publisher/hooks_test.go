package publisher

import (
	"bytes"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// TestHooksCarryTheLoaderMetrics: the hooks and Stats carry what Kafka's
// loader metrics say: batch sizes and per-batch times
// (MetadataBatchSizes, MetadataBatchProcessingTimeUs, per batch rather than
// per commit as Kafka's MetadataLoader records them), last-applied offset and time, CurrentMetadataVersion,
// HandleLoadSnapshotCount, CurrentControllerId, load and apply error counts.
func TestHooksCarryTheLoaderMetrics(t *testing.T) {
	var batches []BatchInfo
	var commits []CommitInfo
	var pubs []PublishInfo
	var snaps []SnapshotInfo
	var leaders []LeaderAndEpoch
	var caught []image.Provenance
	var faultKinds []FaultKind
	var logs bytes.Buffer
	l := NewLoader(Config{
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Hooks: Hooks{
			BatchLoaded:    func(b BatchInfo) { batches = append(batches, b) },
			CommitHandled:  func(c CommitInfo) { commits = append(commits, c) },
			Published:      func(p PublishInfo) { pubs = append(pubs, p) },
			SnapshotLoaded: func(s SnapshotInfo) { snaps = append(snaps, s) },
			LeaderChanged:  func(le LeaderAndEpoch) { leaders = append(leaders, le) },
			CaughtUp:       func(p image.Provenance) { caught = append(caught, p) },
			Fault:          func(f *Fault) { faultKinds = append(faultKinds, f.Kind) },
		},
		FaultHandler: func(*Loader, *Fault) {},
	})
	bad := newRecorder("bad")
	bad.onUp = func(_ *recorder, _ Changes, _ *image.Image, m Manifest) error {
		if m.Type == LogDelta {
			return errors.New("no")
		}
		return nil
	}
	must(t, l.Install(bad))
	mv := record.NewFeatureLevelRecord()
	mv.Name, mv.FeatureLevel = "metadata.version", 21
	must(t, l.LoadSnapshot(Snapshot{LastContainedOffset: 9, LastContainedEpoch: 2, LastContainedLogTime: 500, Records: []record.Record{mv}}))
	l.SetHighWatermark(10)
	f := &feed{next: 10, epoch: 2, time: 600}
	lc := record.NewLeaderChangeMessage()
	lc.LeaderID = 3000
	b1, b2 := f.control(lc), f.batch(topicRec("a", 1), partRec(1, 0, 0), partRec(77, 0, 0))
	b1.Size, b2.Size = 80, 300
	must(t, l.HandleCommit(b1, b2))

	if len(snaps) != 1 || snaps[0].Loads != 1 || snaps[0].Records != 1 {
		t.Errorf("snapshot hooks %+v", snaps)
	}
	if len(batches) != 2 || batches[0].Records != 1 || !batches[0].Control || batches[1].Records != 3 || batches[1].Bytes != 300 || batches[1].LastOffset != 13 {
		t.Errorf("batch hooks %+v", batches)
	}
	if len(commits) != 1 || !commits[0].Published || commits[0].LastOffset != 13 || commits[0].Batches != 2 {
		t.Errorf("commit hooks %+v", commits)
	}
	if len(caught) != 1 || caught[0].LastContainedOffset != 9 {
		t.Errorf("caught-up hooks %+v", caught)
	}
	if len(leaders) != 1 || leaders[0] != (LeaderAndEpoch{3000, 2}) {
		t.Errorf("leader hooks %+v", leaders)
	}
	if len(pubs) != 2 {
		t.Fatalf("publish hooks %+v", pubs)
	}
	p := pubs[1]
	if p.Manifest.Type != LogDelta || p.Manifest.NumBatches != 2 || p.Manifest.NumBytes != 380 || p.Manifest.Provenance.LastContainedOffset != 13 || p.Manifest.Provenance.LastContainedLogTimeMs != 601 {
		t.Errorf("manifest %+v", p.Manifest)
	}
	if p.MetadataVersion != 21 || p.Publishers != 1 || p.Failed != 1 {
		t.Errorf("publish info %+v", p)
	}
	if !slices.Equal(faultKinds, []FaultKind{FaultReplay, FaultPublisher}) {
		t.Errorf("faults %v", faultKinds)
	}
	st := l.Stats()
	want := Stats{
		LastApplied:   image.Provenance{LastContainedOffset: 13, LastContainedEpoch: 2, LastContainedLogTimeMs: 601, BatchAligned: true},
		Loaded:        image.Provenance{LastContainedOffset: 13, LastContainedEpoch: 2, LastContainedLogTimeMs: 601, BatchAligned: true},
		CaughtUp:      true,
		HighWatermark: 10,
		Leader:        LeaderAndEpoch{3000, 2},
		KRaftVersion:  -1,
		Commits:       1, Publications: 2, SnapshotLoads: 1,
		ReplayErrors: 1, PublisherErrors: 1,
	}
	if st != want {
		t.Errorf("Stats\n got %+v\nwant %+v", st, want)
	}
	if !strings.Contains(logs.String(), "finished catching up") {
		t.Errorf("log lacks the catch-up line:\n%s", logs.String())
	}
}
