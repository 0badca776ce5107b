package metalog

import (
	"errors"
	"fmt"

	"github.com/kmeta-go/kmeta/record"
)

// Errors of the batch and file layer, for errors.Is. They come wrapped in a
// *CorruptionError that says where in which file they happened.
var (
	// ErrIncompleteTail: in Follow mode, the last segment ends inside a
	// batch (or inside a batch header). The bytes may still be being
	// appended; calling Next again later retries from the same position.
	// In Finished mode the same condition is ErrCorrupt.
	ErrIncompleteTail = errors.New("incomplete batch at the end of the log, wait for more")

	// ErrIncompleteSnapshot: a snapshot (or bootstrap.checkpoint) ends
	// without its SnapshotFooterRecord control batch, so it was not frozen
	// by Kafka's RecordsSnapshotWriter and must not be loaded. It wraps
	// ErrCorrupt.
	ErrIncompleteSnapshot = fmt.Errorf("%w: snapshot without its SnapshotFooterRecord (not frozen)", record.ErrCorrupt)

	// ErrUnsupportedCompression: a batch compressed with snappy, lz4 or
	// zstd. Kafka never writes compressed metadata batches (the KRaft
	// writers use Compression.NONE); gzip is read through compress/gzip,
	// the others are refused.
	ErrUnsupportedCompression = errors.New("unsupported compression")
)

// CorruptionError locates a failure of the batch and file layer: the file (or
// the name given to a reader), the byte position of the batch in it, and the
// offset of the batch. Offset is the offset the batch was expected to have
// when the reader knew it (every batch after the first, or the first batch of
// a segment or snapshot), else the base offset read from its header, else -1.
//
// Err says what went wrong. It wraps ErrCorrupt for damaged or invalid bytes
// (bad CRC, bad magic, impossible length, broken record, offsets not
// continuous, truncated file in Finished mode), ErrUnsupportedCompression,
// ErrIncompleteSnapshot, or is ErrIncompleteTail in Follow mode. Use
// errors.Is on the *CorruptionError itself; it unwraps to Err.
type CorruptionError struct {
	File     string
	Position int64
	Offset   int64
	Err      error
}

// Error names the file, the byte position, the offset and the cause.
func (e *CorruptionError) Error() string {
	return fmt.Sprintf("metalog: %s: batch at byte %d (offset %d): %v", e.File, e.Position, e.Offset, e.Err)
}

// Unwrap returns Err, for errors.Is and errors.As.
func (e *CorruptionError) Unwrap() error { return e.Err }
