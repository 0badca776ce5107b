// Package dirload loads a __cluster_metadata-0 directory into an image the
// way a broker does at start-up: the latest snapshot (a delta from the empty
// image, finished as a snapshot load), then the log after it, with metadata
// transactions respected (an aborted transaction's records are dropped, an
// unfinished one is not published).
//
// It is a stand-in for publisher.Loader, for the answers' tests and the
// proxy example, until the loader lands; it is nobody's public API.
package dirload

import (
	"errors"
	"fmt"
	"io"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// Load reads the directory dir (a __cluster_metadata-0 directory).
func Load(dir string) (*image.Image, error) {
	d, err := record.OpenDir(dir, record.Finished)
	if err != nil {
		return nil, err
	}
	defer d.Close()

	img := image.Empty()
	if s := d.Snapshot(); s != nil {
		dl := delta.NewSnapshot(img)
		if err := replay(s.Next, dl, nil); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name(), err)
		}
		dl.FinishSnapshot()
		img, err = dl.Apply(image.Provenance{LastContainedOffset: s.LastContainedLogOffset(),
			LastContainedEpoch: s.LastContainedLogEpoch(), LastContainedLogTimeMs: s.LastContainedLogTimestamp(), BatchAligned: true})
		if err != nil {
			return nil, err
		}
	}

	// The log: one delta, cut at each BeginTransaction so that an abort can
	// go back to the image before the transaction.
	committed := img // the image before the open transaction, if any
	dl := delta.New(img)
	inTxn := false
	prov := img.Provenance()
	var applyErr error
	err = replay(d.Next, nil, func(b *record.Batch, r record.Record) bool {
		switch r.(type) {
		case *record.BeginTransactionRecord:
			committed, applyErr = dl.Apply(prov)
			if applyErr != nil {
				return false
			}
			dl = delta.New(committed)
			inTxn = true
		case *record.EndTransactionRecord:
			inTxn = false
		case *record.AbortTransactionRecord:
			dl = delta.New(committed)
			inTxn = false
		}
		prov = image.Provenance{LastContainedOffset: b.BaseOffset + int64(b.LastOffsetDelta), LastContainedEpoch: b.PartitionLeaderEpoch,
			LastContainedLogTimeMs: b.MaxTimestamp, BatchAligned: true}
		return true
	}, &dl)
	if err == nil {
		err = applyErr
	}
	if err != nil {
		return nil, err
	}
	if inTxn {
		return committed, nil
	}
	return dl.Apply(prov)
}

// replay replays the data records of every batch next yields into *dlp (the
// delta may be replaced by seen), calling seen before each record; seen
// returning false stops.
func replay(next func() (*record.Batch, error), dl *delta.Delta, seen func(*record.Batch, record.Record) bool, dlp ...**delta.Delta) error {
	cur := func() *delta.Delta {
		if len(dlp) > 0 {
			return *dlp[0]
		}
		return dl
	}
	for {
		b, err := next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if b.IsControl() {
			continue
		}
		recs, err := b.DecodeRecords()
		if err != nil {
			return err
		}
		for _, r := range recs {
			if seen != nil && !seen(b, r.Record) {
				return nil
			}
			if err := cur().Replay(r.Record); err != nil {
				return fmt.Errorf("offset %d: %w", r.Offset, err)
			}
		}
	}
}
