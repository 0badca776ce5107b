package dirfollow_test

import (
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// loadWithin runs dirfollow.Load on dir and fails the test if it does not
// return within limit: a reader that loops without progress is a hang.
func loadWithin(t *testing.T, dir string, limit time.Duration) (*publisher.Loader, error) {
	t.Helper()
	l := publisher.NewLoader(publisher.Config{})
	done := make(chan error, 1)
	go func() { done <- dirfollow.Load(l, dir) }()
	select {
	case err := <-done:
		return l, err
	case <-time.After(limit):
		t.Fatalf("dirfollow.Load(%s) did not return within %v", dir, limit)
		return nil, nil
	}
}

// TestLoadEmptyActiveSegment: an empty active segment, as UnifiedLog.roll
// leaves one (a new LogSegment at the log end offset, nothing appended yet),
// alone, after a full segment, and after a snapshot at its base offset.
// Load returns the image of what the directory holds, promptly.
func TestLoadEmptyActiveSegment(t *testing.T) {
	t.Run("alone", func(t *testing.T) {
		dir := t.TempDir()
		seg, err := metalog.CreateSegment(metalog.OS{}, dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		seg.Close()
		l, err := loadWithin(t, dir, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.Stats().Loaded.LastContainedOffset; got != -1 {
			t.Errorf("loaded offset %d, want -1", got)
		}
	})
	t.Run("after a full segment", func(t *testing.T) {
		dir := t.TempDir()
		seg, err := metalog.CreateSegment(metalog.OS{}, dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := seg.AppendData(1, 1000, topic(t, "a", 1)...); err != nil {
			t.Fatal(err)
		}
		seg.Close()
		seg2, err := metalog.CreateSegment(metalog.OS{}, dir, 2)
		if err != nil {
			t.Fatal(err)
		}
		seg2.Close()
		l, err := loadWithin(t, dir, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		img, _ := l.Watch()
		if img == nil || img.Topics().Len() != 1 || img.Provenance().LastContainedOffset != 1 {
			t.Errorf("image %v", img)
		}
	})
}
