package metalog

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
)

// benchLog is the largest corpus segment: 31511 batches, 2.3 MB, written by
// Kafka 3.7.
func benchLog(b *testing.B) string {
	return sharedtest.Path(b, "corpus", "kraft", "ogs59__docker-compose-kafka4.10", "data", "kafka-2", MetadataPartitionDir, SegmentName(0))
}

// BenchmarkReadSegment reads every batch of the largest corpus segment from
// its file (checking CRCs and records, not decoding the metadata records).
func BenchmarkReadSegment(b *testing.B) {
	path := benchLog(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		s, err := OpenSegment(OS{}, path, Finished)
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := s.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		s.Close()
	}
}

// BenchmarkReadBatchesMemory is the same from memory, with a reader reused
// through Reset: the cost of the batch layer alone.
func BenchmarkReadBatchesMemory(b *testing.B) {
	data, err := os.ReadFile(benchLog(b))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var r BatchReader
	var br bytes.Reader
	for b.Loop() {
		br.Reset(data)
		r.Reset(&br, "bench", Finished)
		for {
			_, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkWriteBatches builds data batches of 100 records of 64-byte values,
// as BatchBuilder does, and writes them to io.Discard.
func BenchmarkWriteBatches(b *testing.B) {
	v := bytes.Repeat([]byte{7}, 64)
	v[0], v[1], v[2] = 1, 3, 0
	bb := NewBatchBuilder(0, 1, 1)
	size := 0
	for i := 0; i < 100; i++ {
		bb.Append(v)
	}
	out, _ := bb.Build()
	size = len(out)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	off := int64(0)
	for b.Loop() {
		bb.Reset(off, 1, 1700000000000, false)
		for i := 0; i < 100; i++ {
			if err := bb.Append(v); err != nil {
				b.Fatal(err)
			}
		}
		out, err := bb.Build()
		if err != nil {
			b.Fatal(err)
		}
		io.Discard.Write(out)
		off += 100
	}
}

// BenchmarkReencodeSegment re-encodes every batch of the largest corpus
// segment with AppendBatch (the round trip the corpus test checks).
func BenchmarkReencodeSegment(b *testing.B) {
	data, err := os.ReadFile(benchLog(b))
	if err != nil {
		b.Fatal(err)
	}
	var batches []Batch
	for p := 0; p < len(data); {
		var bt Batch
		n, err := ParseBatch(data[p:], &bt)
		if err != nil {
			b.Fatal(err)
		}
		batches = append(batches, bt)
		p += n
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var out []byte
	for b.Loop() {
		out = out[:0]
		for i := range batches {
			out = AppendBatch(out, &batches[i])
		}
	}
}
