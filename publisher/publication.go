package publisher

import (
	"sync/atomic"

	"github.com/kmeta-go/kmeta/image"
)

// publication is one image the loader published, and a channel closed when
// the next publication replaces it. The channel is made only when somebody
// asks for it, so publishing allocates one small object.
type publication struct {
	img    *image.Image
	closed bool // the loader is closed: no publication will follow
	next   atomic.Pointer[chan struct{}]
}

// superseded is the channel of a publication already replaced: closed.
var superseded = func() *chan struct{} {
	c := make(chan struct{})
	close(c)
	return &c
}()

// wait returns the channel closed when g is replaced.
func (g *publication) wait() <-chan struct{} {
	if p := g.next.Load(); p != nil {
		return *p
	}
	c := make(chan struct{})
	if g.next.CompareAndSwap(nil, &c) {
		return c
	}
	return *g.next.Load()
}

// supersede wakes whoever waits on g. Call it after the next publication is
// stored.
func (g *publication) supersede() {
	if p := g.next.Swap(superseded); p != nil && p != superseded {
		close(*p)
	}
}

// latestPublication holds the current publication.
type latestPublication struct{ p atomic.Pointer[publication] }

func (gp *latestPublication) load() *publication { return gp.p.Load() }

// publish makes img the current publication and wakes the previous one's
// waiters.
func (gp *latestPublication) publish(img *image.Image, closed bool) {
	old := gp.p.Swap(&publication{img: img, closed: closed})
	if old != nil {
		old.supersede()
	}
}
