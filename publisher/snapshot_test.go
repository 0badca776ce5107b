package publisher

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

type fakeEmitter struct {
	emitted []int64
	err     error
}

func (e *fakeEmitter) Emit(img *image.Image) (int64, error) {
	if e.err != nil {
		return 0, e.err
	}
	e.emitted = append(e.emitted, img.Provenance().LastContainedOffset)
	return 100, nil
}

// TestSnapshotGeneratorTriggers follows SnapshotGenerator.onMetadataUpdate:
// bytes since the last snapshot (20 MiB by default), else time since the
// last snapshot (1 h by default, checked only when a log delta arrives); a
// SNAPSHOT manifest resets both; images that are not batch-aligned and a
// disabled generator write nothing.
func TestSnapshotGeneratorTriggers(t *testing.T) {
	const MiB = 1 << 20
	type step struct {
		typ     ManifestType
		bytes   int64
		advance time.Duration
		aligned bool
	}
	logd := func(b int64, adv time.Duration) step { return step{LogDelta, b, adv, true} }
	tests := []struct {
		name    string
		opts    SnapshotGeneratorConfig
		disable bool
		steps   []step
		want    []int64 // offsets (step index) emitted
	}{
		{"below both triggers", SnapshotGeneratorConfig{}, false, []step{logd(10*MiB, 0), logd(9*MiB, 59*time.Minute)}, nil},
		{"20 MiB default", SnapshotGeneratorConfig{}, false, []step{logd(10*MiB, 0), logd(10*MiB, 0), logd(MiB, 0)}, []int64{1}},
		{"bytes counted again after a snapshot", SnapshotGeneratorConfig{}, false, []step{logd(20*MiB, 0), logd(19*MiB, 0), logd(MiB, 0)}, []int64{0, 2}},
		{"1 h default, checked on a log delta", SnapshotGeneratorConfig{}, false, []step{logd(1, 30*time.Minute), logd(1, 30*time.Minute), logd(1, 0)}, []int64{1}},
		{"snapshot manifest resets", SnapshotGeneratorConfig{}, false, []step{logd(15*MiB, 50*time.Minute), {SnapshotLoad, 0, 0, true}, logd(15*MiB, 50*time.Minute)}, nil},
		{"time trigger disabled", SnapshotGeneratorConfig{MaxInterval: -1}, false, []step{logd(1, 48*time.Hour)}, nil},
		{"custom bytes", SnapshotGeneratorConfig{MaxBytes: 1000}, false, []step{logd(999, 0), logd(1, 0)}, []int64{1}},
		{"not batch-aligned", SnapshotGeneratorConfig{}, false, []step{{LogDelta, 21 * MiB, 0, false}, logd(0, 0)}, []int64{1}},
		{"disabled", SnapshotGeneratorConfig{}, true, []step{logd(21*MiB, 0)}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Unix(1700000000, 0)
			tc.opts.Now = func() time.Time { return now }
			e := &fakeEmitter{}
			g := NewSnapshotGenerator(e, tc.opts)
			if tc.disable {
				g.Disable("metadata loading fault")
			}
			for i, s := range tc.steps {
				now = now.Add(s.advance)
				p := image.Provenance{LastContainedOffset: int64(i), BatchAligned: s.aligned}
				must(t, g.OnUpdate(Update{Image: image.NewBuilder(nil).Image(p), Manifest: Manifest{Type: s.typ, Provenance: p, NumBytes: s.bytes}}))
			}
			if !slices.Equal(e.emitted, tc.want) {
				t.Errorf("snapshots at %v, want %v", e.emitted, tc.want)
			}
			if len(tc.want) > 0 && g.Latest().ID.EndOffset != tc.want[len(tc.want)-1]+1 {
				t.Errorf("Latest %+v", g.Latest())
			}
		})
	}
}

// TestSnapshotGeneratorFaults: a failed write is a publisher fault in
// synchronous mode; in Async mode it goes to Failed, and Close waits.
func TestSnapshotGeneratorFaults(t *testing.T) {
	boom := errors.New("disk full")
	var fs faults
	l := NewLoader(Config{FaultHandler: fs.handler})
	g := NewSnapshotGenerator(&fakeEmitter{err: boom}, SnapshotGeneratorConfig{MaxBytes: 1})
	must(t, l.Install(g))
	l.SetHighWatermark(0)
	f := &feed{}
	must(t, l.HandleCommit(f.batch(topicRec("a", 1), partRec(1, 0, 0))))
	must(t, l.HandleCommit(f.batch(record.NewNoOpRecord())))
	if len(fs.list) != 1 || !errors.Is(fs.list[0], boom) || fs.list[0].Publisher != "SnapshotGenerator" {
		t.Fatalf("faults %v", fs.kinds())
	}

	failed := make(chan error, 1)
	ga := NewSnapshotGenerator(&fakeEmitter{err: boom}, SnapshotGeneratorConfig{Name: "async", MaxBytes: 1, Async: true, Failed: func(err error) { failed <- err }})
	must(t, l.Install(ga))
	must(t, l.HandleCommit(f.batch(record.NewNoOpRecord())))
	if err := <-failed; !errors.Is(err, boom) {
		t.Errorf("async failure %v", err)
	}
	must(t, ga.Close())
}
