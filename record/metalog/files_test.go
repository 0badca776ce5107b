package metalog

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/record"
)

func noop(t testing.TB) []byte {
	v, err := record.Append(nil, &record.NoOpRecord{}, 0)
	require.NoError(t, err)
	return v
}

// writeSegment writes a segment at base holding batches of n records each.
func writeSegment(t testing.TB, dir string, base int64, batches ...int) int64 {
	w, err := CreateSegment(OS{}, dir, base)
	require.NoError(t, err)
	for _, n := range batches {
		vs := make([][]byte, n)
		for i := range vs {
			vs[i] = noop(t)
		}
		_, err := w.AppendData(1, 1000, vs...)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return w.NextOffset()
}

func readDir(t testing.TB, dir string, mode Mode) (*DirReader, []int64, error) {
	d, err := OpenDir(OS{}, dir, mode)
	if err != nil {
		return nil, nil, err
	}
	t.Cleanup(func() { d.Close() })
	var offs []int64
	for {
		b, err := d.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return d, offs, err
		}
		offs = append(offs, b.BaseOffset)
	}
}

// TestDirChoice follows KafkaMetadataLog's start-up rules on directories
// made for each case.
func TestDirChoice(t *testing.T) {
	t.Run("segments chain", func(t *testing.T) {
		dir := t.TempDir()
		next := writeSegment(t, dir, 0, 2, 3)
		writeSegment(t, dir, next, 1)
		os.WriteFile(filepath.Join(dir, "00000000000000000000.index"), []byte("x"), 0o644)
		os.WriteFile(filepath.Join(dir, "quorum-state"), []byte("{}"), 0o644)
		d, offs, err := readDir(t, dir, Finished)
		require.NoError(t, err)
		assert.Equal(t, []int64{0, 2, 5}, offs)
		assert.Equal(t, int64(5), d.LastOffset())
	})
	t.Run("gap between segments", func(t *testing.T) {
		dir := t.TempDir()
		next := writeSegment(t, dir, 0, 2)
		writeSegment(t, dir, next+1, 1)
		_, offs, err := readDir(t, dir, Finished)
		assert.ErrorIs(t, err, record.ErrCorrupt)
		var ce *CorruptionError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, filepath.Join(dir, SegmentName(next+1)), ce.File)
		assert.Equal(t, []int64{0}, offs)
	})
	t.Run("no snapshot and first segment not at 0", func(t *testing.T) {
		dir := t.TempDir()
		writeSegment(t, dir, 10, 2)
		_, err := OpenDir(OS{}, dir, Finished)
		assert.Error(t, err)
	})
	t.Run("snapshot then a segment that began before it", func(t *testing.T) {
		dir := t.TempDir()
		writeSegment(t, dir, 0, 2, 2, 2) // offsets 0..5
		w, err := CreateSnapshot(OS{}, dir, SnapshotID{EndOffset: 4, Epoch: 1}, SnapshotWriterConfig{})
		require.NoError(t, err)
		require.NoError(t, w.Append(noop(t)))
		_, err = w.Freeze()
		require.NoError(t, err)
		// An older snapshot and debris that must be ignored.
		os.WriteFile(filepath.Join(dir, "00000000000000000002-0000000001.checkpoint"), []byte("junk"), 0o644)
		os.WriteFile(filepath.Join(dir, "00000000000000000009-0000000001.checkpoint.part"), []byte("junk"), 0o644)
		os.WriteFile(filepath.Join(dir, "00000000000000000009-0000000001.checkpoint.deleted"), []byte("junk"), 0o644)
		d, offs, err := readDir(t, dir, Finished)
		require.NoError(t, err)
		assert.Equal(t, []string{"00000000000000000004-0000000001.checkpoint", SegmentName(0)}, d.Files())
		assert.Equal(t, []int64{4}, offs)
		assert.Equal(t, int64(5), d.LastOffset())
	})
	t.Run("snapshot end inside a batch", func(t *testing.T) {
		dir := t.TempDir()
		writeSegment(t, dir, 0, 4)
		w, err := CreateSnapshot(OS{}, dir, SnapshotID{EndOffset: 2, Epoch: 1}, SnapshotWriterConfig{})
		require.NoError(t, err)
		require.NoError(t, w.Append(noop(t)))
		_, err = w.Freeze()
		require.NoError(t, err)
		_, _, err = readDir(t, dir, Finished)
		assert.ErrorIs(t, err, record.ErrCorrupt)
	})
	t.Run("snapshot after every segment", func(t *testing.T) {
		dir := t.TempDir()
		writeSegment(t, dir, 10, 1)
		w, err := CreateSnapshot(OS{}, dir, SnapshotID{EndOffset: 5, Epoch: 1}, SnapshotWriterConfig{})
		require.NoError(t, err)
		require.NoError(t, w.Append(noop(t)))
		_, err = w.Freeze()
		require.NoError(t, err)
		_, err = OpenDir(OS{}, dir, Finished)
		assert.Error(t, err, "a gap between the snapshot end and the first segment")
	})
}

