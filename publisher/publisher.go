package publisher

import (
	"fmt"
	"time"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// Publisher receives every image the loader publishes (Kafka's
// MetadataPublisher). The delta and the image are read-only: the image is
// immutable and may be kept; the delta must not be replayed into or kept
// past the call.
//
// A newly installed publisher's first update is the whole current image as
// a delta from the empty image, with a SnapshotLoad manifest; then it gets
// every publication in order.
type Publisher interface {
	// Name identifies the publisher; names are unique within a loader.
	Name() string
	// OnUpdate is called with each new image. An error (or a panic) is
	// reported to the fault handler; the other publishers still get the
	// image, and this one keeps getting later ones unless removed.
	OnUpdate(d *delta.Delta, img *image.Image, m Manifest) error
	// Close is called when the publisher is removed or the loader closed.
	Close() error
}

// ControllerListener is implemented by publishers that want to hear of raft
// leader changes (MetadataPublisher.onControllerChange). A newly installed
// one hears of the current leader right after its first update.
type ControllerListener interface {
	OnControllerChange(LeaderAndEpoch)
}

// Func adapts a function to a Publisher with a no-op Close.
func Func(name string, fn func(d *delta.Delta, img *image.Image, m Manifest) error) Publisher {
	return funcPublisher{name, fn}
}

type funcPublisher struct {
	name string
	fn   func(*delta.Delta, *image.Image, Manifest) error
}

func (f funcPublisher) Name() string { return f.name }
func (f funcPublisher) OnUpdate(d *delta.Delta, img *image.Image, m Manifest) error {
	return f.fn(d, img, m)
}
func (funcPublisher) Close() error { return nil }

// Install adds publishers after those already installed
// (MetadataLoader.installPublishers). Each one first receives the whole
// current image as a delta from the empty image, as soon as the loader has
// caught up: during this call when the loader is idle and caught up,
// otherwise when the operation in progress ends or at the catch-up. A name
// already installed is refused with ErrDuplicateName and nothing is
// installed.
func (l *Loader) Install(ps ...Publisher) error {
	l.pmu.Lock()
	if l.closedFlag() {
		l.pmu.Unlock()
		return ErrClosed
	}
	seen := map[string]bool{}
	for _, e := range l.pubs {
		seen[e.name] = true
	}
	for _, p := range ps {
		if seen[p.Name()] {
			l.pmu.Unlock()
			return fmt.Errorf("%w: %q", ErrDuplicateName, p.Name())
		}
		seen[p.Name()] = true
	}
	for _, p := range ps {
		l.pubs = append(l.pubs, &entry{p: p, name: p.Name()})
	}
	busy := l.busy
	l.pmu.Unlock()
	if !busy {
		l.enter()
		l.leave() // initializes them if caught up
	}
	return nil
}

// closedFlag reads closed without mu; pmu is held. Close sets closed under
// mu before emptying the list under pmu, so a stale false here only lets an
// Install race with Close, whose entries leave closes.
func (l *Loader) closedFlag() bool { return l.board.load().closed }

// Remove removes the publisher named name and closes it
// (MetadataLoader.removeAndClosePublisher). It gets no update after Remove
// returns. Called while the loader is busy (from a publisher, the fault
// handler, or another goroutine during a publication) it returns at once
// and the publisher is closed when the operation ends; otherwise it is
// closed before Remove returns, and its Close error is returned.
func (l *Loader) Remove(name string) error {
	l.pmu.Lock()
	idx := -1
	for i, e := range l.pubs {
		if e.name == name {
			idx = i
			break
		}
	}
	if idx < 0 {
		l.pmu.Unlock()
		return fmt.Errorf("%w: %q", ErrUnknownPublisher, name)
	}
	e := l.pubs[idx]
	l.pubs = append(l.pubs[:idx:idx], l.pubs[idx+1:]...)
	e.removed.Store(true)
	if l.busy {
		l.toClose = append(l.toClose, e)
		l.pmu.Unlock()
		return nil
	}
	l.pmu.Unlock()
	return closeEntry(e)
}

// Publishers returns the names of the installed publishers in install
// order.
func (l *Loader) Publishers() []string {
	l.pmu.Lock()
	defer l.pmu.Unlock()
	out := make([]string, len(l.pubs))
	for i, e := range l.pubs {
		out[i] = e.name
	}
	return out
}

// initPending gives every publisher installed but not yet initialized the
// whole of img as a delta from the empty image
// (MetadataLoader.initializeNewPublishers). The full delta is built once and
// shared. A publisher that fails is reported and dropped, as in Kafka.
func (l *Loader) initPending(img *image.Image) {
	var full *delta.Delta
	var m Manifest
	for {
		l.pmu.Lock()
		var e *entry
		for _, x := range l.pubs {
			if !x.ready {
				e = x
				break
			}
		}
		l.pmu.Unlock()
		if e == nil {
			return
		}
		if full == nil {
			t0 := time.Now()
			var err error
			full, err = fullDelta(img, l)
			m = Manifest{Type: SnapshotLoad, Provenance: img.Provenance(), Leader: l.leader, Elapsed: time.Since(t0)}
			if err != nil {
				full = nil
				l.dropEntry(e, &Fault{Kind: FaultPublisherInit, Publisher: e.name, Offset: img.Provenance().LastContainedOffset, Err: err})
				continue
			}
		}
		err := callUpdate(e.p, full, img, m)
		if err == nil {
			if cl, ok := e.p.(ControllerListener); ok {
				err = callControllerChange(cl, l.leader)
			}
		}
		if err != nil {
			l.setStats(func(s *Stats) { s.PublisherErrors++ })
			l.dropEntry(e, &Fault{Kind: FaultPublisherInit, Publisher: e.name, Offset: img.Provenance().LastContainedOffset, Err: err})
			continue
		}
		l.pmu.Lock()
		e.ready = true
		l.pmu.Unlock()
	}
}

// dropEntry removes a publisher that failed its initialization, reports the
// fault and schedules its Close.
func (l *Loader) dropEntry(e *entry, f *Fault) {
	l.pmu.Lock()
	for i, x := range l.pubs {
		if x == e {
			l.pubs = append(l.pubs[:i:i], l.pubs[i+1:]...)
			break
		}
	}
	if !e.removed.Swap(true) {
		l.toClose = append(l.toClose, e)
	}
	l.pmu.Unlock()
	l.fault(f)
}

// fullDelta writes img back as records into a snapshot delta over the empty
// image (Kafka's ImageReWriter over MetadataImage.EMPTY).
func fullDelta(img *image.Image, l *Loader) (*delta.Delta, error) {
	d := delta.NewSnapshot(nil)
	err := img.Write(image.WriteOptions{OnLoss: func(what string) error {
		l.log.Debug("full-image delta for a new publisher cannot carry", "what", what)
		return nil
	}}, func(r record.Record, _ int16) error { return d.Replay(r) })
	if err != nil {
		return nil, fmt.Errorf("writing the current image for a new publisher: %w", err)
	}
	d.FinishSnapshot()
	return d, nil
}

func callUpdate(p Publisher, d *delta.Delta, img *image.Image, m Manifest) (err error) {
	defer recoverPanic(&err)
	return p.OnUpdate(d, img, m)
}

func callControllerChange(cl ControllerListener, le LeaderAndEpoch) (err error) {
	defer recoverPanic(&err)
	cl.OnControllerChange(le)
	return nil
}

func closeEntry(e *entry) (err error) {
	defer recoverPanic(&err)
	return e.p.Close()
}
