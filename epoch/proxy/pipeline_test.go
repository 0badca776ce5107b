package proxy

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TestFrameReaderPipelined reads frames sent back to back in one write, a
// large one first so that the reused buffer is larger than the next
// frames: a read into the spare capacity would take the start of the next
// frame (pipelining clients such as librdkafka send several requests
// before reading an answer).
func TestFrameReaderPipelined(t *testing.T) {
	var stream bytes.Buffer
	sizes := []int{3000, 10, 25, 1, 0, 7}
	for i, n := range sizes {
		stream.Write(binary.BigEndian.AppendUint32(nil, uint32(n)))
		stream.Write(bytes.Repeat([]byte{byte(i + 1)}, n))
	}
	f := NewFrameReader(&stream)
	for i, n := range sizes {
		frame, err := f.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if !bytes.Equal(frame, bytes.Repeat([]byte{byte(i + 1)}, n)) {
			t.Fatalf("frame %d: got %d bytes %x..., want %d bytes of %d", i, len(frame), frame[:min(len(frame), 8)], n, i+1)
		}
	}
}
