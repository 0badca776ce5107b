package main

import (
	"context"
	"errors"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"sync"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// Start-up on any directory: a metadata directory Kafka has not written yet
// (missing, empty, or holding only a snapshot being written, a
// .checkpoint.part) gives the loader nothing to publish. Without -follow the
// proxy serves an empty cluster and says so; with -follow it says it waits,
// and dirfollow.Start (Options.AwaitFiles) follows the directory and returns
// at the first image.

// loadSource loads the demo cluster, or the directory dir (the partition
// directory itself or a log directory holding it) and with follow keeps
// following it from a goroutine of its own until stop is called, after
// the first image is published.
func loadSource(loader *publisher.Loader, dir string, demo, follow bool) (stop func(), err error) {
	stop = func() {}
	if demo {
		return stop, loadDemo(loader)
	}
	if st, err := os.Stat(filepath.Join(dir, metalog.MetadataPartitionDir)); err == nil && st.IsDir() {
		dir = filepath.Join(dir, metalog.MetadataPartitionDir) // a log directory holding the partition
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) { // a directory not there yet loads nothing
		if err := dirfollow.Load(loader, dir); err != nil {
			if le := (*dirfollow.LoadError)(nil); !errors.As(err, &le) {
				return stop, err
			}
			log.Printf("proxy: %v", err) // loaded: serve it, the problems named
		}
	}
	if !follow {
		return stop, nil
	}
	published, _ := loader.Watch()
	if published == nil {
		log.Printf("proxy: %s holds no metadata snapshot or log yet: waiting for Kafka to write it (-follow)", dir)
	}
	onError := func(err error) { log.Printf("proxy: following %s: %v", dir, err) }
	_, following, err := dirfollow.Start(context.Background(), loader, dir, dirfollow.Options{AwaitFiles: true, OnError: onError})
	if err != nil {
		return stop, err
	}
	if published == nil {
		log.Printf("proxy: %s: first metadata image loaded", dir)
	}
	go func() {
		<-following.Done()
		if err := following.Err(); err != nil {
			onError(err)
		}
	}()
	return func() { following.Stop() }, nil
}

// newRelay returns a publisher that passes every image on to the
// publisher given to set later (the server, made once the first image names
// its listener), from any goroutine: set gives it the latest image first.
func newRelay() (relay publisher.Publisher, set func(publisher.Publisher) error) {
	var mu sync.Mutex
	var last *image.Image
	var to publisher.Publisher
	relay = publisher.Func("proxy-relay", func(u publisher.Update) error {
		mu.Lock()
		defer mu.Unlock()
		last = u.Image
		if to != nil {
			return to.OnUpdate(u)
		}
		return nil
	})
	set = func(p publisher.Publisher) error {
		mu.Lock()
		defer mu.Unlock()
		to = p
		if last == nil {
			return nil
		}
		return p.OnUpdate(publisher.Update{Image: last, Manifest: publisher.Manifest{Type: publisher.SnapshotLoad, Provenance: last.Provenance()}})
	}
	return relay, set
}
