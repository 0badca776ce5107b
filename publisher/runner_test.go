package publisher

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/record"
)

// TestRunner: commits queued to a Runner are loaded in order on its
// goroutine; WaitForOffset sees them; errors are kept; Close drains.
func TestRunner(t *testing.T) {
	l := NewLoader(Config{})
	cache := NewCache("")
	must(t, l.Install(cache))
	r := NewRunner(l, 4)
	f := &feed{}
	must(t, r.SetHighWatermark(0))
	must(t, r.HandleCommit(f.batch(topicRec("a", 1), partRec(1, 0, 0))))
	for i := 0; i < 100; i++ {
		must(t, r.HandleCommit(f.batch(leaderChange(1, 0, int32(i%3)))))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	img, err := l.WaitForOffset(ctx, f.next-1)
	must(t, err)
	if img != cache.Load() {
		t.Errorf("cache behind WaitForOffset")
	}
	must(t, r.HandleCommit(record.Batch{BaseOffset: 0, Records: versioned(record.NewNoOpRecord())})) // out of order
	if err := r.Close(); !errors.Is(err, ErrOffset) {
		t.Errorf("Close = %v, want the ErrOffset the loader returned", err)
	}
	if err := r.HandleCommit(f.batch(record.NewNoOpRecord())); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}
