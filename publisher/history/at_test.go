package history_test

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher/history"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// refReplay replays a log the plain way, with delta alone: a snapshot as
// delta.NewSnapshot, then one delta per batch, applied at the batch's end
// unless a metadata transaction is open (its image is then the one before
// the transaction; an abort goes back to it).
type refReplay struct {
	cur, txBase *image.Image
	d           *delta.Delta
	inTx        bool
}

// boundary is the image at the end of one batch.
type boundary struct {
	last, time int64
	img        *image.Image
	inTx       bool
}

func replayRef(t *testing.T, dir string, files []string) []boundary {
	r := &refReplay{cur: image.Empty()}
	r.d = delta.New(r.cur)
	var out []boundary
	start := int64(0)
	for _, f := range files {
		p := filepath.Join(dir, f)
		if id, err := metalog.ParseSnapshotName(f); err == nil {
			s, err := metalog.OpenSnapshot(metalog.OS{}, p)
			require.NoError(t, err)
			d := delta.NewSnapshot(r.cur)
			for {
				b, err := s.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				require.NoError(t, err)
				if b.IsControl() {
					continue
				}
				recs, err := b.DecodeRecords()
				require.NoError(t, err)
				for _, rec := range recs {
					d.Replay(rec.Record)
				}
			}
			d.FinishSnapshot()
			img, err := d.Apply(image.Provenance{LastContainedOffset: id.EndOffset - 1, LastContainedEpoch: id.Epoch, LastContainedLogTimeMs: s.LastContainedLogTimestamp(), BatchAligned: true})
			require.NoError(t, err)
			s.Close()
			r.cur, r.d = img, delta.New(img)
			start = id.EndOffset
			continue
		}
		seg, err := metalog.OpenSegment(metalog.OS{}, p, metalog.Follow)
		require.NoError(t, err)
		for {
			b, err := seg.Next()
			if errors.Is(err, io.EOF) || errors.Is(err, metalog.ErrIncompleteTail) {
				break
			}
			require.NoError(t, err)
			if b.LastOffset() < start {
				continue
			}
			if !b.IsControl() {
				recs, err := b.DecodeRecords()
				require.NoError(t, err)
				for _, rec := range recs {
					switch rec.Record.(type) {
					case *record.BeginTransactionRecord:
						img, err := r.d.Apply(r.cur.Provenance())
						require.NoError(t, err)
						r.cur, r.d, r.txBase, r.inTx = img, delta.New(img), img, true
					case *record.EndTransactionRecord:
						r.inTx = false
					case *record.AbortTransactionRecord:
						if r.inTx {
							r.cur, r.d, r.inTx = r.txBase, delta.New(r.txBase), false
						}
					default:
						r.d.Replay(rec.Record) // a rejected record is skipped
					}
				}
			}
			if !r.inTx {
				img, err := r.d.Apply(image.Provenance{LastContainedOffset: b.LastOffset(), LastContainedEpoch: b.PartitionLeaderEpoch, LastContainedLogTimeMs: b.AppendTime(), BatchAligned: true})
				require.NoError(t, err)
				r.cur, r.d = img, delta.New(img)
			}
			bd := boundary{last: b.LastOffset(), time: b.AppendTime(), img: r.cur, inTx: r.inTx}
			if r.inTx {
				bd.img = r.txBase
			}
			out = append(out, bd)
		}
		seg.Close()
	}
	return out
}

func sameParts(a, b *image.Image) bool {
	return a.Features() == b.Features() && a.Cluster() == b.Cluster() && a.Topics() == b.Topics() && a.Configs() == b.Configs() &&
		a.ClientQuotas() == b.ClientQuotas() && a.NextProducerID() == b.NextProducerID() && a.ACLs() == b.ACLs() && a.Scram() == b.Scram() && a.Tokens() == b.Tokens()
}

