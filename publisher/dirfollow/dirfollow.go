// Package dirfollow feeds a __cluster_metadata-0 directory to a
// publisher.Loader, the way a broker's raft client would after a restart:
// the latest snapshot, then the log batches after it, in commits of at most
// 8 MiB (KafkaRaftClient's MAX_FETCH_SIZE_BYTES), then the high watermark at
// the end of the log. Follow keeps polling the directory for new batches
// and new segments.
//
// It reads files and Follow sleeps between polls, which is why it lives
// outside the loader's pure core. It is meant for examples, tools and tests
// over copied or live directories. A file reader cannot know Kafka's high
// watermark, so every complete batch found is taken as committed; a live
// Kafka node may append batches that its quorum later truncates.
//
//	l := publisher.NewLoader(publisher.Options{})
//	cache := publisher.NewCache("")
//	l.Install(cache)
//	if err := dirfollow.Load(l, dir); err != nil { ... }
//	img := cache.Load()
package dirfollow

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record"
)

// DefaultMaxCommitBytes is KafkaRaftClient.MAX_FETCH_SIZE_BYTES: a broker's
// raft client hands the listener at most this much log per commit.
const DefaultMaxCommitBytes = 8 << 20

// DefaultPoll is how often Follow looks for new batches when idle.
const DefaultPoll = 100 * time.Millisecond

// Options configure Load and Follow.
type Options struct {
	// MaxCommitBytes bounds one commit (at least one batch is always
	// taken). 0 means DefaultMaxCommitBytes.
	MaxCommitBytes int
	// Poll is Follow's idle interval. 0 means DefaultPoll.
	Poll time.Duration
}

// Load feeds the directory once: its latest snapshot, every complete batch
// after it, then the high watermark just past the last batch, so that the
// loader catches up and publishes. A batch cut short at the end of the last
// segment is left out, as Kafka's log recovery truncates it.
func Load(l *publisher.Loader, dir string) error {
	return LoadWith(l, dir, Options{})
}

// LoadWith is Load with options.
func LoadWith(l *publisher.Loader, dir string, opts Options) error {
	d, err := openAndLoadSnapshot(l, dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return feed(l, d, opts)
}

// openAndLoadSnapshot opens dir for following and feeds the loader its
// latest snapshot; the caller reads the log after it and closes the reader.
func openAndLoadSnapshot(l *publisher.Loader, dir string) (*record.DirReader, error) {
	d, err := record.OpenDir(dir, record.Follow)
	if err != nil {
		return nil, err
	}
	if err := loadSnapshot(l, d); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// Follow is Load followed by polling the directory until ctx ends: each
// time new complete batches appear (in the last segment or a new one) they
// are fed as commits. It returns ctx's error, or the first error reading
// the directory or feeding the loader.
func Follow(ctx context.Context, l *publisher.Loader, dir string, opts Options) error {
	d, err := openAndLoadSnapshot(l, dir)
	if err != nil {
		return err
	}
	defer d.Close()
	poll := opts.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if err := feed(l, d, opts); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

func loadSnapshot(l *publisher.Loader, d *record.DirReader) error {
	if s := d.Snapshot(); s != nil {
		return l.LoadSnapshotReader(s)
	}
	return nil
}

// feed reads batches until the reader has nothing more for now, committing
// every MaxCommitBytes, then reports the high watermark.
func feed(l *publisher.Loader, d *record.DirReader, opts Options) error {
	max := opts.MaxCommitBytes
	if max <= 0 {
		max = DefaultMaxCommitBytes
	}
	pending := 0
	for {
		b, err := d.Next()
		if err == io.EOF || errors.Is(err, record.ErrIncompleteTail) {
			break
		}
		if err != nil {
			return err
		}
		if err := l.LoadRecordBatch(b); err != nil {
			return err
		}
		pending += b.Size()
		if pending >= max {
			if err := l.Commit(); err != nil {
				return err
			}
			pending = 0
		}
	}
	if pending > 0 {
		if err := l.Commit(); err != nil {
			return err
		}
	}
	l.SetHighWatermark(d.LastOffset() + 1)
	return nil
}
