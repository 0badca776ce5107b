package publisher

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/kmeta-go/kmeta/record"
)

// Errors the loader returns, for errors.Is.
var (
	// ErrHalted is wrapped by the error every input method returns after
	// a replay error in Halt mode, until a snapshot is loaded.
	ErrHalted = errors.New("publisher: loader halted by a replay error; load a snapshot to resume")
	// ErrOffset is wrapped by the error for a batch that does not continue
	// the log: it repeats offsets already loaded or leaves a gap.
	ErrOffset = errors.New("publisher: batch does not continue the log")
	// ErrClosed is returned after Close.
	ErrClosed = errors.New("publisher: loader closed")
	// ErrDuplicateName is returned by Install for a name already installed
	// (MetadataLoader.installPublishers refuses it too).
	ErrDuplicateName = errors.New("publisher: a publisher with this name is already installed")
	// ErrUnknownPublisher is returned by Remove for a name not installed.
	ErrUnknownPublisher = errors.New("publisher: no publisher with this name")
)

// FaultKind says what went wrong.
type FaultKind int8

const (
	// FaultReplay: a record the image rejects (delta.Replay returned a
	// *delta.RecordError), or a transaction marker out of place. Err is a
	// *ReplayError. Kafka: "Error loading metadata log record from offset".
	FaultReplay FaultKind = iota + 1
	// FaultApply: delta.Apply failed; the last good image is kept.
	FaultApply
	// FaultPublisher: a publisher's OnUpdate returned an error or panicked.
	// Kafka: "Unhandled error publishing the new metadata image".
	FaultPublisher
	// FaultPublisherInit: a newly installed publisher failed on its first
	// update, the full image. As in Kafka's initializeNewPublishers it is
	// not kept (kmeta also closes it).
	FaultPublisherInit
	// FaultClose: a publisher's Close returned an error or panicked.
	FaultClose
	// FaultControl: a control record that could not be decoded; the batch
	// still advances the offsets.
	FaultControl
	// FaultRead: the embedder reading the log could not read it (a damaged
	// batch, a record that does not decode, a file gone), reported with
	// ReportReadError. Err names the file, byte position and offset (a
	// *record.CorruptionError for damaged bytes). The loader itself is
	// unchanged by it.
	FaultRead
)

var faultNames = [...]string{"", "replay", "apply", "publisher", "publisher-init", "close", "control", "read"}

// String names the kind.
func (k FaultKind) String() string {
	if int(k) < len(faultNames) && k > 0 {
		return faultNames[k]
	}
	return fmt.Sprintf("FaultKind(%d)", int8(k))
}

// Fault is what the loader reports to its fault handler (Kafka's
// FaultHandler.handleFault). It is also an error.
type Fault struct {
	Kind FaultKind
	// Publisher names the publisher for publisher faults.
	Publisher string
	// Offset is the record's offset for replay faults, the new image's
	// offset for apply and publisher faults.
	Offset int64
	// Err is the cause: a *ReplayError for replay faults, a *PanicError for
	// a publisher that panicked.
	Err error
}

func (f *Fault) Error() string {
	switch f.Kind {
	case FaultPublisher, FaultPublisherInit:
		return fmt.Sprintf("publishing the metadata image ending at offset %d with publisher %q: %v", f.Offset, f.Publisher, f.Err)
	case FaultClose:
		return fmt.Sprintf("closing publisher %q: %v", f.Publisher, f.Err)
	case FaultApply:
		return fmt.Sprintf("building the metadata image ending at offset %d: %v", f.Offset, f.Err)
	case FaultRead:
		return fmt.Sprintf("reading the metadata log at offset %d: %v", f.Offset, f.Err)
	}
	return fmt.Sprintf("loading metadata at offset %d: %v", f.Offset, f.Err)
}

// Unwrap returns Err.
func (f *Fault) Unwrap() error { return f.Err }

// ReplayError is a record the loader could not replay: the delta rejected it
// (Err wraps the *delta.RecordError and delta.ErrRejected) or it is a
// transaction marker out of place.
type ReplayError struct {
	// Offset is the record's log offset (for a snapshot, the snapshot's
	// last contained offset).
	Offset int64
	Record record.Record
	Err    error
}

func (e *ReplayError) Error() string {
	return fmt.Sprintf("metadata log record at offset %d (%s): %v", e.Offset, e.Record.Type(), e.Err)
}

// Unwrap returns Err.
func (e *ReplayError) Unwrap() error { return e.Err }

// PanicError is a panic recovered from a publisher.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

func recoverPanic(err *error) {
	if v := recover(); v != nil {
		*err = &PanicError{Value: v, Stack: debug.Stack()}
	}
}

// Transaction marker errors (MetadataBatchLoader.replay).
var (
	errBeginInTransaction = errors.New("BeginTransactionRecord while already in a transaction")
	errEndOutside         = errors.New("EndTransactionRecord without a BeginTransactionRecord")
	errAbortOutside       = errors.New("AbortTransactionRecord without a BeginTransactionRecord")
)
