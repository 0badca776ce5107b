package metalog_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// A follower reads a live directory in Follow mode. When Next has nothing
// new, Verify tells whether the directory still holds what was read; here
// the segment is truncated below the bytes read, as the raft client
// truncates a diverging suffix, and Verify reports ErrLogChanged.
func ExampleDirReader_Verify() {
	dir, err := os.MkdirTemp("", "kmeta-follow")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	seg, err := metalog.CreateSegment(metalog.OS{}, dir, 0)
	if err != nil {
		panic(err)
	}
	nr := record.NewNoOpRecord()
	v, _ := record.Append(nil, nr, 0)
	seg.AppendData(1, 1000, v)
	seg.AppendData(1, 1001, v)
	seg.Close()

	d, err := metalog.OpenDir(metalog.OS{}, dir, metalog.Follow)
	if err != nil {
		panic(err)
	}
	defer d.Close()
	for {
		b, err := d.Next()
		if err == io.EOF {
			break
		}
		fmt.Println("batch at offset", b.BaseOffset)
	}
	fmt.Println("unchanged:", d.Verify() == nil)

	os.Truncate(filepath.Join(dir, metalog.SegmentName(0)), 10)
	err = d.Verify()
	fmt.Println("changed:", errors.Is(err, metalog.ErrLogChanged))
	// Output:
	// batch at offset 0
	// batch at offset 1
	// unchanged: true
	// changed: true
}
