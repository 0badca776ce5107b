package metalog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/kmeta-go/kmeta/record"
)

// Mode says how a reader treats a batch cut short at the very end of its
// input.
type Mode int

const (
	// Finished reads a file that nobody writes any more (a copied data
	// directory, a frozen snapshot): a batch or batch header cut short at the
	// end is damage, an error wrapping ErrCorrupt.
	Finished Mode = iota
	// Follow reads a log that a Kafka node may still be appending to: a
	// batch cut short at the end of the last segment is reported as
	// ErrIncompleteTail, and a later call to Next retries from the same
	// position with whatever has been appended since.
	Follow
)

// String returns "finished" or "follow".
func (m Mode) String() string {
	switch m {
	case Finished:
		return "finished"
	case Follow:
		return "follow"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// The reader's buffer starts at initialReadBuffer and doubles up to
// minReadBuffer as batches are consumed; beyond that it grows only to hold a
// batch larger than itself.
const (
	initialReadBuffer = 4 << 10
	minReadBuffer     = 64 << 10
)

// BatchReader reads record batches one at a time from an io.Reader, checking
// each as ParseBatch does and checking that offsets continue from one batch
// to the next, as Kafka's raft RecordsIterator reads a log or a snapshot.
//
// It reuses one buffer, so its memory stays bounded by the largest batch
// (never more than twice the bytes actually read, and never more than twice
// the maximum batch size); it never reads a whole file into memory. The
// *Batch that Next returns, and the bytes its entries alias, are valid until
// the next call to Next.
//
// After an error other than ErrIncompleteTail, Next keeps returning that
// error.
type BatchReader struct {
	r        io.Reader
	name     string
	mode     Mode
	maxBatch int

	buf    []byte
	r0, w  int   // unconsumed bytes are buf[r0:w]
	pos    int64 // file position of buf[r0]
	expect int64 // offset the next batch must start at, -1 if unknown
	batch  Batch
	err    error
}

// NewBatchReader reads batches from r. name (usually the file path) appears
// in every error. Batches may start at any offset; use SetNextOffset to
// require one. The stream starts at byte position 0 unless SetPosition says
// otherwise.
func NewBatchReader(r io.Reader, name string, mode Mode) *BatchReader {
	return &BatchReader{r: r, name: name, mode: mode, maxBatch: DefaultMaxBatchSize, expect: -1}
}

// Reset makes the reader read rd from its start as a new reader would,
// keeping its buffers (and so the memory they hold) and its maximum batch
// size for reuse. A zero BatchReader made ready with Reset is valid.
func (r *BatchReader) Reset(rd io.Reader, name string, mode Mode) {
	if r.maxBatch == 0 {
		r.maxBatch = DefaultMaxBatchSize
	}
	*r = BatchReader{r: rd, name: name, mode: mode, maxBatch: r.maxBatch, buf: r.buf[:cap(r.buf)], expect: -1,
		batch: Batch{Entries: r.batch.Entries[:0], inflated: r.batch.inflated[:0]}}
}

// SetNextOffset requires the next batch to start at offset (-1: any offset).
func (r *BatchReader) SetNextOffset(offset int64) { r.expect = offset }

// SetPosition sets the byte position reported for the next batch, for a
// reader that does not start at the beginning of its file.
func (r *BatchReader) SetPosition(pos int64) { r.pos = pos }

// SetMaxBatchSize changes the largest batch accepted (DefaultMaxBatchSize,
// Kafka's 8 MiB, unless changed). A length field asking for more is damage.
func (r *BatchReader) SetMaxBatchSize(n int) {
	if n < BatchHeaderSize {
		n = BatchHeaderSize
	}
	r.maxBatch = n
}

// Name is the name given to the reader.
func (r *BatchReader) Name() string { return r.name }

// Position is the byte position of the next batch.
func (r *BatchReader) Position() int64 { return r.pos }

// NextOffset is the offset the next batch must start at, or -1 before the
// first batch when no offset was required.
func (r *BatchReader) NextOffset() int64 { return r.expect }

// Next returns the next batch, io.EOF at a clean end of the input (in Follow
// mode: nothing more for now), or an error (a *CorruptionError for anything
// about the bytes).
func (r *BatchReader) Next() (*Batch, error) {
	if r.err != nil {
		return nil, r.err
	}
	eof, err := r.fill(BatchHeaderSize)
	if err != nil {
		return nil, r.fail(err)
	}
	have := r.w - r.r0
	if have == 0 && eof {
		return nil, io.EOF
	}
	if have < BatchHeaderSize {
		// Fewer than 61 bytes left: look at what is there before calling it
		// a cut-short header, so that a bad length or magic is named.
		if have >= 17 && int8(r.buf[r.r0+16]) != 2 {
			return nil, r.fail(fmt.Errorf("%w: magic %d, only record batch v2 (magic 2) is supported", record.ErrCorrupt, int8(r.buf[r.r0+16])))
		}
		if have >= batchOverhead {
			if _, err := batchSizeOf(r.buf[r.r0:], r.maxBatch); err != nil {
				return nil, r.fail(err)
			}
		}
		return nil, r.short(fmt.Sprintf("batch header cut short: %d of %d bytes", have, BatchHeaderSize))
	}
	hdr := r.buf[r.r0:]
	if m := int8(hdr[16]); m != 2 {
		return nil, r.fail(fmt.Errorf("%w: magic %d, only record batch v2 (magic 2) is supported", record.ErrCorrupt, m))
	}
	size, err := batchSizeOf(hdr, r.maxBatch)
	if err != nil {
		return nil, r.fail(err)
	}
	if _, err := r.fill(size); err != nil {
		return nil, r.fail(err)
	}
	if have := r.w - r.r0; have < size {
		return nil, r.short(fmt.Sprintf("batch cut short: %d of %d bytes", have, size))
	}
	b := &r.batch
	if _, err := parseBatch(r.buf[r.r0:r.r0+size], b, r.maxBatch); err != nil {
		return nil, r.fail(err)
	}
	b.Position = r.pos
	if r.expect >= 0 && b.BaseOffset != r.expect {
		return nil, r.fail(fmt.Errorf("%w: batch starts at offset %d, offsets must continue at %d", record.ErrCorrupt, b.BaseOffset, r.expect))
	}
	r.r0 += size
	r.pos += int64(size)
	r.expect = b.NextOffset()
	return b, nil
}

// release drops the buffers of a reader at the end of its input (nothing
// unconsumed), so that a reader kept open holds no memory; a later Next
// allocates again.
func (r *BatchReader) release() {
	if r.w != r.r0 {
		return
	}
	r.buf, r.r0, r.w = nil, 0, 0
	r.batch = Batch{}
}

// pending returns the bytes read and not yet consumed: part of a batch
// still being appended, in Follow mode.
func (r *BatchReader) pending() []byte { return r.buf[r.r0:r.w] }

// shrink releases a buffer grown past minReadBuffer (for a batch larger
// than it) once nothing is left unconsumed: a follower idle at the end of
// the log then holds no more than minReadBuffer.
func (r *BatchReader) shrink() {
	if len(r.buf) > minReadBuffer {
		r.release()
	}
}

// fill reads until at least n unconsumed bytes are buffered or the input
// ends (eof true). The buffer grows at most to twice what was actually read,
// so a damaged length cannot make it allocate for bytes that do not exist.
func (r *BatchReader) fill(n int) (eof bool, err error) {
	if r.w-r.r0 >= n {
		return false, nil
	}
	if len(r.buf)-r.r0 < n {
		// Not enough room after the unconsumed bytes: move them to the
		// front of a buffer that doubles while it is below minReadBuffer
		// (so short inputs stay cheap and long ones are read in big reads).
		size := len(r.buf)
		switch {
		case size == 0:
			size = initialReadBuffer
		case size < minReadBuffer:
			size *= 2
		}
		if size != len(r.buf) {
			nb := make([]byte, size)
			r.w = copy(nb, r.buf[r.r0:r.w])
			r.r0, r.buf = 0, nb
		} else if r.r0 > 0 {
			r.w = copy(r.buf, r.buf[r.r0:r.w])
			r.r0 = 0
		}
	}
	empty := 0
	for r.w-r.r0 < n {
		if r.w == len(r.buf) {
			grow := 2 * len(r.buf)
			if grow > r.r0+n {
				grow = r.r0 + n
			}
			nb := make([]byte, grow)
			r.w = copy(nb, r.buf[r.r0:r.w])
			r.r0, r.buf = 0, nb
		}
		k, err := r.r.Read(r.buf[r.w:])
		r.w += k
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("read: %w", err)
		}
		if k == 0 {
			if empty++; empty > 100 {
				return false, io.ErrNoProgress
			}
		}
	}
	return false, nil
}

// offsetForError is the offset a *CorruptionError names for the batch at the
// reader's position.
func (r *BatchReader) offsetForError() int64 {
	if r.expect >= 0 {
		return r.expect
	}
	if r.w-r.r0 >= 8 {
		return int64(binary.BigEndian.Uint64(r.buf[r.r0:]))
	}
	return -1
}

func (r *BatchReader) fail(err error) error {
	r.err = &CorruptionError{File: r.name, Position: r.pos, Offset: r.offsetForError(), Err: err}
	return r.err
}

// short reports an input that ends inside a batch: damage in Finished mode,
// ErrIncompleteTail (not sticky) in Follow mode.
func (r *BatchReader) short(what string) error {
	if r.mode == Follow {
		return &CorruptionError{File: r.name, Position: r.pos, Offset: r.offsetForError(), Err: fmt.Errorf("%w: %s", ErrIncompleteTail, what)}
	}
	return r.fail(fmt.Errorf("%w: %s at the end of a finished file", record.ErrCorrupt, what))
}
