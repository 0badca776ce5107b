package publisher

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// recordJSON is r in the form delta.RecordError prints it.
func recordJSON(t *testing.T, r record.Record) string {
	t.Helper()
	js, err := r.AppendJSON(nil, r.HighestVersion())
	must(t, err)
	return string(js)
}

// TestReplayErrorOneFactPerLayer: a record MetadataDelta.replay rejects
// reads, from the innermost layer out, the record's type, JSON and cause
// (*delta.RecordError, which also names the log offset the loader gives
// delta.ReplayAt), where the record is when it has no log offset (the
// *ReplayError: snapshot id and index), what the loader was doing (the
// *Fault) and that it halted (ErrHalted) — each said once. A record of an
// in-memory snapshot is named by its index, not an offset; a nil record gets
// a *delta.RecordError too; a transaction marker out of place, which the
// delta never sees, is named by the *ReplayError. The last good image stays
// published (MetadataLoader keeps it on a fault).
func TestReplayErrorOneFactPerLayer(t *testing.T) {
	orphan := partRec(9, 0, 0)
	cause := fmt.Sprintf("unknown topic id %s", orphan.TopicID)

	t.Run("snapshot", func(t *testing.T) {
		var fs faults
		l := NewLoader(Config{ReplayErrors: Halt, FaultHandler: fs.handler})
		defer l.Close()
		cache := NewCache("")
		must(t, l.Install(cache))
		must(t, l.LoadSnapshot(Snapshot{LastContainedOffset: 9, LastContainedEpoch: 2, Records: []record.Record{topicRec("a", 1)}}.Reader()))
		good := cache.Load()
		err := l.LoadSnapshot(Snapshot{LastContainedOffset: 999, LastContainedEpoch: 3, Records: []record.Record{topicRec("b", 2), orphan}}.Reader())
		inner := fmt.Sprintf("snapshot 1000-3: record 1: delta: PARTITION_RECORD %s: %s", recordJSON(t, orphan), cause)
		if want := ErrHalted.Error() + ": " + inner; err == nil || err.Error() != want {
			t.Fatalf("LoadSnapshot returned\n%v\nwant\n%s", err, want)
		}
		if len(fs.list) != 1 || fs.list[0].Error() != "loading metadata: "+inner || fs.list[0].Offset != 999 {
			t.Errorf("faults %v", fs.list)
		}
		var re *ReplayError
		var de *delta.RecordError
		if !errors.As(err, &re) || re.Offset != -1 || re.Snapshot == nil || *re.Snapshot != (metalog.SnapshotID{EndOffset: 1000, Epoch: 3}) || re.Batch != -1 || re.Index != 1 || re.Record != orphan {
			t.Errorf("ReplayError %+v", re)
		}
		if !errors.As(err, &de) || de.Offset != -1 || de.Record != orphan || !errors.Is(err, delta.ErrRejected) {
			t.Errorf("delta.RecordError %+v", de)
		}
		if cache.Load() != good {
			t.Errorf("the last good image is no longer served")
		}
	})

	t.Run("log", func(t *testing.T) {
		var fs faults
		l := NewLoader(Config{FaultHandler: fs.handler})
		defer l.Close()
		must(t, l.HandleCommit(record.Batch{BaseOffset: 0, LeaderEpoch: 1, Records: versioned(topicRec("a", 1))}, record.Batch{BaseOffset: 1, LeaderEpoch: 1, Records: versioned(orphan, nil, end())}))
		want := []string{
			fmt.Sprintf("loading metadata: delta: PARTITION_RECORD at offset 1 %s: %s", recordJSON(t, orphan), cause),
			"loading metadata: delta: record at offset 2: nil record",
			"loading metadata: END_TRANSACTION_RECORD at offset 3: " + errEndOutside.Error(),
		}
		if len(fs.list) != len(want) {
			t.Fatalf("faults %v, want %q", fs.list, want)
		}
		for i, f := range fs.list {
			if f.Error() != want[i] || f.Kind != FaultReplay || f.Offset != int64(i+1) {
				t.Errorf("fault %d: %v (kind %v, offset %d), want %s", i, f, f.Kind, f.Offset, want[i])
			}
			var re *ReplayError
			if !errors.As(f, &re) || re.Offset != int64(i+1) || re.Snapshot != nil || re.Index != -1 {
				t.Errorf("fault %d: ReplayError %+v", i, re)
			}
			var de *delta.RecordError
			if isDelta := errors.As(f, &de); isDelta != (i < 2) || (isDelta && de.Offset != int64(i+1)) {
				t.Errorf("fault %d: delta.RecordError %+v", i, de)
			}
		}
		if !errors.Is(fs.list[1], delta.ErrNilRecord) {
			t.Errorf("a nil record's error does not wrap delta.ErrNilRecord: %v", fs.list[1])
		}
		if img := l.Image(); img.Topics().Len() != 1 || img.Provenance().LastContainedOffset != 3 {
			t.Errorf("image %v after skipping the records", img.Provenance())
		}
	})
}
