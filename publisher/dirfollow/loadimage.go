package dirfollow

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
	"github.com/kmeta-go/kmeta/record/metalog"
)

// LoadImage reads dir, a __cluster_metadata-0 directory or the log directory
// that holds one, and returns the image a broker's loader publishes for it
// at start-up, in one call: a publisher.Loader fed by Load (the latest
// snapshot, then the log after it, metadata transactions respected), read
// back from a publisher.Cache. It is Load for callers that want the image
// and not the loader. When the directory loaded but something was left out
// (records the loader skipped, a batch cut short at the end) it returns the
// image together with the *LoadError that lists them. A directory with no
// record at all gives the empty image.
func LoadImage(dir string) (*image.Image, error) {
	if st, err := os.Stat(filepath.Join(dir, metalog.MetadataPartitionDir)); err == nil && st.IsDir() {
		dir = filepath.Join(dir, metalog.MetadataPartitionDir)
	}
	l := publisher.NewLoader(publisher.Config{})
	defer l.Close()
	cache := publisher.NewCache("dirfollow.LoadImage")
	if err := l.Install(cache); err != nil {
		return nil, err
	}
	err := Load(l, dir)
	var le *LoadError
	if err != nil && !errors.As(err, &le) {
		return nil, err
	}
	img := cache.Load()
	if img == nil {
		// Nothing published: the directory holds no record (a loader
		// publishes only once it has seen one, as MetadataLoader does).
		img = l.Image()
	}
	return img, err
}

// LoadPath builds, in one call, the image of whatever path names the way Kafka's
// MetadataLoader builds it, through kmeta's loader: a directory as a broker
// loads it at start-up (LoadImage), a snapshot as MetadataLoader.loadSnapshot
// does, a log segment as the commits of MetadataLoader.handleCommit with
// every batch committed (transactions respected), and a bootstrap.checkpoint
// as its records loaded like a snapshot (BootstrapDirectory.read).
//
// As with LoadImage, records the loader skipped (Kafka's broker skips a
// record its replay rejects) are returned with the image in a *LoadError,
// each a *RecordError naming the file and the batch's byte position. An
// error that stops the load (a record only a newer Kafka writes halts the
// loader in every mode) is a *RecordError naming the file too, around the
// loader's error: a *publisher.ReplayError names the record's log offset, or
// for a snapshot or bootstrap.checkpoint its place in the file.
func LoadPath(path string) (*image.Image, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return LoadImage(path)
	}
	l := publisher.NewLoader(publisher.Config{FaultHandler: func(*publisher.Loader, *publisher.Fault) {}})
	defer l.Close()
	skipped := &LoadError{Dir: path}
	batchPos := int64(-1)
	stop := l.WatchFaults(func(f *publisher.Fault) {
		if f.Kind != publisher.FaultReplay && f.Kind != publisher.FaultApply && f.Kind != publisher.FaultControl {
			return
		}
		skipped.Count++
		if len(skipped.Problems) < 100 {
			skipped.Problems = append(skipped.Problems, &RecordError{File: path, Position: batchPos, Offset: f.Offset, Err: f})
		}
	})
	defer stop()
	cache := publisher.NewCache("dirfollow.LoadPath")
	if err := l.Install(cache); err != nil {
		return nil, err
	}
	switch name := filepath.Base(path); {
	case name == metalog.BootstrapFileName:
		err = loadBootstrapFile(l, path)
	case strings.HasSuffix(name, metalog.SnapshotSuffix):
		err = loadSnapshotFile(l, path)
	default:
		err = loadSegmentFile(l, path, &batchPos)
	}
	if err != nil {
		return nil, err
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

// loadBootstrapFile loads a bootstrap.checkpoint's records as a snapshot
// (BootstrapDirectory.read).
func loadBootstrapFile(l *publisher.Loader, path string) error {
	entries, err := metalog.ReadBootstrap(metalog.OS{}, path)
	if err != nil {
		return err
	}
	s := publisher.Snapshot{LastContainedOffset: -1}
	for _, e := range entries {
		r, _, err := e.Decode()
		if err != nil {
			return fmt.Errorf("%s: record %d: %w", path, e.Offset, err)
		}
		s.Records = append(s.Records, r)
	}
	if err := l.LoadSnapshot(s.Reader()); err != nil {
		// The loader's *publisher.ReplayError names the record by its
		// index among the file's records.
		return &RecordError{File: path, Position: -1, Offset: -1, Err: err}
	}
	l.SetHighWatermark(0)
	return nil
}

// loadSnapshotFile loads a snapshot file as MetadataLoader.loadSnapshot does.
func loadSnapshotFile(l *publisher.Loader, path string) error {
	s, err := metalog.OpenSnapshot(metalog.OS{}, path)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := l.LoadSnapshot(s); err != nil {
		if ce := (*metalog.CorruptionError)(nil); errors.As(err, &ce) {
			return err // it names the file
		}
		return &RecordError{File: path, Position: -1, Offset: s.LastContainedLogOffset(), Err: err}
	}
	l.SetHighWatermark(s.ID().EndOffset)
	return nil
}

// loadSegmentFile loads a log segment as one commit of
// MetadataLoader.handleCommit, streamed batch by batch; *batchPos follows
// the byte position of the batch being loaded, for the faults it raises.
func loadSegmentFile(l *publisher.Loader, path string, batchPos *int64) error {
	seg, err := metalog.OpenSegment(metalog.OS{}, path, metalog.Finished)
	if err != nil {
		return err
	}
	defer seg.Close()
	r := &segmentCommit{seg: seg, path: path, pos: batchPos, next: seg.BaseOffset()}
	if err := l.HandleCommitReader(r); err != nil {
		if r.cur != nil && err != r.err {
			err = &RecordError{File: path, Position: r.cur.Position, Offset: r.cur.BaseOffset, Err: err}
		}
		return err
	}
	l.SetHighWatermark(r.next)
	return nil
}

// segmentCommit is loadSegmentFile's publisher.BatchReader: a segment's
// batches, decoded.
type segmentCommit struct {
	seg  *metalog.SegmentReader
	path string
	pos  *int64
	next int64          // the offset after the last batch loaded
	cur  *metalog.Batch // the batch handed over last, until it loaded
	err  error          // the error Next returned last
}

// Next counts the batch handed over last as loaded and reads the next.
func (r *segmentCommit) Next() (record.Batch, error) {
	if r.cur != nil {
		r.next, r.cur = r.cur.NextOffset(), nil
	}
	b, err := r.seg.Next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return record.Batch{}, io.EOF
		}
		r.err = err
		return record.Batch{}, err
	}
	*r.pos, r.cur = b.Position, b
	mb, err := publisher.DecodeBatch(b)
	if err != nil {
		r.err = &RecordError{File: r.path, Position: b.Position, Offset: b.BaseOffset, Err: err}
		return record.Batch{}, r.err
	}
	return mb, nil
}