// TestFollowIncompleteTail appends a batch in pieces to the last segment: a
// Follow reader reports ErrIncompleteTail and then reads the batch once it is
// whole; a Finished reader calls the same tail corrupt.
func TestFollowIncompleteTail(t *testing.T) {
	dir := t.TempDir()
	next := writeSegment(t, dir, 0, 2)
	b := NewBatchBuilder(next, 1, 2000)
	require.NoError(t, b.Append(noop(t)))
	batch, err := b.Build()
	require.NoError(t, err)
	f, err := os.OpenFile(filepath.Join(dir, SegmentName(0)), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.Write(batch[:30])
	require.NoError(t, err)

	_, _, err = readDir(t, dir, Finished)
	assert.ErrorIs(t, err, record.ErrCorrupt)

	d, err := OpenDir(OS{}, dir, Follow)
	require.NoError(t, err)
	defer d.Close()
	got, err := d.Next()
	require.NoError(t, err)
	assert.Equal(t, int64(0), got.BaseOffset)
	_, err = d.Next()
	require.ErrorIs(t, err, ErrIncompleteTail)
	assert.NotErrorIs(t, err, record.ErrCorrupt)
	var ce *CorruptionError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, int64(next), ce.Offset)
	_, err = d.Next()
	require.ErrorIs(t, err, ErrIncompleteTail, "still incomplete")

	_, err = f.Write(batch[30:])
	require.NoError(t, err)
	got, err = d.Next()
	require.NoError(t, err)
	assert.Equal(t, next, got.BaseOffset)
	_, err = d.Next()
	assert.ErrorIs(t, err, io.EOF)

	// A new segment rolled at the next offset is picked up.
	writeSegment(t, dir, next+1, 1)
	got, err = d.Next()
	require.NoError(t, err)
	assert.Equal(t, next+1, got.BaseOffset)
	assert.Equal(t, []string{SegmentName(0), SegmentName(next + 1)}, d.Files())
}

func TestSnapshotWithoutFooter(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewSnapshotWriter(&buf, SnapshotID{EndOffset: 10, Epoch: 2}, SnapshotWriterConfig{Now: func() int64 { return 5 }})
	require.NoError(t, err)
	require.NoError(t, w.Append(noop(t), noop(t)))
	_, err = w.Freeze()
	require.NoError(t, err)
	full := buf.Bytes()
	// Drop the footer batch.
	var b Batch
	n1, err := ParseBatch(full, &b)
	require.NoError(t, err)
	n2, err := ParseBatch(full[n1:], &b)
	require.NoError(t, err)
	s, err := NewSnapshotReader(bytes.NewReader(full[:n1+n2]), "cut", SnapshotID{EndOffset: 10, Epoch: 2})
	require.NoError(t, err)
	for {
		_, err = s.Next()
		if err != nil {
			break
		}
	}
	assert.ErrorIs(t, err, ErrIncompleteSnapshot)
	assert.ErrorIs(t, err, record.ErrCorrupt)

	// A data batch first is not a snapshot.
	_, err = NewSnapshotReader(bytes.NewReader(full[n1:]), "headless", SnapshotID{EndOffset: 10, Epoch: 2})
	assert.ErrorIs(t, err, record.ErrCorrupt)
}

func TestBatchLimits(t *testing.T) {
	b := NewBatchBuilder(0, 1, 1)
	require.NoError(t, b.Append(noop(t)))
	batch, err := b.Build()
	require.NoError(t, err)

	t.Run("huge length", func(t *testing.T) {
		bad := bytes.Clone(batch)
		binary.BigEndian.PutUint32(bad[8:], 1<<30)
		r := NewBatchReader(bytes.NewReader(bad), "huge", Finished)
		_, err := r.Next()
		assert.ErrorIs(t, err, record.ErrCorrupt)
		assert.Less(t, cap(r.buf), 1<<20, "a damaged length does not size an allocation")
	})
	t.Run("length past the end within the limit", func(t *testing.T) {
		bad := bytes.Clone(batch)
		binary.BigEndian.PutUint32(bad[8:], 8<<20-12)
		r := NewBatchReader(bytes.NewReader(bad), "long", Finished)
		_, err := r.Next()
		assert.ErrorIs(t, err, record.ErrCorrupt)
		assert.Less(t, cap(r.buf), 64<<10, "the buffer grows with bytes read, not with the length field")
	})
	t.Run("gzip", func(t *testing.T) {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(batch[BatchHeaderSize:])
		zw.Close()
		gz := append(bytes.Clone(batch[:BatchHeaderSize]), z.Bytes()...)
		gz[22] |= CompressionGzip
		putHeader(gz, &Batch{BaseOffset: 0, PartitionLeaderEpoch: 1, Attributes: CompressionGzip, LastOffsetDelta: 0,
			BaseTimestamp: 1, MaxTimestamp: 1, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, NumRecords: 1})
		var b Batch
		_, err := ParseBatch(gz, &b)
		require.NoError(t, err)
		require.Len(t, b.Entries, 1)
		assert.Equal(t, noop(t), b.Entries[0].Value)
		assert.Equal(t, batch, AppendBatch(nil, &b), "re-encoded uncompressed")
	})
	t.Run("snappy", func(t *testing.T) {
		bad := bytes.Clone(batch)
		h := Batch{PartitionLeaderEpoch: 1, Attributes: CompressionSnappy, BaseTimestamp: 1, MaxTimestamp: 1, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, NumRecords: 1}
		putHeader(bad, &h)
		var b Batch
		_, err := ParseBatch(bad, &b)
		assert.ErrorIs(t, err, ErrUnsupportedCompression)
	})
}
