package dirfollow_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// TestStartWaitsForFirstImage: Start returns the first published image of a
// simulated directory, the follower keeps following (a segment appended
// after Start is published), and Stop ends it without error.
func TestStartWaitsForFirstImage(t *testing.T) {
	dir := t.TempDir()
	seg, err := metalog.CreateSegment(metalog.OS{}, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	if _, err := seg.AppendData(1, 1000, topic(t, "a", 1)...); err != nil {
		t.Fatal(err)
	}
	l := publisher.NewLoader(publisher.Config{})
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	img, f, err := dirfollow.Start(ctx, l, dir, dirfollow.Options{Poll: 5 * time.Millisecond, MaxPoll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if img.Topics().Len() != 1 || img.Provenance().LastContainedOffset != 1 || f.Err() != nil {
		t.Fatalf("first image: %d topics at offset %d, %v", img.Topics().Len(), img.Provenance().LastContainedOffset, f.Err())
	}
	if _, err := seg.AppendData(1, 1001, topic(t, "b", 2)...); err != nil {
		t.Fatal(err)
	}
	if img, err = l.WaitForOffset(ctx, 3); err != nil || img.Topics().Len() != 2 {
		t.Fatalf("after an append: %v", err)
	}
	if err := f.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	select {
	case <-f.Done():
	default:
		t.Fatal("Done not closed after Stop")
	}
	if err := f.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}

// TestStartErrors: a directory that cannot be followed is Start's error,
// and a context that ends before the first image stops the follower and
// is Start's error.
func TestStartErrors(t *testing.T) {
	l := publisher.NewLoader(publisher.Config{})
	defer l.Close()
	_, f, err := dirfollow.Start(context.Background(), l, filepath.Join(t.TempDir(), "absent"), dirfollow.Options{})
	if err == nil || f != nil {
		t.Fatalf("absent directory: %v, %v", f, err)
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.log"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	l2 := publisher.NewLoader(publisher.Config{})
	defer l2.Close()
	// An empty active segment waits for its first batch (Follow's doc), so
	// no image comes before ctx ends.
	_, f, err = dirfollow.Start(ctx, l2, dir, dirfollow.Options{Poll: 5 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || f != nil {
		t.Fatalf("ctx ended first: %v", err)
	}
}
