package metalog

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
)

// TestReadingStreamsInBoundedMemory: reading a 24 MiB stream of 48 KiB
// batches allocates a small, fixed amount (one reused buffer), not memory in
// proportion to the stream: memory is bounded by the largest batch.
func TestReadingStreamsInBoundedMemory(t *testing.T) {
	const batches, perBatch = 512, 48
	value := bytes.Repeat([]byte{0xab}, 1000)
	var log []byte
	bb := NewBatchBuilder(0, 1, 1700000000000)
	offset := int64(0)
	for i := 0; i < batches; i++ {
		bb.Reset(offset, 1, 1700000000000, false)
		for j := 0; j < perBatch; j++ {
			if err := bb.Append(value); err != nil {
				t.Fatal(err)
			}
		}
		b, err := bb.Build()
		if err != nil {
			t.Fatal(err)
		}
		log = append(log, b...)
		offset += perBatch
	}
	largest := len(log) / batches

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := NewBatchReader(bytes.NewReader(log), "stream", Finished)
	n := 0
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n += len(b.Entries)
	}
	runtime.ReadMemStats(&after)
	if n != batches*perBatch {
		t.Fatalf("read %d records, want %d", n, batches*perBatch)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("stream %d bytes, largest batch %d bytes, allocated %d bytes", len(log), largest, allocated)
	if allocated > uint64(8*largest) {
		t.Fatalf("reading a %d-byte stream allocated %d bytes: more than 8 times the largest batch (%d)", len(log), allocated, largest)
	}
}
