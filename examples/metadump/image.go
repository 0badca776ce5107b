package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/dirload"
	"github.com/kmeta-go/kmeta/internal/redact"
	"github.com/kmeta-go/kmeta/publisher"
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
		img, err := dirload.Load(path)
		return img, wrapLoadError(path, err, nil)
	}
	l := publisher.NewLoader(publisher.Options{})
	defer l.Close()
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
	return cache.Load(), nil
}

// dumpImage prints the final image of path: as kmeta's JSON view (-image) or
// as the records the writer path produces for it (-image-records), one
// envelope line each, as Kafka's snapshot-records.jsonl.
func dumpImage(path string, o options, w io.Writer) error {
	img, err := loadImage(path)
	if err != nil {
		return err
	}
	if o.imageRecords {
		return image.WriteRecordsJSONL(w, img, image.WriteOptions{})
	}
	return image.WriteJSON(w, img, image.JSONOptions{Sensitive: redact.IsSensitive, Unredacted: o.unredacted, Indent: "  "})
}
