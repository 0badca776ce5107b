package history_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/publisher/history"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// segmentsOf lists dir's segments in offset order.
func segmentsOf(t *testing.T, dir string) []string {
	t.Helper()
	segs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	require.NoError(t, err)
	return segs
}

// TestReadDamagedTailIsLoud: a batch cut short at the end of the last
// segment (LogSegment.recover would truncate there) is an error of Read,
// Check and ImageAt, after the history of everything before it, and a
// RuleUnreadable finding that fails the check; never left out in silence.
func TestReadDamagedTailIsLoud(t *testing.T) {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 4, 3)
	dir := writeSim(t, sim, deltatest.WriteDirOptions{})
	whole, err := history.Read(dir, history.Options{})
	require.NoError(t, err)
	seg := segmentsOf(t, dir)[0]
	st, err := os.Stat(seg)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(seg, st.Size()-5))

	h, err := history.Read(dir, history.Options{})
	var ce *metalog.CorruptionError
	require.ErrorAs(t, err, &ce)
	require.NotNil(t, h)
	assert.Less(t, h.Records, whole.Records)
	assert.Greater(t, h.Records, 0, "the history before the damage")
	require.NotEmpty(t, h.Findings)
	last := h.Findings[len(h.Findings)-1]
	assert.Equal(t, history.RuleUnreadable, last.Rule)
	assert.Equal(t, history.Error, last.Severity)
	assert.Contains(t, last.Message, ce.Error())
	assert.True(t, h.Failed())

	_, err = history.Check(dir, history.Options{})
	assert.ErrorAs(t, err, &ce)
	_, err = history.ImageAt(dir, history.End())
	assert.ErrorAs(t, err, &ce)
	_, err = history.ImageAt(dir, history.AtOffset(h.Last.Offset-1))
	assert.NoError(t, err, "a point before the damage")
}

// TestMidLogSegment: a segment that starts above offset 0 is, alone, a
// *StartError in every reading function (one line naming the file and
// offset); beside the segments before it, it checks clean, its findings
// from its own first offset.
func TestMidLogSegment(t *testing.T) {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 4, 3)
	for range 3 {
		require.NoError(t, sim.CrashBroker(2))
		require.NoError(t, sim.Advance(12*time.Second))
		require.NoError(t, sim.RegisterBroker(deltatest.BrokerSpec{ID: 2}))
		require.NoError(t, sim.Advance(5*time.Second))
	}
	dir := writeSim(t, sim, deltatest.WriteDirOptions{SegmentBatches: 6})
	segs := segmentsOf(t, dir)
	require.Greater(t, len(segs), 2)
	mid := segs[len(segs)/2]
	base, err := metalog.ParseSegmentName(filepath.Base(mid))
	require.NoError(t, err)
	require.Positive(t, base)

	alone := filepath.Join(t.TempDir(), filepath.Base(mid))
	data, err := os.ReadFile(mid)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(alone, data, 0o644))
	want := alone + " starts at offset " + itoa(base) + ": replay needs the snapshot or segments before it"
	var se *history.StartError
	h, err := history.Read(alone, history.Options{})
	require.ErrorAs(t, err, &se)
	assert.Nil(t, h)
	assert.Equal(t, want, err.Error())
	assert.Equal(t, base, se.Offset)
	_, err = history.Check(alone, history.Options{})
	assert.ErrorAs(t, err, &se)
	_, err = history.ImageAt(alone, history.End())
	assert.ErrorAs(t, err, &se)
	_, err = history.OpenLog(alone, nil)
	assert.ErrorAs(t, err, &se)

	h, err = history.Read(mid, history.Options{})
	require.NoError(t, err)
	assert.Empty(t, h.Findings, "beside its earlier files")
	assert.Equal(t, filepath.Base(mid), h.Files[len(h.Files)-1])
	img, err := history.ImageAt(mid, history.End())
	require.NoError(t, err)
	full, err := history.ImageAt(dir, history.AtOffset(img.Provenance().LastContainedOffset))
	require.NoError(t, err)
	assert.Equal(t, full.Provenance(), img.Provenance())
}

// TestDirectoryWithoutItsStart: a directory whose first segment starts
// above offset 0 and that holds no snapshot is a *StartError too.
func TestDirectoryWithoutItsStart(t *testing.T) {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 4, 3)
	dir := writeSim(t, sim, deltatest.WriteDirOptions{SegmentBatches: 3})
	segs := segmentsOf(t, dir)
	require.Greater(t, len(segs), 1)
	require.NoError(t, os.Remove(segs[0]))
	var se *history.StartError
	_, err := history.Read(dir, history.Options{})
	require.ErrorAs(t, err, &se)
	assert.Equal(t, segs[1], se.File)
}

// TestRejectionAtItsOwnVersion: a rejected record is printed at the
// version its file holds (Position.RecordVersion), not at the newest
// version kmeta knows.
func TestRejectionAtItsOwnVersion(t *testing.T) {
	sim, dir := healthyCluster(t)
	r := record.NewBrokerRegistrationChangeRecord()
	r.BrokerID, r.BrokerEpoch, r.Fenced = 1, 999, 1
	w, err := metalog.CreateSegment(metalog.OS{}, dir, sim.NextOffset())
	require.NoError(t, err)
	v, err := record.Append(nil, r, 0)
	require.NoError(t, err)
	_, err = w.AppendData(sim.RaftEpoch(), sim.Now().UnixMilli()+1, v)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	fs, err := history.Check(dir, history.Options{})
	require.NoError(t, err)
	require.NotEmpty(t, fs)
	f := fs[0]
	assert.Equal(t, history.RuleRejected, f.Rule)
	assert.Equal(t, int16(0), f.At.RecordVersion)
	assert.True(t, strings.HasPrefix(f.Message, `{"type":"BROKER_REGISTRATION_CHANGE_RECORD","version":0,`), f.Message)
	assert.Greater(t, r.HighestVersion(), int16(0), "the newest version differs")
}

// TestImageAtOutsideTheLog: a point past the last record or after the last
// batch, or a time before the first batch, is an *OutsideError; End() and
// the last offset are not.
func TestImageAtOutsideTheLog(t *testing.T) {
	sim, dir := healthyCluster(t)
	last := sim.NextOffset() - 1
	_, err := history.ImageAt(dir, history.AtOffset(last))
	require.NoError(t, err)
	_, err = history.ImageAt(dir, history.End())
	require.NoError(t, err)
	var oe *history.OutsideError
	_, err = history.ImageAt(dir, history.AtOffset(last+1))
	require.ErrorAs(t, err, &oe)
	assert.Contains(t, err.Error(), "past the end of the log")
	_, err = history.ImageAt(dir, history.AtTime(sim.Now().Add(time.Hour)))
	assert.ErrorAs(t, err, &oe)
	_, err = history.ImageAt(dir, history.AtTime(time.UnixMilli(0)))
	require.ErrorAs(t, err, &oe)
	assert.Contains(t, err.Error(), "before the log")
	assert.False(t, errors.Is(err, os.ErrNotExist))
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
