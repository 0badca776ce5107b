package publisher

import (
	"errors"
	"testing"

	"github.com/kmeta-go/kmeta/image"
)

// TestInputFromAPublisherIsAFault: the loader is single-goroutine, and a
// publisher that feeds it from inside OnUpdate breaks the rule. The call
// panics instead of corrupting the publication in progress (or
// deadlocking, as the locked loader did); the panic is the publisher's
// fault, the commit is published to the others, and the loader goes on.
func TestInputFromAPublisherIsAFault(t *testing.T) {
	var faults []*Fault
	l := NewLoader(Config{FaultHandler: func(_ *Loader, f *Fault) { faults = append(faults, f) }})
	rude, polite := newRecorder("rude"), newRecorder("polite")
	f := &feed{}
	rude.onUp = func(_ *recorder, _ Changes, _ *image.Image, m Manifest) error {
		if m.Type == LogDelta {
			l.SetHighWatermark(100)
		}
		return nil
	}
	must(t, l.Install(rude, polite))
	l.SetHighWatermark(0)
	must(t, l.HandleCommit(f.batch(topicRec("a", 1), partRec(1, 0, 0))))
	must(t, l.HandleCommit(f.batch(leaderChange(1, 0, 1))))
	var pe *PanicError
	if len(faults) != 1 || faults[0].Kind != FaultPublisher || faults[0].Publisher != "rude" || !errors.As(faults[0], &pe) {
		t.Fatalf("faults %v, want one publisher fault for rude's panic", faults)
	}
	if got := polite.offsets(); len(got) != 2 || got[1] != 2 {
		t.Errorf("polite got %v, want the full image then offset 2", got)
	}
	if st := l.Stats(); st.HighWatermark != 0 {
		t.Errorf("high watermark %d: the call from the publisher changed the loader", st.HighWatermark)
	}
	must(t, l.HandleCommit(f.batch(leaderChange(1, 0, 2))))
	if got := polite.offsets(); len(got) != 3 {
		t.Errorf("the loader stopped after the fault: polite got %v", got)
	}
}

// TestZeroChanges: the zero Changes reports no change over the empty image,
// as a publisher called directly (a test, or a relay) may receive it.
func TestZeroChanges(t *testing.T) {
	var c Changes
	if c.Base() != image.Empty() {
		t.Errorf("Base of the zero Changes is not the empty image")
	}
	if tc := c.Topics(); len(tc.Created)+len(tc.Changed)+len(tc.Deleted) != 0 {
		t.Errorf("topics %+v", tc)
	}
	if _, ok := c.MetadataVersionChanged(); ok || c.ChangedPartitions([16]byte{1}) != nil || c.PartitionGrowth() != nil {
		t.Errorf("zero Changes reports a change")
	}
	if b := c.Brokers(); len(b.Registered) != 0 {
		t.Errorf("brokers %+v", b)
	}
	if lc := c.LocalChanges(1); len(lc.Leaders)+len(lc.Followers)+len(lc.Deletes) != 0 {
		t.Errorf("local changes %+v", lc)
	}
}
