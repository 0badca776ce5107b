package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/publisher/history"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// loadImage builds the image of whatever path names the way Kafka's code
// builds it, through kmeta's loader: a directory as a broker loads it at
// start-up, a snapshot as MetadataLoader.loadSnapshot does, a log segment as
// the commits of MetadataLoader.handleCommit (transactions respected), and a
// bootstrap.checkpoint as its records replayed like a snapshot
// (BootstrapDirectory.read).
//
// A segment that starts above offset 0 is replayed from the files before it
// in its directory (history.ImageAt), a *history.StartError without them.
func loadImage(path string) (*image.Image, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if base, err := metalog.ParseSegmentName(filepath.Base(path)); err == nil && base > 0 && !st.IsDir() {
		return history.ImageAt(path, history.End())
	}
	img, err := dirfollow.LoadPath(path)
	var le *dirfollow.LoadError
	if err == nil || (!st.IsDir() && errors.As(err, &le)) {
		return img, err // a file's skipped records name the file already
	}
	var re *publisher.ReplayError
	if !errors.As(err, &re) && strings.Contains(err.Error(), path) {
		return img, err // the reader named the file: said once
	}
	// Name the path and, for a rejected record, its offset and type.
	return img, wrapLoadError(path, err)
}

// dumpImage prints the final image of path: as kmeta's JSON view (-image) or
// as the records the writer path produces for it (-image-records), one
// envelope line each, as Kafka's snapshot-records.jsonl.
//
// When the image loaded but records were skipped or a cut-short tail left
// out, the image is printed, each of them is printed to stderr, and the
// error says how many (nil with -skip-errors).
func dumpImage(path string, o options, w io.Writer) error {
	img, err := loadImage(path)
	var le *dirfollow.LoadError
	if err != nil && (img == nil || !errors.As(err, &le)) {
		return err
	}
	if o.imageRecords {
		err = image.WriteRecordsJSONL(w, img, image.WriteOptions{})
	} else {
		err = image.WriteJSON(w, img, image.WriteJSONOptions{Sensitive: redact.IsSensitive, Unredacted: o.unredacted, Indent: "  "})
	}
	if err != nil || le == nil {
		return err
	}
	stderr := o.stderr
	if stderr == nil {
		stderr = io.Discard
	}
	for _, p := range le.Problems {
		fmt.Fprintln(stderr, "metadump: left out:", p)
	}
	if more := le.Count - len(le.Problems); more > 0 {
		fmt.Fprintf(stderr, "metadump: left out: %d more\n", more)
	}
	if o.skipErrors {
		return nil
	}
	return fmt.Errorf("%s: %d record(s) or bytes left out of the image (printed above; -skip-errors to exit 0)", path, le.Count)
}
