package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/publisher/history"
	"github.com/kmeta-go/kmeta/record"
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
// snapshot the log is read from, then the log batches (a batch the point
// cuts is printed up to it).
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
	emit := func(b *record.Batch) error {
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
	if snap, name := l.Snapshot(); snap != nil {
		if !at.Contains(snap.LastContainedLogOffset(), snap.LastContainedLogTimestamp()) {
			return fmt.Errorf("%s: cannot go back to %s: the snapshot already holds the log up to offset %d", name, at, snap.LastContainedLogOffset())
		}
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
	last, lastTime, first := int64(-1), int64(-1), int64(-1)
	if snap, _ := l.Snapshot(); snap != nil {
		last, lastTime, first = snap.LastContainedLogOffset(), snap.LastContainedLogTimestamp(), snap.LastContainedLogTimestamp()
	}
	err = l.EachBatch(func(file string, b *record.Batch) (bool, error) {
		if first < 0 {
			first = b.AppendTime()
		}
		last, lastTime = b.LastOffset(), b.AppendTime()
		if !at.Contains(b.BaseOffset, b.AppendTime()) {
			return false, nil
		}
		if !at.Contains(b.LastOffset(), b.AppendTime()) {
			// Cut the batch after the point.
			cut := *b
			n := 0
			for n < len(cut.Entries) && at.Contains(cut.Entries[n].Offset, b.AppendTime()) {
				n++
			}
			cut.Entries = cut.Entries[:n]
			cut.LastOffsetDelta = int32(cut.Entries[n-1].Offset - b.BaseOffset)
			return false, emit(&cut)
		}
		return true, emit(b)
	})
	if err == nil {
		err = outside(path, at, first, last, lastTime)
	}
	return finish(err)
}

// outside is the *history.OutsideError of a point past the last record
// (offset last, appended at lastTime) or, for a time, before the first
// batch (appended at first); nil for a point inside the log.
func outside(path string, at history.Point, first, last, lastTime int64) error {
	t, byTime := at.Time()
	before := byTime && t.UnixMilli() < first
	if at != history.End() && (at.Contains(last+1, lastTime+1) || before) {
		return &history.OutsideError{Path: path, Point: at, LastOffset: last, FirstTime: first, LastTime: lastTime}
	}
	return nil
}
