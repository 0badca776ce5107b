package dirload

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

// LoadPath builds the image of whatever path names the way Kafka's
// MetadataLoader builds it, through kmeta's loader: a directory as a broker
// loads it at start-up (Load), a snapshot as MetadataLoader.loadSnapshot
// does, a log segment as the commits of MetadataLoader.handleCommit with
// every batch committed (transactions respected), and a bootstrap.checkpoint
// as its records loaded like a snapshot (BootstrapDirectory.read).
func LoadPath(path string) (*image.Image, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return Load(path)
	}
	l := publisher.NewLoader(publisher.Options{})
	defer l.Close()
	cache := publisher.NewCache("dirload")
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
			return nil, err
		}
		l.SetHighWatermark(0)
	case strings.HasSuffix(name, record.SnapshotSuffix):
		s, err := record.OpenSnapshot(path)
		if err != nil {
			return nil, err
		}
		defer s.Close()
		if err := l.LoadSnapshotReader(s); err != nil {
			return nil, err
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
				return nil, err
			}
			next = b.NextOffset()
		}
		if err := l.Commit(); err != nil {
			return nil, err
		}
		l.SetHighWatermark(next)
	}
	return cache.Load(), nil
}
