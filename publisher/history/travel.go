package history

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// travel is one pass of ImagesAt: the loader, the points, the images
// captured so far. It is also the publisher.BatchReader of the commit
// between two points: the log's batches (the last one cut at the point),
// decoded one at a time, so that no commit's batches are held at once.
type travel struct {
	path   string
	ld     *publisher.Loader
	points []Point
	i      int   // the next point to capture
	last   int64 // the last offset loaded
	out    []*image.Image
	end    logEnd

	rd      logReader
	b       *metalog.Batch // the batch being loaded; nil when the next is to be read
	name    string         // the file of b
	from    int64          // the first offset of b not loaded yet
	done    bool           // the log ended, or every point is captured
	handed  bool           // a batch was handed to the loader and not asked past
	readErr error          // the last error Next returned
}

// run loads the log commit by commit, each ending at a point, capturing
// the image there.
func (tr *travel) run(l *Log) error {
	tr.rd = logReader{l: l, next: l.start}
	defer tr.rd.close()
	for {
		tr.handed = false
		if err := tr.ld.HandleCommitReader(tr); err != nil {
			if err != tr.readErr && tr.handed {
				err = fmt.Errorf("%s: %w", tr.name, err)
			}
			return err
		}
		if tr.done {
			return nil
		}
		tr.capture()
		tr.i++
	}
}

// capture appends the loader's image at the current point, the commit up
// to it loaded.
func (tr *travel) capture() {
	tr.ld.SetHighWatermark(tr.last + 1)
	// The loader's newest image: what it publishes once caught up (in an
	// open transaction, the last published), also before a data record.
	tr.out = append(tr.out, tr.ld.Image())
}

// Next yields the next batch (or part of a batch) before the current
// point, and io.EOF at the point, at the end of the log, or once every
// point is captured.
func (tr *travel) Next() (record.Batch, error) {
	tr.handed = false
	for {
		if tr.i == len(tr.points) {
			tr.done = true
			return record.Batch{}, io.EOF
		}
		if tr.b == nil {
			if err := tr.read(); err != nil {
				return record.Batch{}, err
			}
			if tr.done {
				return record.Batch{}, io.EOF
			}
		}
		b, p := tr.b, tr.points[tr.i]
		if p.after(b) {
			return record.Batch{}, io.EOF
		}
		to := b.LastOffset()
		if o, ok := p.Offset(); ok && o < to {
			// The point cuts the batch: its records up to o, then the point.
			if o < tr.from {
				return record.Batch{}, io.EOF
			}
			to = o
		} else {
			tr.b = nil
		}
		mb, err := tr.decode(b, tr.from, to)
		if err != nil {
			tr.readErr = err
			return record.Batch{}, err
		}
		tr.last, tr.from = to, to+1
		if mb.Len() > 0 {
			tr.handed = true
			return mb, nil
		}
	}
}

// read reads the next batch into tr.b, checking the points against the
// first; at the end of the log it sets done.
func (tr *travel) read() error {
	name, b, err := tr.rd.read()
	if err == io.EOF {
		tr.done = true
		return nil
	}
	if err == nil && !tr.end.any {
		for _, p := range tr.points {
			if err = tr.end.before(tr.path, p, b); err != nil {
				break
			}
		}
	}
	if err != nil {
		tr.readErr = err
		return err
	}
	tr.end.seen(b.LastOffset(), b.AppendTime())
	tr.b, tr.name, tr.from = b, name, b.BaseOffset
	return nil
}

// decode decodes the records of b from offset from to offset to: the
// whole batch through publisher.DecodeBatch, a part record by record.
func (tr *travel) decode(b *metalog.Batch, from, to int64) (record.Batch, error) {
	if from == b.BaseOffset && to == b.LastOffset() {
		mb, err := publisher.DecodeBatch(b)
		if err != nil {
			return mb, fmt.Errorf("%s: %w", tr.name, err)
		}
		return mb, nil
	}
	mb := record.Batch{BaseOffset: from, LeaderEpoch: b.PartitionLeaderEpoch, AppendTime: b.AppendTime()}
	n := 0
	for _, e := range b.Entries {
		if e.Offset >= from && e.Offset <= to {
			n++
		}
	}
	if b.IsControl() {
		mb.Control = make([]record.ControlRecord, 0, n)
	} else {
		mb.Records = make([]record.VersionedRecord, 0, n)
	}
	for _, e := range b.Entries {
		if e.Offset < from || e.Offset > to {
			continue
		}
		if b.IsControl() {
			c, err := e.DecodeControl()
			if err != nil {
				return mb, fmt.Errorf("%s: control record at offset %d: %w", tr.name, e.Offset, err)
			}
			mb.Control = append(mb.Control, c)
			continue
		}
		r, v, err := e.Decode()
		if err != nil {
			return mb, fmt.Errorf("%s: record at offset %d: %w", tr.name, e.Offset, err)
		}
		mb.Records = append(mb.Records, record.VersionedRecord{Record: r, Version: v})
	}
	return mb, nil
}

// logReader reads a Log's batches at or after next, in order, segment by
// segment (Log.eachBatch's reader).
type logReader struct {
	l    *Log
	i    int // the next segment to open
	seg  *metalog.SegmentReader
	path string
	next int64 // the offset the log continues at
}

// read returns the next batch and the base name of its file, io.EOF after
// the last. A batch that does not continue the log is an error.
func (r *logReader) read() (string, *metalog.Batch, error) {
	for {
		if r.seg == nil {
			if r.i == len(r.l.segments) {
				return "", nil, io.EOF
			}
			r.path = r.l.segments[r.i]
			r.i++
			seg, err := metalog.OpenSegment(metalog.OS{}, r.path, metalog.Finished)
			if err != nil {
				return "", nil, err
			}
			r.seg = seg
		}
		b, err := r.seg.Next()
		if errors.Is(err, io.EOF) {
			r.close()
			continue
		}
		if err != nil {
			return "", nil, err
		}
		if b.LastOffset() < r.next {
			continue // before the snapshot's end
		}
		if b.BaseOffset != r.next {
			return "", nil, fmt.Errorf("%s: batch at offset %d, but the log continues at offset %d", r.path, b.BaseOffset, r.next)
		}
		r.next = b.NextOffset()
		return filepath.Base(r.path), b, nil
	}
}

// close closes the segment being read.
func (r *logReader) close() {
	if r.seg != nil {
		r.seg.Close()
		r.seg = nil
	}
}
