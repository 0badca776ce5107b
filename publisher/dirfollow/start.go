package dirfollow

import (
	"context"
	"errors"
	"sync"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
)

// Following is a Follow running on a goroutine of its own, started by
// Start. Stop ends it; Done and Err report how it ended.
type Following struct {
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
	err    error // Follow's result, set before done is closed
}

// Start runs Follow on a new goroutine, which becomes the loader's (install
// the publishers before calling Start, and call l's input methods only after
// Stop), and waits until the loader has published its first image: the
// directory's latest snapshot and the log after it, as a broker waits to
// catch up before it serves. It returns that image and the running Following.
//
// When Follow fails before the first image (the directory cannot be opened,
// a record only a newer Kafka writes halts the loader, damage without
// Options.OnError), Start returns its error and nothing keeps running. When
// ctx ends first, Start stops the follower and returns ctx's error. ctx
// also bounds the follower afterwards: it stops when ctx ends or at Stop,
// whichever comes first.
//
// A directory with no record publishes the empty image. With
// Options.OnError set, damage met while loading goes to OnError and Start
// keeps waiting for an image (or ctx).
func Start(ctx context.Context, l *publisher.Loader, dir string, opts Options) (*image.Image, *Following, error) {
	fctx, cancel := context.WithCancel(ctx)
	f := &Following{cancel: cancel, done: make(chan struct{})}
	go func() {
		f.err = Follow(fctx, l, dir, opts)
		close(f.done)
	}()
	for {
		img, changed := l.Watch()
		if img != nil {
			return img, f, nil
		}
		select {
		case <-changed:
		case <-f.done:
			if img, _ := l.Watch(); img != nil && f.err == nil {
				return img, f, nil
			}
			cancel()
			if err := ctx.Err(); err != nil {
				// ctx ended and Follow saw it first: the same end as below.
				return nil, nil, err
			}
			return nil, nil, f.result()
		case <-ctx.Done():
			f.Stop()
			return nil, nil, ctx.Err()
		}
	}
}

// Stop ends the follower and waits for its goroutine to return; after it
// the caller's goroutine may use the loader's input methods again. It
// returns Err. Stop may be called more than once.
func (f *Following) Stop() error {
	f.once.Do(f.cancel)
	<-f.done
	return f.result()
}

// Done is closed when the follower has returned: after Stop, when the
// context given to Start ends, or on an error Follow returns.
func (f *Following) Done() <-chan struct{} { return f.done }

// Err is what Follow returned, nil while it runs and after a Stop or the
// end of Start's context (the end the caller asked for is not an error).
func (f *Following) Err() error {
	select {
	case <-f.done:
		return f.result()
	default:
		return nil
	}
}

func (f *Following) result() error {
	if errors.Is(f.err, context.Canceled) || errors.Is(f.err, context.DeadlineExceeded) {
		return nil
	}
	return f.err
}
