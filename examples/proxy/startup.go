package main

import (
	"context"
	"errors"
	"io/fs"
	"log"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
)

// Start-up on any directory: a metadata directory Kafka has not written yet
// (missing, empty, or holding only a snapshot being written, a
// .checkpoint.part) gives the loader nothing to publish. Without -follow the
// proxy serves an empty cluster and says so; with -follow it says it waits,
// follows the directory, and starts serving at the first image.

// firstImage is a publisher that notes the loader's first publication.
type firstImage struct {
	once sync.Once
	done chan struct{}
}

func newFirstImage() *firstImage { return &firstImage{done: make(chan struct{})} }

func (f *firstImage) Name() string { return "proxy-start" }
func (f *firstImage) OnUpdate(publisher.Update) error {
	f.once.Do(func() { close(f.done) })
	return nil
}
func (f *firstImage) Close() error { return nil }

// relay is a publisher that passes every image on to a publisher set later
// (the server, made once the first image names its listener), from any
// goroutine: set gives it the latest image first.
type relay struct {
	mu   sync.Mutex
	last *image.Image
	to   publisher.Publisher
}

func (r *relay) Name() string { return "proxy-relay" }
func (r *relay) Close() error { return nil }
func (r *relay) OnUpdate(u publisher.Update) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = u.Image
	if r.to != nil {
		return r.to.OnUpdate(u)
	}
	return nil
}

// set makes p receive every later image, after the latest one.
func (r *relay) set(p publisher.Publisher) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.to = p
	if r.last == nil {
		return nil
	}
	return p.OnUpdate(publisher.Update{Image: r.last, Manifest: publisher.Manifest{Type: publisher.SnapshotLoad, Provenance: r.last.Provenance()}})
}

func (f *firstImage) published() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

// loadDir loads dir's snapshot and log into the loader; a directory that does
// not exist yet loads nothing (the caller serves an empty cluster or waits).
func loadDir(l *publisher.Loader, dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return dirfollow.Load(l, dir)
}

// followDir follows dir until ctx ends, first waiting for it to hold a log
// segment or a finished snapshot: dirfollow.Follow finds the segments and
// the snapshot when it opens the directory and follows them from there, so
// it is opened once Kafka has written one.
func followDir(ctx context.Context, l *publisher.Loader, dir string) error {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		if hasMetadataFiles(dir) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	opts := dirfollow.Options{OnError: func(err error) { log.Printf("proxy: following %s: %v", dir, err) }}
	return dirfollow.Follow(ctx, l, dir, opts)
}

// hasMetadataFiles reports whether dir holds a log segment or a finished
// snapshot (not only a .checkpoint.part Kafka is still writing).
func hasMetadataFiles(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && (strings.HasSuffix(n, ".log") || strings.HasSuffix(n, ".checkpoint")) {
			return true
		}
	}
	return false
}

// waitFirst waits, with -follow on a directory that has published nothing,
// until the loader publishes its first image.
func waitFirst(ctx context.Context, first *firstImage, dir string) error {
	if first.published() {
		return nil
	}
	log.Printf("proxy: %s holds no metadata snapshot or log yet: waiting for Kafka to write it (-follow)", dir)
	select {
	case <-first.done:
		log.Printf("proxy: %s: first metadata image loaded", dir)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
