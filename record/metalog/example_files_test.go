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

// Write a tiny log segment the way a KRaft leader does (a LeaderChange
// control batch, then a data batch) and read it back as a broker would.
func ExampleOpenDir() {
	dir, err := os.MkdirTemp("", "kmeta-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	part := filepath.Join(dir, metalog.MetadataPartitionDir)
	if err := os.Mkdir(part, 0o755); err != nil {
		panic(err)
	}

	seg, err := metalog.CreateSegment(metalog.OS{}, part, 0)
	if err != nil {
		panic(err)
	}
	lc, _ := (&record.LeaderChangeMessage{LeaderID: 1, Voters: []record.LeaderChangeVoter{{VoterID: 1}}}).AppendBody(nil, 0)
	if _, err := seg.AppendControl(1, 1700000000000, record.ControlLeaderChange, lc); err != nil {
		panic(err)
	}
	mv, _ := record.Append(nil, &record.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 19}, 0)
	noop, _ := record.Append(nil, &record.NoOpRecord{}, 0)
	if _, err := seg.AppendData(1, 1700000000100, mv, noop); err != nil {
		panic(err)
	}
	if err := seg.Close(); err != nil {
		panic(err)
	}

	d, err := metalog.OpenDir(metalog.OS{}, part, metalog.Finished)
	if err != nil {
		panic(err)
	}
	defer d.Close()
	fmt.Println("files:", d.Files())
	for {
		b, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			panic(err)
		}
		if b.IsControl() {
			recs, _ := b.DecodeControlRecords()
			fmt.Printf("offset %d: control %s\n", b.BaseOffset, recs[0].ControlType())
			continue
		}
		recs, err := b.DecodeRecords()
		if err != nil {
			panic(err)
		}
		for _, r := range recs {
			fmt.Printf("offset %d: %s v%d at %d\n", r.Offset, r.Record.Type(), r.Version, b.AppendTime())
		}
	}
	fmt.Println("last offset:", d.LastOffset())
	// Output:
	// files: [00000000000000000000.log]
	// offset 0: control LEADER_CHANGE
	// offset 1: FEATURE_LEVEL_RECORD v0 at 1700000000100
	// offset 2: NO_OP_RECORD v0 at 1700000000100
	// last offset: 2
}

// Write a snapshot the way Kafka's RecordsSnapshotWriter does and read its
// header back.
func ExampleCreateSnapshot() {
	dir, err := os.MkdirTemp("", "kmeta-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	id := metalog.SnapshotID{EndOffset: 3, Epoch: 1}
	w, err := metalog.CreateSnapshot(metalog.OS{}, dir, id, metalog.SnapshotWriterConfig{LastContainedLogTimestamp: 1700000000100})
	if err != nil {
		panic(err)
	}
	defer w.Close()
	if err := w.AppendRecord(&record.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 19}, 0); err != nil {
		panic(err)
	}
	if _, err := w.Freeze(); err != nil {
		panic(err)
	}

	s, err := metalog.OpenSnapshot(metalog.OS{}, filepath.Join(dir, id.FileName()))
	if err != nil {
		panic(err)
	}
	defer s.Close()
	fmt.Println(filepath.Base(s.Name()), s.LastContainedLogOffset(), s.LastContainedLogEpoch(), s.LastContainedLogTimestamp())
	for {
		b, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			panic(err)
		}
		fmt.Printf("batch at offset %d: control=%v records=%d\n", b.BaseOffset, b.IsControl(), len(b.Entries))
	}
	// Output:
	// 00000000000000000003-0000000001.checkpoint 2 1 1700000000100
	// batch at offset 0: control=true records=1
	// batch at offset 1: control=false records=1
	// batch at offset 2: control=true records=1
}

func ExampleOpenBootstrap() {
	dir, err := os.MkdirTemp("", "kmeta-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	mv, err := record.Append(nil, &record.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 29}, 0)
	if err != nil {
		panic(err)
	}
	if err := metalog.WriteBootstrap(metalog.OS{}, dir, [][]byte{mv}, func() int64 { return 1700000000000 }); err != nil {
		panic(err)
	}

	s, err := metalog.OpenBootstrap(metalog.OS{}, filepath.Join(dir, metalog.BootstrapFileName))
	if err != nil {
		panic(err)
	}
	defer s.Close()
	for {
		b, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			panic(err)
		}
		fmt.Printf("batch at offset %d: control=%v records=%d\n", b.BaseOffset, b.IsControl(), len(b.Entries))
	}
	// Output:
	// batch at offset 0: control=true records=1
	// batch at offset 1: control=false records=1
	// batch at offset 2: control=true records=1
}
