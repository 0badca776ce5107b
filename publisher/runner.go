package publisher

import "sync"

// Runner runs a Loader on a goroutine of its own, fed through a bounded
// queue, like the event queue Kafka's MetadataLoader runs on: for embedders
// whose raft client calls back on its own thread and must not wait for
// publication. It is the only goroutine the package starts, and only when
// asked for.
//
// Work is done in the order it was queued. Errors the loader returns are
// kept (Err); faults still go to the loader's fault handler.
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
// operations (at least 1).
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

// HandleCommit queues a commit. The batches and their records now belong to
// the runner.
func (r *Runner) HandleCommit(batches ...Batch) error {
	return r.enqueue(func() error { return r.l.HandleCommit(batches...) })
}

// LoadSnapshot queues a snapshot load.
func (r *Runner) LoadSnapshot(s Snapshot) error {
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

// Err returns the first error the loader returned to the runner.
func (r *Runner) Err() error {
	r.emu.Lock()
	defer r.emu.Unlock()
	return r.err
}

// Close finishes the queued work, stops the goroutine and returns Err. It
// does not close the loader.
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