// checkEveryBoundary compares ImagesAt at every batch boundary of dir with
// the plain replay, and AtTime points with the boundary before the first
// batch appended after them.
func checkEveryBoundary(t *testing.T, dir string) int {
	l, err := history.OpenLog(dir, nil)
	require.NoError(t, err)
	var files []string
	if _, p := l.Snapshot(); p != "" {
		files = append(files, filepath.Base(p))
	}
	for _, p := range l.Segments() {
		files = append(files, filepath.Base(p))
	}
	l.Close()
	ref := replayRef(t, dir, files)
	if len(ref) == 0 {
		return 0
	}
	full := ref
	if raceEnabled && len(ref) > 200 {
		// Every 50th boundary (the plain run checks them all).
		var s []boundary
		for i := 0; i < len(ref); i += 50 {
			s = append(s, ref[i])
		}
		ref = s
	}
	points := make([]history.Point, len(ref))
	for i, b := range ref {
		points[i] = history.AtOffset(b.last)
	}
	got, err := history.ImagesAt(dir, points...)
	require.NoError(t, err)
	require.Len(t, got, len(ref))
	diffs := 0
	for i, b := range ref {
		if !b.inTx {
			assert.Equal(t, b.last, got[i].Provenance().LastContainedOffset, "offset %d", b.last)
		}
		if i > 0 && sameParts(ref[i-1].img, b.img) && sameParts(got[i-1], got[i]) {
			continue // neither side changed: only the provenance moved
		}
		diffs++
		if d := image.Diff(b.img, got[i], image.DiffOptions{}); !assert.Empty(t, d, "image at offset %d", b.last) {
			return diffs
		}
	}
	// A sample of time points, in one pass: the image just before the
	// first batch appended after the point.
	step := max(1, len(full)/20)
	var tps []history.Point
	var want []int
	j := 0
	for i := 0; i < len(full); i += step {
		if len(want) > 0 && full[i].time < full[want[len(want)-1]].time {
			continue // keep the points in log order
		}
		for j < len(full) && full[j].time <= full[i].time {
			j++
		}
		tps = append(tps, history.AtTime(time.UnixMilli(full[i].time)))
		want = append(want, j-1)
	}
	imgs, err := history.ImagesAt(dir, tps...)
	require.NoError(t, err)
	for k, img := range imgs {
		assert.Empty(t, image.Diff(full[want[k]].img, img, image.DiffOptions{}), "image at %s", tps[k])
		assert.Equal(t, full[want[k]].last, img.Provenance().LastContainedOffset, "image at %s", tps[k])
	}
	return diffs
}

// TestCorpusImageAtEveryBatchBoundary: -at at every batch boundary of every
// corpus directory equals replaying the log to that offset.
func TestCorpusImageAtEveryBatchBoundary(t *testing.T) {
	total := 0
	for _, dir := range corpusDirs(t) {
		t.Run(corpusName(dir), func(t *testing.T) {
			skipLargeUnderRace(t, dir)
			if strings.Contains(dir, "kraft-4.3") {
				readCorpus(t, dir) // skips until 4.3 metadata loads
			}
			total += checkEveryBoundary(t, dir)
		})
	}
	assert.Positive(t, total)
}

// TestImageAtSimulatorDirectory: the same over a simulator-written
// directory with a snapshot and several segments, cut inside batches too.
func TestImageAtSimulatorDirectory(t *testing.T) {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 6, 3)
	sim.Advance(time.Second)
	sim.CrashBroker(1)
	sim.Advance(12 * time.Second)
	sim.MustCreateTopic("audit", 3, 2)
	sim.SetTopicConfig("audit", "retention.ms", "1000")
	require.NoError(t, sim.DeleteTopic("orders"))
	dir := writeSim(t, sim, deltatest.WriteDirOptions{SegmentBatches: 3, SnapshotAt: 10})
	assert.Positive(t, checkEveryBoundary(t, dir))

	// Inside a batch: the image holds the records up to the offset (the
	// topic creation's TopicRecord and first partition).
	cut := false
	for _, b := range sim.Batches() {
		if b.Len() < 3 || b.Records[0].Record.Type() != record.TypeTopicRecord {
			continue
		}
		img, err := history.ImageAt(dir, history.AtOffset(b.BaseOffset+1))
		require.NoError(t, err)
		assert.Equal(t, b.BaseOffset+1, img.Provenance().LastContainedOffset)
		name := b.Records[0].Record.(*record.TopicRecord).Name
		tp, ok := img.Topic(name)
		require.True(t, ok)
		assert.Equal(t, 1, tp.NumPartitions())
		cut = true
		break
	}
	assert.True(t, cut)

	// Before the snapshot the directory's log is still there (it starts at
	// offset 0), after the end is the final image.
	img, err := history.ImageAt(dir, history.AtOffset(0))
	require.NoError(t, err)
	assert.Equal(t, int64(0), img.Provenance().LastContainedOffset)
	img, err = history.ImageAt(dir, history.End())
	require.NoError(t, err)
	assert.Empty(t, image.Diff(sim.Image(), img, image.DiffOptions{}))
}

// TestImageAtBeforeTheFiles: a point before what a directory holds is an
// error naming it.
func TestImageAtBeforeTheFiles(t *testing.T) {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 2, 3)
	img := sim.Image()
	fsim, err := deltatest.FromImage(img, deltatest.Config{})
	require.NoError(t, err)
	fsim.MustCreateTopic("audit", 1, 1)
	dir := writeSim(t, fsim, deltatest.WriteDirOptions{})
	_, err = history.ImageAt(dir, history.AtOffset(img.Provenance().LastContainedOffset-1))
	assert.ErrorContains(t, err, "cannot go back")
	got, err := history.ImageAt(dir, history.AtOffset(img.Provenance().LastContainedOffset))
	require.NoError(t, err)
	assert.Empty(t, image.Diff(img, got, image.DiffOptions{}))
}
