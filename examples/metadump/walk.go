package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record"
)

// walker replays what a path names batch by batch through kmeta's loader, as
// a broker's MetadataLoader does (a directory from its latest snapshot, then
// the log after it; a segment from its first batch; a snapshot or bootstrap
// file as one starting image), and hands each batch, decoded, to its caller.
// Image returns the image at the end of the batches read so far, so callers
// can look at the cluster at any batch boundary (time travel for the shell and
// the timeline).
type walker struct {
	l     *publisher.Loader
	start *image.Image
	src   interface {
		Next() (*record.Batch, error)
		Close() error
	}
	path    string
	peeked  *record.Batch
	dirty   bool
	next    int64 // offset after the last batch read
	records []record.Record
	control []record.ControlRecord
}

// step is one batch the walker read: its header and its decoded records.
type step struct {
	Batch   *record.Batch
	Records []record.Record        // data batch
	Control []record.ControlRecord // control batch
}

func newWalker(path string) (*walker, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	w := &walker{path: path, l: publisher.NewLoader(publisher.Options{ReplayErrors: publisher.Halt}), next: -1}
	fail := func(err error) (*walker, error) {
		w.Close()
		return nil, err
	}
	if st.IsDir() {
		dir := path
		if st2, err := os.Stat(filepath.Join(path, record.MetadataPartitionDir)); err == nil && st2.IsDir() {
			dir = filepath.Join(path, record.MetadataPartitionDir)
		}
		d, err := record.OpenDir(dir, record.Finished)
		if err != nil {
			return fail(err)
		}
		w.src = d
		if s := d.Snapshot(); s != nil {
			if err := w.l.LoadSnapshotReader(s); err != nil {
				return fail(err)
			}
			w.next = s.ID().EndOffset
		}
		w.start = w.l.Image()
		return w, nil
	}
	name := filepath.Base(path)
	if strings.HasSuffix(name, ".log") {
		seg, err := record.OpenSegment(path, record.Finished)
		if err != nil {
			return fail(err)
		}
		w.src = seg
		w.start = w.l.Image()
		w.next = seg.BaseOffset()
		return w, nil
	}
	// A snapshot or bootstrap file is one image and no log.
	img, err := loadImage(path)
	if err != nil {
		return fail(err)
	}
	w.start = img
	return w, nil
}

// Start is the image before the first batch Next returns (the snapshot a
// directory starts from, or the empty image).
func (w *walker) Start() *image.Image { return w.start }

// Next reads, decodes and loads the next batch; io.EOF after the last.
func (w *walker) Next() (step, error) {
	if _, err := w.peek(); err != nil {
		return step{}, err
	}
	return w.loadPeeked()
}

func (w *walker) load(b *record.Batch) (step, error) {
	s := step{Batch: b}
	mb := publisher.Batch{BaseOffset: b.BaseOffset, Epoch: b.PartitionLeaderEpoch, AppendTime: b.AppendTime(), Size: b.Size()}
	if b.IsControl() {
		w.control = w.control[:0]
		for _, e := range b.Entries {
			c, err := e.DecodeControl()
			if err != nil {
				return step{}, fmt.Errorf("%s: control record at offset %d: %w", w.path, e.Offset, err)
			}
			w.control = append(w.control, c)
		}
		mb.Control = append([]record.ControlRecord(nil), w.control...)
		s.Control = mb.Control
	} else {
		recs, err := b.DecodeRecords()
		if err != nil {
			return step{}, fmt.Errorf("%s: batch at offset %d: %w", w.path, b.BaseOffset, err)
		}
		mb.Records = make([]record.Record, len(recs))
		for i, r := range recs {
			mb.Records[i] = r.Record
		}
		s.Records = mb.Records
	}
	if err := w.l.LoadBatch(mb); err != nil {
		return step{}, fmt.Errorf("%s: batch at offset %d: %w", w.path, b.BaseOffset, err)
	}
	w.dirty = true
	w.next = b.NextOffset()
	return s, nil
}

// Image commits what was read and returns the image at that point.
func (w *walker) Image() (*image.Image, error) {
	if w.src == nil {
		return w.start, nil
	}
	if w.dirty {
		if err := w.l.Commit(); err != nil {
			return nil, err
		}
		w.dirty = false
	}
	return w.l.Image(), nil
}

func (w *walker) Close() error {
	var err error
	if w.src != nil {
		err = w.src.Close()
	}
	w.l.Close()
	return err
}

// imageAt returns the image of path at the end of the batch that holds
// offset (offset < 0: no limit), or of the last batch appended at or before
// atMs when atMs >= 0: images are batch-aligned, as MetadataLoader publishes
// them after each commit.
func imageAt(path string, offset, atMs int64) (*image.Image, error) {
	w, err := newWalker(path)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if offset >= 0 && offset < w.next-1 {
		return nil, fmt.Errorf("%s: offset %d is before the first offset this source can replay to (%d)", path, offset, w.next-1)
	}
	for {
		peek, err := w.peek()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if offset >= 0 && peek.BaseOffset > offset {
			break
		}
		if atMs >= 0 && peek.AppendTime() > atMs {
			break
		}
		if _, err := w.loadPeeked(); err != nil {
			return nil, err
		}
	}
	return w.Image()
}

// peek and loadPeeked let imageAt look at a batch's header before loading it.
func (w *walker) peek() (*record.Batch, error) {
	if w.src == nil {
		return nil, io.EOF
	}
	if w.peeked == nil {
		b, err := w.src.Next()
		if err != nil {
			return nil, err
		}
		w.peeked = b
	}
	return w.peeked, nil
}

func (w *walker) loadPeeked() (step, error) {
	b := w.peeked
	w.peeked = nil
	return w.load(b)
}
