package publisher

import (
	"errors"
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
