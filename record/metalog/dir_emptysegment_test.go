package metalog

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFollowEmptySegment: in Follow mode a directory whose only segment is
// still empty (as Kafka creates 00000000000000000000.log before writing to
// it) reads as "nothing for now" (io.EOF), instead of reopening that
// segment as its own successor for ever.
func TestFollowEmptySegment(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, SegmentName(0)), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(OS{}, dir, Follow)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	done := make(chan error, 1)
	go func() { _, err := d.Next(); done <- err }()
	select {
	case err := <-done:
		if err != io.EOF {
			t.Fatalf("got %v, want io.EOF", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Next on an empty segment did not return")
	}
}
