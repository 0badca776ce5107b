package metalog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kmeta-go/kmeta/record"
)

// SegmentSuffix ends the name of a log segment file.
const SegmentSuffix = ".log"

// SegmentName returns the file name of the log segment whose first offset is
// baseOffset: 20 zero-padded digits and ".log" (Kafka's LogFileUtils).
func SegmentName(baseOffset int64) string {
	return fmt.Sprintf("%020d%s", baseOffset, SegmentSuffix)
}

// ParseSegmentName returns the base offset in a segment file name
// ("00000000000000000047.log"), or an error when name is not one.
func ParseSegmentName(name string) (int64, error) {
	digits, ok := strings.CutSuffix(name, SegmentSuffix)
	if !ok || len(digits) != 20 {
		return 0, fmt.Errorf("metalog: %q is not a log segment name (<20-digit base offset>.log)", name)
	}
	return parseDigits(digits, name)
}

func parseDigits(digits, name string) (int64, error) {
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("metalog: %q: %q is not a zero-padded number", name, digits)
		}
	}
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("metalog: %q: %v", name, err)
	}
	return v, nil
}

// SegmentReader reads the batches of one log segment file
// (<base offset>.log), as Kafka's raft RecordsIterator reads a FileRecords: a
// BatchReader over the open file whose first batch must start at the base
// offset in the file name (the offset at which Kafka rolled the segment) and
// whose offsets then continue batch after batch.
type SegmentReader struct {
	*BatchReader
	f          File
	baseOffset int64
}

// OpenSegment opens the log segment name of fsys (OS{} for the operating
// system's files); errors name it as name. In Follow mode the file must show
// bytes appended after it was opened, as an *os.File and a MemFS file do.
// Close it when done.
func OpenSegment(fsys FS, name string, mode Mode) (*SegmentReader, error) {
	base, err := ParseSegmentName(fsys.PathBase(name))
	if err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	br := NewBatchReader(f, name, mode)
	br.SetNextOffset(base)
	return &SegmentReader{BatchReader: br, f: f, baseOffset: base}, nil
}

// BaseOffset is the base offset in the segment's file name.
func (s *SegmentReader) BaseOffset() int64 { return s.baseOffset }

// Close closes the file.
func (s *SegmentReader) Close() error { return s.f.Close() }

// SegmentWriter appends batches to a log segment file, for tests, examples
// and tools. It writes what Kafka's KRaft leader writes (BatchBuilder data
// batches, control batches for leader changes) but none of the .index,
// .timeindex or other files Kafka's UnifiedLog keeps beside a segment: Kafka
// rebuilds those when it recovers a segment.
type SegmentWriter struct {
	f      File
	path   string
	next   int64
	b      BatchBuilder
	closed bool
}

// CreateSegment creates <dir>/<baseOffset 20 digits>.log in fsys, which
// must not exist yet.
func CreateSegment(fsys FS, dir string, baseOffset int64) (*SegmentWriter, error) {
	if baseOffset < 0 {
		return nil, fmt.Errorf("metalog: negative segment base offset %d", baseOffset)
	}
	p := fsys.PathJoin(dir, SegmentName(baseOffset))
	f, err := fsys.Create(p)
	if err != nil {
		return nil, err
	}
	return &SegmentWriter{f: f, path: p, next: baseOffset}, nil
}

// Path is the segment file's path.
func (w *SegmentWriter) Path() string { return w.path }

// NextOffset is the offset of the next record appended.
func (w *SegmentWriter) NextOffset() int64 { return w.next }

// AppendData writes one data batch holding values (framed metadata records,
// e.g. from Append) written by the leader of epoch at appendTime
// (milliseconds), and returns the offset of its last record.
func (w *SegmentWriter) AppendData(epoch int32, appendTime int64, values ...[]byte) (int64, error) {
	w.b.Reset(w.next, epoch, appendTime, false)
	for _, v := range values {
		if err := w.b.Append(v); err != nil {
			return 0, err
		}
	}
	return w.flush()
}

// AppendControl writes one control batch holding one control record of type
// t with its value (e.g. a LeaderChangeMessage at version 0), as
// MemoryRecords.withLeaderChangeMessage does, and returns its offset.
func (w *SegmentWriter) AppendControl(epoch int32, appendTime int64, t record.ControlType, value []byte) (int64, error) {
	w.b.Reset(w.next, epoch, appendTime, true)
	if err := w.b.AppendControl(t, value); err != nil {
		return 0, err
	}
	return w.flush()
}

// AppendBatch writes an already encoded batch (from BatchBuilder.Build or
// AppendBatch). Its offsets must continue the segment's.
func (w *SegmentWriter) AppendBatch(batch []byte) (int64, error) {
	var b Batch
	if _, err := ParseBatch(batch, &b); err != nil {
		return 0, err
	}
	if b.BaseOffset != w.next {
		return 0, fmt.Errorf("metalog: batch at offset %d, the segment continues at %d", b.BaseOffset, w.next)
	}
	if _, err := w.f.Write(batch); err != nil {
		return 0, err
	}
	w.next = b.NextOffset()
	return b.LastOffset(), nil
}

func (w *SegmentWriter) flush() (int64, error) {
	if w.closed {
		return 0, fmt.Errorf("metalog: segment %s is closed", w.path)
	}
	data, err := w.b.Build()
	if err != nil {
		return 0, err
	}
	if _, err := w.f.Write(data); err != nil {
		return 0, err
	}
	w.next = w.b.NextOffset()
	return w.next - 1, nil
}

// Close syncs and closes the file.
func (w *SegmentWriter) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	err := w.f.Sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}
