package publisher_test

import (
	"bytes"
	"fmt"
	"io"

	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// segmentCommit is a publisher.BatchReader: the batches a metalog reader
// reads from a segment's bytes, decoded one at a time, as one commit.
type segmentCommit struct{ r *metalog.BatchReader }

func (c segmentCommit) Next() (record.Batch, error) {
	b, err := c.r.Next()
	if err != nil {
		return record.Batch{}, err // io.EOF ends the commit
	}
	return publisher.DecodeBatch(b)
}

// A commit read from a file goes to the loader batch by batch: each batch
// is replayed before the next is read, and the commit is published once,
// after its last batch (Kafka's handleCommit of a BatchReader).
func ExampleLoader_HandleCommitReader() {
	var seg []byte
	for i, name := range []string{"orders", "payments"} {
		t := record.NewTopicRecord()
		t.Name, t.TopicID = name, record.UUID{byte(i + 1)}
		b := record.Batch{BaseOffset: int64(i), LeaderEpoch: 1, Records: []record.VersionedRecord{{Record: t, Version: 0}}}
		seg, _ = metalog.AppendDecoded(seg, &b)
	}

	l := publisher.NewLoader(publisher.Config{})
	defer l.Close()
	l.SetHighWatermark(2)
	if err := l.HandleCommitReader(segmentCommit{metalog.NewBatchReader(bytes.NewReader(seg), "segment", metalog.Finished)}); err != nil {
		fmt.Println(err)
	}
	st := l.Stats()
	fmt.Println("commits", st.Commits, "offset", l.Image().Provenance().LastContainedOffset, "topics", l.Image().Topics().Len())
	// Output:
	// commits 1 offset 1 topics 2
}

// One entry point for snapshots: a *metalog.SnapshotReader (a file, read
// batch by batch) or a snapshot held in memory through Snapshot.Reader.
func ExampleLoader_LoadSnapshot() {
	t := record.NewTopicRecord()
	t.Name, t.TopicID = "orders", record.UUID{1}
	s := publisher.Snapshot{LastContainedOffset: 99, LastContainedEpoch: 3, LastContainedLogTime: 1_700_000_000_000, Records: []record.Record{t}}

	l := publisher.NewLoader(publisher.Config{})
	defer l.Close()
	if err := l.LoadSnapshot(s.Reader()); err != nil {
		fmt.Println(err)
	}
	fmt.Println(l.Image().Provenance())

	// The same snapshot as batches, as a reader that is not the loader
	// sees it.
	r := s.Reader()
	b, _ := r.Next()
	_, err := r.Next()
	fmt.Println(r.ID(), len(b.Entries), "records, then", err == io.EOF)
	// Output:
	// MetadataProvenance(lastContainedOffset=99, lastContainedEpoch=3, lastContainedLogTimeMs=1700000000000, isOffsetBatchAligned=true)
	// OffsetAndEpoch(offset=100, epoch=3) 1 records, then true
}
