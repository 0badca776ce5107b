package deltatest

import (
	"fmt"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// WriteDirOptions tune one WriteDir call: the shape of the directory it
// writes. The zero value writes one segment, and a snapshot only where the
// log does not start at offset 0.
type WriteDirOptions struct {
	// SnapshotAt, when > 0, also writes a snapshot of the image up to and
	// including the batch holding this offset (as Kafka's snapshot generator
	// would, named <end offset>-<epoch>.checkpoint).
	SnapshotAt int64
	// SegmentBatches starts a new segment every this many batches; 0 writes
	// one segment.
	SegmentBatches int
	// FS is the file system to write in; nil means metalog.OS{}, the
	// operating system's files.
	FS metalog.FS
}

// WriteDir writes the log as a __cluster_metadata-0 directory under parent
// (created if needed) in opts.FS and returns its path: log segments written with
// metalog.CreateSegment and, when asked (or when the log does not start at
// offset 0, as for a simulator made by FromImage), a snapshot written with
// metalog.CreateSnapshot. A broker, metalog.OpenDir or kafka-metadata-shell
// reads it back into Image().
func (s *Simulator) WriteDir(parent string, opts WriteDirOptions) (string, error) {
	fsys := opts.FS
	if fsys == nil {
		fsys = metalog.OS{}
	}
	dir := fsys.PathJoin(parent, metalog.MetadataPartitionDir)
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if _, err := s.catchUp(); err != nil {
		return "", err
	}
	if len(s.batches) > 0 && s.batches[0].BaseOffset > 0 && opts.SnapshotAt < s.batches[0].BaseOffset {
		if err := writeSnapshot(fsys, dir, s.startImage()); err != nil {
			return "", err
		}
	} else if len(s.batches) == 0 && s.img.Provenance().LastContainedOffset >= 0 {
		return dir, writeSnapshot(fsys, dir, s.img)
	}
	if opts.SnapshotAt > 0 {
		img, err := s.ImageAt(opts.SnapshotAt)
		if err != nil {
			return "", err
		}
		if err := writeSnapshot(fsys, dir, img); err != nil {
			return "", err
		}
	}
	var w *metalog.SegmentWriter
	n := 0
	for i := range s.batches {
		b := &s.batches[i]
		if w == nil || (opts.SegmentBatches > 0 && n == opts.SegmentBatches) {
			if w != nil {
				if err := w.Close(); err != nil {
					return "", err
				}
			}
			var err error
			if w, err = metalog.CreateSegment(fsys, dir, b.BaseOffset); err != nil {
				return "", err
			}
			n = 0
		}
		data, err := metalog.AppendDecoded(nil, b)
		if err != nil {
			w.Close()
			return "", err
		}
		if _, err := w.AppendBatch(data); err != nil {
			w.Close()
			return "", err
		}
		n++
	}
	if w != nil {
		if err := w.Close(); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// writeSnapshot writes img as a snapshot the way the controller's
// SnapshotEmitter does (image.Write at the image's own metadata.version).
func writeSnapshot(fsys metalog.FS, dir string, img *image.Image) error {
	p := img.Provenance()
	if p.LastContainedOffset < 0 {
		return fmt.Errorf("deltatest: no snapshot of an image before offset 0")
	}
	id := metalog.SnapshotID{EndOffset: p.LastContainedOffset + 1, Epoch: p.LastContainedEpoch}
	t := p.LastContainedLogTimeMs
	w, err := metalog.CreateSnapshot(fsys, dir, id, metalog.SnapshotWriterConfig{LastContainedLogTimestamp: t, Now: func() int64 { return t }})
	if err != nil {
		return err
	}
	if err := img.Write(image.WriteOptions{}, func(r record.Record, v int16) error {
		return w.AppendRecord(r, v)
	}); err != nil {
		w.Close()
		return err
	}
	_, err = w.Freeze()
	return err
}
