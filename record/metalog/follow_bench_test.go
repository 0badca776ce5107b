package metalog

import (
	"io"
	"testing"
)

// BenchmarkDirReaderIdlePoll is one idle poll of a follower at the end of
// the log: Next finding nothing new, then Verify (a stat, an fstat and a
// 21-byte read).
func BenchmarkDirReaderIdlePoll(b *testing.B) {
	dir := b.TempDir()
	writeSegment(b, dir, 0, 100)
	d, err := OpenDir(OS{}, dir, Follow)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	for {
		if _, err := d.Next(); err != nil {
			break
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := d.Next(); err != io.EOF {
			b.Fatal(err)
		}
		if err := d.Verify(); err != nil {
			b.Fatal(err)
		}
	}
}
