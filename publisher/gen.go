package publisher

import (
	"sync/atomic"

	"github.com/kmeta-go/kmeta/image"
)

// gen is one generation of a published image: the image, and a channel
// closed when the next generation replaces this one. The channel is made
// only when somebody asks for it, so publishing allocates one small object.
type gen struct {
	img    *image.Image
	closed bool // the loader is closed: no generation will follow
	next   atomic.Pointer[chan struct{}]
}

// superseded is the channel of a generation already replaced: closed.
var superseded = func() *chan struct{} {
	c := make(chan struct{})
	close(c)
	return &c
}()

// wait returns the channel closed when g is replaced.
func (g *gen) wait() <-chan struct{} {
	if p := g.next.Load(); p != nil {
		return *p
	}
	c := make(chan struct{})
	if g.next.CompareAndSwap(nil, &c) {
		return c
	}
	return *g.next.Load()
}

// supersede wakes whoever waits on g. Call it after the next generation is
// stored.
func (g *gen) supersede() {
	if p := g.next.Swap(superseded); p != nil && p != superseded {
		close(*p)
	}
}

// genPointer holds the current generation.
type genPointer struct{ p atomic.Pointer[gen] }

func (gp *genPointer) load() *gen { return gp.p.Load() }

// publish makes img the current generation and wakes the previous one's
// waiters.
func (gp *genPointer) publish(img *image.Image, closed bool) {
	old := gp.p.Swap(&gen{img: img, closed: closed})
	if old != nil {
		old.supersede()
	}
}
