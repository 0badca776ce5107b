package prefetch

import (
	"testing"
	"unsafe"
)

// TestLinesChangesNothing: asking for a buffer's lines, for a range past
// its end, for a nil pointer and for a range that wraps around the address
// space neither faults nor changes a byte of memory.
func TestLinesChangesNothing(t *testing.T) {
	buf := make([]byte, 1000)
	for i := range buf {
		buf[i] = byte(i)
	}
	p := unsafe.Pointer(&buf[0])
	Lines(p, uintptr(len(buf)))
	Lines(p, 1<<20)
	Lines(nil, 4096)
	Lines(p, ^uintptr(0))
	Lines(p, 0)
	for i := range buf {
		if buf[i] != byte(i) {
			t.Fatalf("byte %d is %d after Lines, want %d", i, buf[i], byte(i))
		}
	}
}
