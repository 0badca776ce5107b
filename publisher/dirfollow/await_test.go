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

// TestStartAwaitFiles: with Options.AwaitFiles, Start on a directory that
// does not exist yet waits (rather than fail, as TestStartErrors shows it
// does without), and returns the first image once the directory is made and
// a segment written to it, as a node formatted after its reader writes it.
func TestStartAwaitFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "__cluster_metadata-0")
	l := publisher.NewLoader(publisher.Config{})
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	type started struct {
		f   *dirfollow.Following
		n   int
		err error
	}
	res := make(chan started, 1)
	go func() {
		img, f, err := dirfollow.Start(ctx, l, dir, dirfollow.Options{AwaitFiles: true, Poll: 5 * time.Millisecond, MaxPoll: 20 * time.Millisecond})
		s := started{f: f, err: err}
		if img != nil {
			s.n = img.Topics().Len()
		}
		res <- s
	}()
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000100-0000000001.checkpoint.part"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	seg, err := metalog.CreateSegment(metalog.OS{}, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	if _, err := seg.AppendData(1, 1000, topic(t, "a", 1)...); err != nil {
		t.Fatal(err)
	}
	s := <-res
	if s.err != nil {
		t.Fatalf("Start: %v", s.err)
	}
	defer s.f.Stop()
	if s.n != 1 {
		t.Fatalf("first image: %d topics, want 1", s.n)
	}
	if err := s.f.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
}

// TestStartAwaitFilesCanceled: a context that ends while Start awaits the
// directory's first file is Start's error, and nothing keeps running.
func TestStartAwaitFilesCanceled(t *testing.T) {
	l := publisher.NewLoader(publisher.Config{})
	defer l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	img, f, err := dirfollow.Start(ctx, l, filepath.Join(t.TempDir(), "absent"), dirfollow.Options{AwaitFiles: true, Poll: time.Millisecond})
	if !errors.Is(err, context.Canceled) || img != nil || f != nil {
		t.Fatalf("Start = %v, %v, %v; want context.Canceled", img, f, err)
	}
}
