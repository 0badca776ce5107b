package publisher

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
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
	// *metalog.CorruptionError for damaged bytes). The loader itself is
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
	// Offset is the record's log offset for replay faults (for a record
	// of a snapshot, the snapshot's last contained offset), the new image's
	// offset for apply and publisher faults, the offset the reader was at
	// for read faults.
	Offset int64
	// Err is the cause: a *ReplayError for replay faults, a *PanicError for
	// a publisher that panicked.
	Err error
}

// Error says what the loader was doing and the cause, which names the
// record or image it was at.
func (f *Fault) Error() string {
	switch f.Kind {
	case FaultPublisher, FaultPublisherInit:
		return fmt.Sprintf("publishing the metadata image ending at offset %d with publisher %q: %v", f.Offset, f.Publisher, f.Err)
	case FaultClose:
		return fmt.Sprintf("closing publisher %q: %v", f.Publisher, f.Err)
	case FaultApply:
		return fmt.Sprintf("building the metadata image ending at offset %d: %v", f.Offset, f.Err)
	case FaultRead:
		return fmt.Sprintf("reading the metadata log: %v", f.Err)
	}
	return fmt.Sprintf("loading metadata: %v", f.Err)
}

// Unwrap returns Err, for errors.Is and errors.As.
func (f *Fault) Unwrap() error { return f.Err }

// ReplayError is a record the loader could not replay: the delta rejected it
// (Err is the *delta.RecordError, which wraps delta.ErrRejected) or it is a
// transaction marker out of place (MetadataBatchLoader.replay). It adds the
// loader's fact once: where the record is. A record of the log is named by
// its offset, which the loader gives to delta.ReplayAt, so the
// *delta.RecordError says it (with the record's type); for a marker, which
// the delta never sees, ReplayError says both. A record of a snapshot has no
// log offset: ReplayError names the snapshot and the record's position in
// it. The file the record was read from is the caller's fact (dirfollow's
// RecordError).
type ReplayError struct {
	// Offset is the record's offset in the metadata log; -1 for a record
	// of a snapshot.
	Offset int64
	// Snapshot is the id of the snapshot the record is part of; nil for a
	// record of the log.
	Snapshot *metalog.SnapshotID
	// Batch is, for a snapshot LoadSnapshot read from a SnapshotReader
	// other than Snapshot.Reader, the base offset of the record's batch
	// inside the snapshot (a snapshot's own offsets, starting at 0 with its
	// SnapshotHeaderRecord, not log offsets); -1 otherwise.
	Batch int64
	// Index is the record's index in its snapshot batch, or in
	// Snapshot.Records for Snapshot.Reader; -1 for a record of the log.
	Index int
	// Record is the record, nil for a nil record.
	Record record.Record
	// Err is the cause.
	Err error
}

// Error names the record's place and the cause: "snapshot 1000-3: record
// 1: delta: PARTITION_RECORD {…}: unknown topic id …", or for the log just
// the *delta.RecordError ("delta: PARTITION_RECORD at offset 7 {…}: …").
func (e *ReplayError) Error() string {
	if e.Snapshot != nil {
		if e.Batch >= 0 {
			return fmt.Sprintf("snapshot %d-%d: batch at snapshot offset %d: record %d: %v", e.Snapshot.EndOffset, e.Snapshot.Epoch, e.Batch, e.Index, e.Err)
		}
		return fmt.Sprintf("snapshot %d-%d: record %d: %v", e.Snapshot.EndOffset, e.Snapshot.Epoch, e.Index, e.Err)
	}
	if de := (*delta.RecordError)(nil); errors.As(e.Err, &de) && de.Offset >= 0 {
		return e.Err.Error() // the delta named the record and its offset
	}
	typ := "record"
	if e.Record != nil {
		typ = e.Record.Type().String()
	}
	return fmt.Sprintf("%s at offset %d: %v", typ, e.Offset, e.Err)
}

// Unwrap returns Err, for errors.Is and errors.As.
func (e *ReplayError) Unwrap() error { return e.Err }

// PanicError is a panic recovered from a publisher.
type PanicError struct {
	Value any
	Stack []byte
}

// Error prints the panic's value (Stack holds where it happened).
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
