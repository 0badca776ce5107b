package metalog_test

import (
	"errors"
	"fmt"
	"io"

	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// noOpBatch is one batch holding one NoOpRecord at offset.
func noOpBatch(offset int64) []byte {
	b := metalog.NewBatchBuilder(offset, 1, 1000+offset)
	if err := b.AppendRecord(record.NewNoOpRecord(), 0); err != nil {
		panic(err)
	}
	out, err := b.Build()
	if err != nil {
		panic(err)
	}
	return out
}

// A directory read from memory: a MemFS holds the segment, OpenDir reads it
// as it reads a directory on disk through OS{}, and in Follow mode it sees
// bytes appended to the open segment, as it does a file Kafka appends to.
func ExampleMemFS() {
	var mem metalog.MemFS
	dir := "__cluster_metadata-0"
	seg := dir + "/" + metalog.SegmentName(0)
	mem.WriteFile(seg, noOpBatch(0))

	d, err := metalog.OpenDir(&mem, dir, metalog.Follow)
	if err != nil {
		panic(err)
	}
	defer d.Close()
	next := func() {
		for {
			b, err := d.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Println("batch at offset", b.BaseOffset)
		}
	}
	next()
	mem.Append(seg, noOpBatch(1)) // the leader appends
	next()
	fmt.Println("files:", d.Files())

	mem.Truncate(seg, 10) // the raft client truncates a diverging suffix
	err = d.Verify()
	fmt.Println("changed:", errors.Is(err, metalog.ErrLogChanged))
	// Output:
	// batch at offset 0
	// batch at offset 1
	// files: [00000000000000000000.log]
	// changed: true
}

// One segment read from a MemFS.
func ExampleOpenSegment() {
	var mem metalog.MemFS
	mem.WriteFile(metalog.SegmentName(5), append(noOpBatch(5), noOpBatch(6)...))
	s, err := metalog.OpenSegment(&mem, metalog.SegmentName(5), metalog.Finished)
	if err != nil {
		panic(err)
	}
	defer s.Close()
	for {
		b, err := s.Next()
		if err != nil {
			fmt.Println(err == io.EOF)
			break
		}
		fmt.Println("batch at offset", b.BaseOffset, "in", s.Name())
	}
	// Output:
	// batch at offset 5 in 00000000000000000005.log
	// batch at offset 6 in 00000000000000000005.log
	// true
}

// A snapshot written to memory and read back from a MemFS.
func ExampleOpenSnapshot() {
	var buf writerBuffer
	id := metalog.SnapshotID{EndOffset: 10, Epoch: 2}
	w, err := metalog.NewSnapshotWriter(&buf, id, metalog.SnapshotWriterConfig{LastContainedLogTimestamp: 1234})
	if err != nil {
		panic(err)
	}
	if err := w.AppendRecord(record.NewNoOpRecord(), 0); err != nil {
		panic(err)
	}
	if _, err := w.Freeze(); err != nil {
		panic(err)
	}
	var mem metalog.MemFS
	mem.WriteFile(id.FileName(), buf.b)

	s, err := metalog.OpenSnapshot(&mem, id.FileName())
	if err != nil {
		panic(err)
	}
	defer s.Close()
	fmt.Println(s.Name(), "up to offset", s.LastContainedLogOffset(), "at", s.LastContainedLogTimestamp())
	// Output:
	// 00000000000000000010-0000000002.checkpoint up to offset 9 at 1234
}

type writerBuffer struct{ b []byte }

func (w *writerBuffer) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
