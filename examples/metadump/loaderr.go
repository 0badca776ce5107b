package main

import (
	"errors"
	"fmt"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record"
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

func (e *loadError) Unwrap() error { return e.err }

// wrapLoadError names path in err (dirfollow.LoadPath has already put the
// record's offset in the file into a *publisher.ReplayError).
func wrapLoadError(path string, err error) error {
	if err == nil {
		return nil
	}
	var re *publisher.ReplayError
	if !errors.As(err, &re) {
		return &loadError{path: path, offset: -1, err: err}
	}
	off := re.Offset
	why := re.Err
	var de *delta.RecordError
	if errors.As(err, &de) {
		why = de.Err
	}
	return &loadError{path: path, offset: off, typ: re.Record.Type(), why: why, err: err}
}
