package publisher

import (
	"sync"

	"github.com/kmeta-go/kmeta/record"
)

// Runner is the concurrent wrapper around a Loader, as raft's node is around
// its RawNode: it owns the loader, runs it on a goroutine of its own and
// takes work from any goroutine through a bounded queue, like the event
// queue Kafka's MetadataLoader runs on. Use it when input comes from a raft
// client that calls back on its own thread and must not wait for
// publication, or when several goroutines install and remove publishers.
//
// Once a loader is given to NewRunner, only the runner calls its methods
// (Image, Watch and WaitForOffset excepted: they are safe anywhere); the
// loader's publishers, hooks and fault handler run on the runner's
// goroutine and may call the loader's Install, Remove, Publishers and Stats
// directly, but must not call the runner's methods that wait (Install,
// Remove, Publishers, Do, Close): they would wait for themselves.
//
// Input (HandleCommit, LoadSnapshot, SetHighWatermark, SetLeader,
// ReportReadError) is queued and done in order; errors the loader returns
// are kept (Err) and faults still go to its fault handler. The other
// methods queue their work too and wait for it.
//
// The package starts goroutines only when asked for: a Runner's, and the
// one a SnapshotGenerator with Async set starts for each snapshot it
// writes.
type Runner struct {
	l      *Loader
	mu     sync.RWMutex // guards closed and sending on q
	closed bool
	q      chan func() error
	done   chan struct{}

	emu sync.Mutex
	err error
}

// NewRunner starts a goroutine that feeds l from a queue of up to queue
// operations (at least 1). From then on l belongs to the runner.
func NewRunner(l *Loader, queue int) *Runner {
	if queue < 1 {
		queue = 1
	}
	r := &Runner{l: l, q: make(chan func() error, queue), done: make(chan struct{})}
	go r.run()
	return r
}

func (r *Runner) run() {
	defer close(r.done)
	for op := range r.q {
		if err := op(); err != nil {
			r.emu.Lock()
			if r.err == nil {
				r.err = err
			}
			r.emu.Unlock()
		}
	}
}

// enqueue queues op, waiting while the queue is full.
func (r *Runner) enqueue(op func() error) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		return ErrClosed
	}
	r.q <- op
	return nil
}

// Do runs fn with the loader on the runner's goroutine, after the work
// queued before it, and returns fn's error (or ErrClosed once the runner is
// closed). It is how a caller reaches a Loader method the runner does not
// wrap, such as WatchFaults or HandleCommitReader. fn must not keep the
// loader.
func (r *Runner) Do(fn func(l *Loader) error) error {
	res := make(chan error, 1)
	if err := r.enqueue(func() error { res <- fn(r.l); return nil }); err != nil {
		return err
	}
	return <-res
}

// HandleCommit queues a commit. The batches and their records now belong to
// the runner.
func (r *Runner) HandleCommit(batches ...record.Batch) error {
	return r.enqueue(func() error { return r.l.HandleCommit(batches...) })
}

// LoadSnapshot queues a snapshot load. The reader now belongs to the
// runner and is read later, on the runner's goroutine: queue a file's
// reader through Do instead, which waits, and close it after (a Snapshot's
// Reader needs no closing).
func (r *Runner) LoadSnapshot(s SnapshotReader) error {
	return r.enqueue(func() error { return r.l.LoadSnapshot(s) })
}

// SetHighWatermark queues a new high watermark.
func (r *Runner) SetHighWatermark(hw int64) error {
	return r.enqueue(func() error { r.l.SetHighWatermark(hw); return nil })
}

// SetLeader queues a leader change.
func (r *Runner) SetLeader(le LeaderAndEpoch) error {
	return r.enqueue(func() error { r.l.SetLeader(le); return nil })
}

// ReportReadError queues Loader.ReportReadError.
func (r *Runner) ReportReadError(offset int64, err error) error {
	return r.enqueue(func() error { r.l.ReportReadError(offset, err); return nil })
}

// Install installs publishers (Loader.Install) once the work queued before
// it is done, and returns Install's error.
func (r *Runner) Install(ps ...Publisher) error {
	return r.Do(func(l *Loader) error { return l.Install(ps...) })
}

// Remove removes and closes a publisher (Loader.Remove) once the work
// queued before it is done, and returns Remove's error.
func (r *Runner) Remove(name string) error {
	return r.Do(func(l *Loader) error { return l.Remove(name) })
}

// Publishers returns the names of the installed publishers once the work
// queued before it is done; nil once the runner is closed.
func (r *Runner) Publishers() []string {
	var out []string
	r.Do(func(l *Loader) error { out = l.Publishers(); return nil })
	return out
}

// Stats returns the loader's counters as they are now (Loader.Stats), not
// waiting for the queued work.
func (r *Runner) Stats() Stats { return r.l.Stats() }

// Err returns the first error the loader returned to the runner.
func (r *Runner) Err() error {
	r.emu.Lock()
	defer r.emu.Unlock()
	return r.err
}

// Close finishes the queued work, stops the goroutine and returns Err. It
// does not close the loader: after Close the loader belongs to the caller
// again, who may call its methods (Loader.Close among them).
func (r *Runner) Close() error {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.q)
	}
	r.mu.Unlock()
	<-r.done
	return r.Err()
}
