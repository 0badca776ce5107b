package main

import (
	"errors"
	"fmt"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// loadError is an error met while building the image of a file or
// directory, said the way a user needs it: the path, then, for a record
// kmeta refused to replay, its offset, its type and the reason (for a record
// of a newer Kafka, the metadata.version level met). It wraps the loader's
// error, so errors.Is(err, delta.ErrNewerVersion) and the like still hold.
type loadError struct {
	path   string
	offset int64 // -1 when the error names no record
	typ    record.Type
	why    error
	err    error
}

func (e *loadError) Error() string {
	if e.offset < 0 {
		return fmt.Sprintf("%s: %v", e.path, e.err)
	}
	return fmt.Sprintf("%s: record at offset %d (%s): %v", e.path, e.offset, e.typ, e.why)
}

// Unwrap returns the loader's error.
func (e *loadError) Unwrap() error { return e.err }

// wrapLoadError names path in err and, for a rejected record, its offset in
// the file: the log offset for a segment, the offset inside the snapshot for
// a snapshot or bootstrap.checkpoint (the loader names a snapshot's record
// by its batch and index).
func wrapLoadError(path string, err error) error {
	if err == nil {
		return nil
	}
	var re *publisher.ReplayError
	if !errors.As(err, &re) {
		return &loadError{path: path, offset: -1, err: err}
	}
	off := re.Offset
	switch {
	case re.Snapshot != nil && re.Batch >= 0:
		off = re.Batch + int64(re.Index)
	case re.Snapshot != nil:
		// A bootstrap.checkpoint, loaded as a list of its records.
		off = -1
		if es, rerr := metalog.ReadBootstrap(metalog.OS{}, path); rerr == nil && re.Index < len(es) {
			off = es[re.Index].Offset
		}
	}
	why := re.Err
	var de *delta.RecordError
	if errors.As(err, &de) {
		why = de.Err
	}
	typ := record.Type(-1)
	if re.Record != nil {
		typ = re.Record.Type()
	}
	if off < 0 {
		return &loadError{path: path, offset: -1, err: err}
	}
	return &loadError{path: path, offset: off, typ: typ, why: why, err: err}
}
