package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/publisher/history"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// -at OFFSET|TIME: time travel (package history). With -image or
// -image-records the image is the one Kafka's loader publishes from the log
// cut just after the point (history.ImageAt); without them the records are
// printed up to the point. A directory is then read from its latest
// snapshot at or before an offset point (from its earliest start for a
// time point), then its segments.

func parseAt(s string) (*history.Point, error) {
	if s == "" {
		return nil, nil
	}
	p, err := history.ParsePoint(s)
	if err != nil {
		return nil, fmt.Errorf("-at: %w", err)
	}
	return &p, nil
}

// dumpImageAt prints the image of path at the point, as dumpImage prints
// the final one.
func dumpImageAt(path string, at history.Point, o options, w io.Writer) error {
	img, err := history.ImageAt(path, at)
	if err != nil {
		return err
	}
	return writeImage(img, o, w)
}

func writeImage(img *image.Image, o options, w io.Writer) error {
	if o.imageRecords {
		return image.WriteRecordsJSONL(w, img, image.WriteOptions{})
	}
	return image.WriteJSON(w, img, image.WriteJSONOptions{Sensitive: redact.IsSensitive, Unredacted: o.unredacted, Indent: "  "})
}

// dumpAt prints what dump prints, for the records up to the point: the
// snapshot the log is read from, then the log batches
// (history.Log.EachBatchUpTo: a batch the point cuts is printed up to it, a
// point outside the log is an error).
func dumpAt(path string, at history.Point, o options, w *bufio.Writer) error {
	l, err := history.OpenLog(path, &at)
	if err != nil {
		return err
	}
	defer l.Close()
	crit := redact.Normal(nil)
	if o.unredacted {
		crit = redact.Disabled
	}
	var sum summary
	var line []byte
	emit := func(b *metalog.Batch) error {
		switch {
		case o.summary:
			return sum.add(b)
		case o.batches:
			line = appendBatchLine(line[:0], b)
			w.Write(line)
		default:
			var err error
			line, err = appendRecordLines(line[:0], b, o.control, crit)
			w.Write(line)
			return err
		}
		return nil
	}
	finish := func(err error) error {
		if o.summary {
			sum.print(w)
		}
		return err
	}
	if snap, _ := l.Snapshot(); snap != nil && at.Contains(snap.LastContainedLogOffset(), snap.LastContainedLogTimestamp()) {
		for {
			b, err := snap.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return finish(err)
			}
			if err := emit(b); err != nil {
				return finish(err)
			}
		}
	}
	return finish(l.EachBatchUpTo(at, func(_ string, b *metalog.Batch) error { return emit(b) }))
}
