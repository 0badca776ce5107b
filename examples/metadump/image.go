package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record"
)

// loadImage builds the image of whatever path names the way Kafka's code
// builds it, through kmeta's loader: a directory as a broker loads it at
// start-up, a snapshot as MetadataLoader.loadSnapshot does, a log segment as
// the commits of MetadataLoader.handleCommit (transactions respected), and a
// bootstrap.checkpoint as its records replayed like a snapshot
// (BootstrapDirectory.read).
func loadImage(path string) (*image.Image, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		img, err := dirfollow.LoadImage(path)
		return img, wrapLoadError(path, err, nil)
	}
	l := publisher.NewLoader(publisher.Options{FaultHandler: func(*publisher.Loader, *publisher.Fault) {}})
	defer l.Close()
	// Records the loader skips are located and returned with the image.
	skipped := &dirfollow.LoadError{Dir: path}
	batchPos := int64(-1)
	stop := l.WatchFaults(func(f *publisher.Fault) {
		if f.Kind != publisher.FaultReplay && f.Kind != publisher.FaultApply && f.Kind != publisher.FaultControl {
			return
		}
		skipped.Count++
		if len(skipped.Problems) < 100 {
			skipped.Problems = append(skipped.Problems, &dirfollow.RecordError{File: path, Position: batchPos, Offset: f.Offset, Err: f})
		}
	})
	defer stop()
	cache := publisher.NewCache("metadump")
	if err := l.Install(cache); err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	switch {
	case name == record.BootstrapFileName:
		entries, err := record.ReadBootstrap(path)
		if err != nil {
			return nil, err
		}
		s := publisher.Snapshot{LastContainedOffset: -1}
		for _, e := range entries {
			r, _, err := e.Decode()
			if err != nil {
				return nil, fmt.Errorf("%s: record %d: %w", path, e.Offset, err)
			}
			s.Records = append(s.Records, r)
		}
		if err := l.LoadSnapshot(s); err != nil {
			return nil, wrapLoadError(path, err, func(i int64) int64 {
				if i >= 0 && i < int64(len(entries)) {
					return entries[i].Offset
				}
				return i
			})
		}
		l.SetHighWatermark(0)
	case strings.HasSuffix(name, record.SnapshotSuffix):
		s, err := record.OpenSnapshot(path)
		if err != nil {
			return nil, err
		}
		defer s.Close()
		if err := l.LoadSnapshotReader(s); err != nil {
			return nil, wrapLoadError(path, err, nil)
		}
		l.SetHighWatermark(s.ID().EndOffset)
	default:
		seg, err := record.OpenSegment(path, record.Finished)
		if err != nil {
			return nil, err
		}
		defer seg.Close()
		next := seg.BaseOffset()
		for {
			b, err := seg.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
			batchPos = b.Position
			if err := l.LoadRecordBatch(b); err != nil {
				return nil, wrapLoadError(path, err, nil)
			}
			next = b.NextOffset()
		}
		if err := l.Commit(); err != nil {
			return nil, wrapLoadError(path, err, nil)
		}
		l.SetHighWatermark(next)
	}
	img := cache.Load()
	if img == nil {
		img = l.Image()
	}
	if skipped.Count > 0 {
		return img, skipped
	}
	return img, nil
}

// dumpImage prints the final image of path: as kmeta's JSON view (-image) or
// as the records the writer path produces for it (-image-records), one
// envelope line each, as Kafka's snapshot-records.jsonl.
//
// When the image loaded but records were skipped or a cut-short tail left
// out, the image is printed, each of them is printed to stderr, and the
// error says how many (nil with -skip-errors).
func dumpImage(path string, o options, w io.Writer) error {
	img, err := loadImage(path)
	var le *dirfollow.LoadError
	if err != nil && (img == nil || !errors.As(err, &le)) {
		return err
	}
	if o.imageRecords {
		err = image.WriteRecordsJSONL(w, img, image.WriteOptions{})
	} else {
		err = image.WriteJSON(w, img, image.JSONOptions{Sensitive: redact.IsSensitive, Unredacted: o.unredacted, Indent: "  "})
	}
	if err != nil || le == nil {
		return err
	}
	stderr := o.stderr
	if stderr == nil {
		stderr = io.Discard
	}
	for _, p := range le.Problems {
		fmt.Fprintln(stderr, "metadump: left out:", p)
	}
	if more := le.Count - len(le.Problems); more > 0 {
		fmt.Fprintf(stderr, "metadump: left out: %d more\n", more)
	}
	if o.skipErrors {
		return nil
	}
	return fmt.Errorf("%s: %d record(s) or bytes left out of the image (printed above; -skip-errors to exit 0)", path, le.Count)
}
