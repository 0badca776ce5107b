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

// hookCalls records what each of the loader's Hooks was called with.
type hookCalls struct {
	batches    []BatchInfo
	commits    []CommitInfo
	pubs       []PublishInfo
	snaps      []SnapshotInfo
	leaders    []LeaderAndEpoch
	caught     []image.Provenance
	faultKinds []FaultKind
}

// hooks are Hooks that record their calls in h.
func (h *hookCalls) hooks() Hooks {
	return Hooks{
		BatchLoaded:    func(b BatchInfo) { h.batches = append(h.batches, b) },
		CommitHandled:  func(c CommitInfo) { h.commits = append(h.commits, c) },
		Published:      func(p PublishInfo) { h.pubs = append(h.pubs, p) },
		SnapshotLoaded: func(s SnapshotInfo) { h.snaps = append(h.snaps, s) },
		LeaderChanged:  func(le LeaderAndEpoch) { h.leaders = append(h.leaders, le) },
		CaughtUp:       func(p image.Provenance) { h.caught = append(h.caught, p) },
		Fault:          func(f *Fault) { h.faultKinds = append(h.faultKinds, f.Kind) },
	}
}

// TestHooksCarryTheLoaderMetrics: the hooks and Stats carry what Kafka's
// loader metrics say: batch sizes and per-batch times
// (MetadataBatchSizes, MetadataBatchProcessingTimeUs, per batch rather than
// per commit as Kafka's MetadataLoader records them), last-applied offset and time, CurrentMetadataVersion,
// HandleLoadSnapshotCount, CurrentControllerId, load and apply error counts.
func TestHooksCarryTheLoaderMetrics(t *testing.T) {
	var h hookCalls
	var logs bytes.Buffer
	l := NewLoader(Config{
		Logger:       slog.New(slog.NewTextHandler(&logs, nil)),
		Hooks:        h.hooks(),
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
	must(t, l.LoadSnapshot(Snapshot{LastContainedOffset: 9, LastContainedEpoch: 2, LastContainedLogTime: 500, Records: []record.Record{mv}}.Reader()))
	l.SetHighWatermark(10)
	f := &feed{next: 10, epoch: 2, time: 600}
	lc := record.NewLeaderChangeMessage()
	lc.LeaderID = 3000
	b1, b2 := f.control(lc), f.batch(topicRec("a", 1), partRec(1, 0, 0), partRec(77, 0, 0))
	b1.Size, b2.Size = 80, 300
	must(t, l.HandleCommit(b1, b2))

	if len(h.snaps) != 1 || h.snaps[0].Loads != 1 || h.snaps[0].Records != 1 {
		t.Errorf("snapshot hooks %+v", h.snaps)
	}
	if len(h.batches) != 2 || h.batches[0].Records != 1 || !h.batches[0].Control || h.batches[1].Records != 3 || h.batches[1].Bytes != 300 || h.batches[1].LastOffset != 13 {
		t.Errorf("batch hooks %+v", h.batches)
	}
	if len(h.commits) != 1 || !h.commits[0].Published || h.commits[0].LastOffset != 13 || h.commits[0].Batches != 2 {
		t.Errorf("commit hooks %+v", h.commits)
	}
	if len(h.caught) != 1 || h.caught[0].LastContainedOffset != 9 {
		t.Errorf("caught-up hooks %+v", h.caught)
	}
	if len(h.leaders) != 1 || h.leaders[0] != (LeaderAndEpoch{3000, 2}) {
		t.Errorf("leader hooks %+v", h.leaders)
	}
	if len(h.pubs) != 2 {
		t.Fatalf("publish hooks %+v", h.pubs)
	}
	p := h.pubs[1]
	if p.Manifest.Type != LogDelta || p.Manifest.NumBatches != 2 || p.Manifest.NumBytes != 380 || p.Manifest.Provenance.LastContainedOffset != 13 || p.Manifest.Provenance.LastContainedLogTimeMs != 601 {
		t.Errorf("manifest %+v", p.Manifest)
	}
	if p.MetadataVersion != 21 || p.Publishers != 1 || p.Failed != 1 {
		t.Errorf("publish info %+v", p)
	}
	if !slices.Equal(h.faultKinds, []FaultKind{FaultReplay, FaultPublisher}) {
		t.Errorf("faults %v", h.faultKinds)
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
