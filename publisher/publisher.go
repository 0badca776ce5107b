package publisher

import (
	"fmt"
	"time"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// Publisher receives every image the loader publishes (Kafka's
// MetadataPublisher). Each call gets an Update: a value holding the new
// image, its manifest and a read-only view of what changed.
//
// A newly installed publisher's first update is the whole current image as
// a delta from the empty image, with a SnapshotLoad manifest; then it gets
// every publication in order. Its methods run on the loader's goroutine.
type Publisher interface {
	// Name identifies the publisher; names are unique within a loader.
	Name() string
	// OnUpdate is called with each new image. An error (or a panic) is
	// reported to the fault handler; the other publishers still get the
	// image, and this one keeps getting later ones unless removed.
	OnUpdate(u Update) error
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
func Func(name string, fn func(u Update) error) Publisher {
	return funcPublisher{name, fn}
}

type funcPublisher struct {
	name string
	fn   func(Update) error
}

func (f funcPublisher) Name() string            { return f.name }
func (f funcPublisher) OnUpdate(u Update) error { return f.fn(u) }
func (funcPublisher) Close() error              { return nil }

// Install adds publishers after those already installed
// (MetadataLoader.installPublishers). Each one first receives the whole
// current image as a delta from the empty image, as soon as the loader has
// caught up: during this call when it is caught up, otherwise at the
// catch-up. Called from a publisher, a hook or the fault handler (on the
// loader's goroutine, during an operation), it only records them: they are
// initialized when the operation ends. A name already installed is refused
// with ErrDuplicateName and nothing is installed.
func (l *Loader) Install(ps ...Publisher) error {
	if l.closed {
		return ErrClosed
	}
	seen := map[string]bool{}
	for _, e := range l.pubs {
		seen[e.name] = true
	}
	for _, p := range ps {
		if seen[p.Name()] {
			return fmt.Errorf("%w: %q", ErrDuplicateName, p.Name())
		}
		seen[p.Name()] = true
	}
	for _, p := range ps {
		l.pubs = append(l.pubs, &entry{p: p, name: p.Name()})
	}
	if !l.busy {
		l.enter()
		l.leave() // initializes them if caught up
	}
	return nil
}

// Remove removes the publisher named name and closes it
// (MetadataLoader.removeAndClosePublisher). It gets no update after Remove
// returns. Called during an operation (from a publisher, a hook or the
// fault handler) it returns at once and the publisher is closed when the
// operation ends; otherwise it is closed before Remove returns, and its
// Close error is returned.
func (l *Loader) Remove(name string) error {
	idx := -1
	for i, e := range l.pubs {
		if e.name == name {
			idx = i
			break
		}
	}
	if idx < 0 {
		return fmt.Errorf("%w: %q", ErrUnknownPublisher, name)
	}
	e := l.pubs[idx]
	l.pubs = append(l.pubs[:idx:idx], l.pubs[idx+1:]...)
	e.removed = true
	if l.busy {
		l.toClose = append(l.toClose, e)
		return nil
	}
	return closeEntry(e)
}

// Publishers returns the names of the installed publishers in install
// order.
func (l *Loader) Publishers() []string {
	out := make([]string, len(l.pubs))
	for i, e := range l.pubs {
		out[i] = e.name
	}
	return out
}

// initPending gives every publisher installed but not yet initialized the
// whole of img as a delta from the empty image
// (MetadataLoader.initializeNewPublishers). The full delta is built once and
// shared; full, when not nil, is that delta already (the delta of a
// snapshot loaded over the empty image, whose replay made img), which
// spares writing img back as records and replaying them, as Kafka's
// ImageReWriter does: the publisher sees the same image and the same
// changes, every part of img created. A publisher that fails is reported
// and dropped, as in Kafka.
func (l *Loader) initPending(img *image.Image, full *delta.Delta) {
	var m Manifest
	if full != nil {
		m = Manifest{Type: SnapshotLoad, Provenance: img.Provenance(), Leader: l.leader}
	}
	for {
		var e *entry
		for _, x := range l.pubs {
			if !x.ready {
				e = x
				break
			}
		}
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
		err := callUpdate(e.p, Update{Image: img, Manifest: m, Changes: Changes{full}})
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
		e.ready = true
	}
}

// dropEntry removes a publisher that failed its initialization, reports the
// fault and schedules its Close.
func (l *Loader) dropEntry(e *entry, f *Fault) {
	for i, x := range l.pubs {
		if x == e {
			l.pubs = append(l.pubs[:i:i], l.pubs[i+1:]...)
			break
		}
	}
	if !e.removed {
		e.removed = true
		l.toClose = append(l.toClose, e)
	}
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

func callUpdate(p Publisher, u Update) (err error) {
	defer recoverPanic(&err)
	return p.OnUpdate(u)
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
