package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/publisher/history"
)

// -diff A B: what differs from the image of A to the image of B
// (image.Diff), one line per entity added, removed or changed, with the
// fields that changed; -json prints a JSON array instead. A and B are any
// sources metadump reads; SOURCE@POINT (a directory at an offset or an
// RFC 3339 time, e.g. dir@1234 or dir@2026-11-29T03:12:04Z) is the image at
// that point (history.ImageAt). -at POINT applies to a source without its
// own point. As diff(1), it exits 0 when the images are the same, 1 when
// they differ, 2 on trouble.

// splitSource splits "PATH@POINT" into the path and the point; a string
// naming an existing file is a path whatever it holds.
func splitSource(s string, def *history.Point) (string, *history.Point, error) {
	if _, err := os.Stat(s); err == nil {
		return s, def, nil
	}
	i := strings.LastIndexByte(s, '@')
	if i < 0 {
		return s, def, nil
	}
	p, err := history.ParsePoint(s[i+1:])
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", s, err)
	}
	return s[:i], &p, nil
}

func loadSource(s string, def *history.Point) (*image.Image, error) {
	path, at, err := splitSource(s, def)
	if err != nil {
		return nil, err
	}
	if at != nil {
		return history.ImageAt(path, *at)
	}
	return loadImage(path)
}

// runDiff prints the differences and returns the exit status.
func runDiff(a, b string, at *history.Point, o options, w io.Writer, stderr io.Writer) int {
	ia, err := loadSource(a, at)
	if err != nil {
		return fail(stderr, err, 2)
	}
	ib, err := loadSource(b, at)
	if err != nil {
		return fail(stderr, err, 2)
	}
	ds := image.Diff(ia, ib, image.DiffOptions{Sensitive: redact.IsSensitive, Unredacted: o.unredacted})
	if o.json {
		if ds == nil {
			ds = []image.Difference{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(ds); err != nil {
			fmt.Fprintln(stderr, "metadump:", err)
			return 2
		}
	} else {
		for _, d := range ds {
			fmt.Fprintln(w, d)
		}
	}
	if len(ds) > 0 {
		return 1
	}
	return 0
}
