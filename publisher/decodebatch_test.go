package publisher

import (
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// parsed builds a batch with bb and parses it back as a reader reads it.
func parsed(t *testing.T, bb *metalog.BatchBuilder) *metalog.Batch {
	t.Helper()
	buf, err := bb.Build()
	must(t, err)
	b := new(metalog.Batch)
	if _, err := metalog.ParseBatch(buf, b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeBatchUndecodableControl: a control record that does not decode
// is left nil by DecodeBatch and reported by the loader as a FaultControl;
// its batch's offsets still advance, and the batch's other control records
// are not applied.
func TestDecodeBatchUndecodableControl(t *testing.T) {
	var fs faults
	l := NewLoader(Config{FaultHandler: fs.handler})
	defer l.Close()
	bb := metalog.NewControlBatchBuilder(0, 4, 10)
	lc := record.NewLeaderChangeMessage()
	lc.LeaderID = 7
	must(t, bb.AppendControlRecord(lc))
	must(t, bb.AppendControl(record.ControlLeaderChange, []byte{0xff}))
	mb, err := DecodeBatch(parsed(t, bb))
	must(t, err)
	if len(mb.Control) != 2 || mb.Control[0] == nil || mb.Control[1] != nil {
		t.Fatalf("Control = %v, want the LeaderChangeMessage and nil", mb.Control)
	}
	must(t, l.HandleCommit(mb))
	if got := fs.kinds(); !slices.Equal(got, []string{"control@0"}) {
		t.Fatalf("faults %v, want one control fault", got)
	}
	if st := l.Stats(); st.Leader.LeaderID == 7 {
		t.Errorf("the leader change of a batch with an undecodable control record was applied: %+v", st.Leader)
	}
	tr := record.NewTopicRecord()
	tr.Name, tr.TopicID = "t", record.UUID{1}
	must(t, l.HandleCommit(record.Batch{BaseOffset: 2, LeaderEpoch: 4, Records: versioned(tr)}))
	if got := l.Image().Provenance().LastContainedOffset; got != 2 {
		t.Errorf("offset %d after the batch following the control batch, want 2", got)
	}
}

// TestDecodeBatchErrors: a data record that does not decode is an error
// naming the batch, before anything is loaded.
func TestDecodeBatchErrors(t *testing.T) {
	bb := metalog.NewBatchBuilder(5, 1, 10)
	must(t, bb.Append([]byte{0xff, 0xff}))
	_, err := DecodeBatch(parsed(t, bb))
	if err == nil || !errors.Is(err, record.ErrCorrupt) {
		t.Fatalf("DecodeBatch of an undecodable record: %v, want record.ErrCorrupt", err)
	}
}

// hidden hides a SnapshotReader's type, so that LoadSnapshot reads its
// batches instead of the records of a Snapshot.
type hidden struct{ SnapshotReader }

// TestSnapshotReaderEncodes: Snapshot.Reader's batches, read as those of any
// SnapshotReader (KafkaRaftClient's RecordsSnapshotReader), give the image
// LoadSnapshot builds from the records directly.
func TestSnapshotReaderEncodes(t *testing.T) {
	s := Snapshot{LastContainedOffset: 41, LastContainedEpoch: 2, LastContainedLogTime: 900, Records: []record.Record{topicRec("a", 1), partRec(1, 0, 0), topicRec("b", 2), partRec(2, 0, 1)}}
	var imgs []*image.Image
	for _, r := range []SnapshotReader{s.Reader(), hidden{s.Reader()}} {
		l := NewLoader(Config{})
		must(t, l.LoadSnapshot(r))
		imgs = append(imgs, l.Image())
		l.Close()
	}
	if d := image.Diff(imgs[0], imgs[1], image.DiffOptions{}); len(d) > 0 || imgs[0].Provenance() != imgs[1].Provenance() {
		t.Fatalf("direct and encoded snapshot loads differ: %v; %v vs %v", d, imgs[0].Provenance(), imgs[1].Provenance())
	}
}

// batches is a BatchReader of a slice, ending with err (io.EOF for a
// whole commit).
type batches struct {
	bs  []record.Batch
	err error
}

func (b *batches) Next() (record.Batch, error) {
	if len(b.bs) == 0 {
		return record.Batch{}, b.err
	}
	next := b.bs[0]
	b.bs = b.bs[1:]
	return next, nil
}

// TestHandleCommitReader: a streamed commit is published once, after its
// last batch (RaftClient.Listener.handleCommit of a BatchReader); a reader
// error returns with what was read pending, published by the next commit;
// a reader of no batch is no commit.
func TestHandleCommitReader(t *testing.T) {
	l := NewLoader(Config{})
	defer l.Close()
	cache := NewCache("c")
	must(t, l.Install(cache))
	l.SetHighWatermark(0)
	f := &feed{epoch: 1}
	must(t, l.HandleCommitReader(&batches{bs: []record.Batch{f.batch(topicRec("a", 1)), f.batch(topicRec("b", 2))}, err: io.EOF}))
	if got := cache.Load().Provenance().LastContainedOffset; got != 1 || l.Stats().Commits != 1 {
		t.Fatalf("after a commit of two batches: published offset %d, %d commits; want 1, 1", got, l.Stats().Commits)
	}
	bad := errors.New("read failed")
	if err := l.HandleCommitReader(&batches{bs: []record.Batch{f.batch(topicRec("c", 3))}, err: bad}); !errors.Is(err, bad) {
		t.Fatalf("reader error: %v, want it returned", err)
	}
	if got := cache.Load().Provenance().LastContainedOffset; got != 1 {
		t.Fatalf("published offset %d after a failed read, want 1 (nothing new published)", got)
	}
	must(t, l.HandleCommitReader(&batches{err: io.EOF}))
	if l.Stats().Commits != 1 {
		t.Fatalf("%d commits after an empty reader, want 1", l.Stats().Commits)
	}
	must(t, l.HandleCommitReader(&batches{bs: []record.Batch{f.batch(topicRec("d", 4))}, err: io.EOF}))
	img := cache.Load()
	if _, ok := img.Topic("c"); !ok || img.Provenance().LastContainedOffset != 3 {
		t.Fatalf("the next commit publishes offset %d (topic c there: %v), want 3 with the pending batch", img.Provenance().LastContainedOffset, ok)
	}
}
