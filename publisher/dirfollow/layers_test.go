package dirfollow_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// badDir is a metalog.MemFS holding meta/, a __cluster_metadata-0 directory
// with snapshot 1000-3 and a segment at 1000. Either the snapshot (when
// snapshot is set) or the segment's batch holds a TopicRecord and then a
// PartitionRecord naming a topic id no TopicRecord created; the snapshot
// otherwise holds topic "a", the segment otherwise nothing. It returns the
// orphan record.
func badDir(t *testing.T, snapshot bool) (*metalog.MemFS, record.Record) {
	tr := record.NewTopicRecord()
	tr.Name, tr.TopicID = "b", record.UUID{2}
	pr := record.NewPartitionRecord()
	pr.TopicID, pr.PartitionID, pr.Leader = record.UUID{9}, 0, 1
	pr.Replicas, pr.ISR = []int32{1}, []int32{1}
	good := record.NewTopicRecord()
	good.Name, good.TopicID = "a", record.UUID{1}
	snap, seg := []record.Record{good}, []record.Record{tr, pr}
	if snapshot {
		snap, seg = seg, nil
	}
	mem := &metalog.MemFS{}
	var buf bytes.Buffer
	id := metalog.SnapshotID{EndOffset: 1000, Epoch: 3}
	w, err := metalog.NewSnapshotWriter(&buf, id, metalog.SnapshotWriterConfig{})
	must(t, err)
	for _, r := range snap {
		must(t, w.AppendRecord(r, r.HighestVersion()))
	}
	_, err = w.Freeze()
	must(t, err)
	must(t, mem.WriteFile("meta/"+id.FileName(), buf.Bytes()))
	var out []byte
	if seg != nil {
		b := metalog.NewBatchBuilder(1000, 3, 5000)
		for _, r := range seg {
			must(t, b.AppendRecord(r, r.HighestVersion()))
		}
		out, err = b.Build()
		must(t, err)
	}
	must(t, mem.WriteFile("meta/"+metalog.SegmentName(1000), out))
	return mem, pr
}

// TestLoadErrorsAddOneFactPerLayer: a record the delta rejects
// (TopicsDelta.replay: unknown topic id), in a snapshot file and in a log
// segment, reads from the outside in: the file and, in a segment, the
// batch's byte position (*dirfollow.RecordError); what the loader was doing
// (*publisher.Fault) or that it halted (publisher.ErrHalted); the snapshot id
// and the record's place in it, a snapshot's own offsets named as such
// (*publisher.ReplayError); the record's type, its log offset when it has
// one, its JSON and the cause (*delta.RecordError) — each fact once. In Halt
// mode the loader keeps serving the image it had.
func TestLoadErrorsAddOneFactPerLayer(t *testing.T) {
	for _, tc := range []struct {
		name     string
		snapshot bool
		mode     publisher.ReplayErrorMode
		file     string
		want     string // %s: the record's JSON
		pos      int64  // RecordError.Position
		offset   int64  // delta.RecordError.Offset and ReplayError.Offset
	}{
		{"snapshot/skip", true, publisher.Skip, "meta/00000000000000001000-0000000003.checkpoint",
			"dirfollow: meta: loaded, leaving out 1 problem(s); meta/00000000000000001000-0000000003.checkpoint: loading metadata: snapshot 1000-3: batch at snapshot offset 1: record 1: delta: PARTITION_RECORD %s: unknown topic id CQAAAAAAAAAAAAAAAAAAAA", -1, -1},
		{"snapshot/halt", true, publisher.Halt, "meta/00000000000000001000-0000000003.checkpoint",
			"meta/00000000000000001000-0000000003.checkpoint: publisher: loader halted by a replay error; load a snapshot to resume: snapshot 1000-3: batch at snapshot offset 1: record 1: delta: PARTITION_RECORD %s: unknown topic id CQAAAAAAAAAAAAAAAAAAAA", -1, -1},
		{"segment/skip", false, publisher.Skip, "meta/00000000000000001000.log",
			"dirfollow: meta: loaded, leaving out 1 problem(s); meta/00000000000000001000.log: batch at byte 0: loading metadata: delta: PARTITION_RECORD at offset 1001 %s: unknown topic id CQAAAAAAAAAAAAAAAAAAAA", 0, 1001},
		{"segment/halt", false, publisher.Halt, "meta/00000000000000001000.log",
			"meta/00000000000000001000.log: batch at byte 0: publisher: loader halted by a replay error; load a snapshot to resume: delta: PARTITION_RECORD at offset 1001 %s: unknown topic id CQAAAAAAAAAAAAAAAAAAAA", 0, 1001},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem, orphan := badDir(t, tc.snapshot)
			js, err := orphan.AppendJSON(nil, orphan.HighestVersion())
			must(t, err)
			var faults []*publisher.Fault
			l := publisher.NewLoader(publisher.Config{ReplayErrors: tc.mode, FaultHandler: func(_ *publisher.Loader, f *publisher.Fault) { faults = append(faults, f) }})
			defer l.Close()
			cache := publisher.NewCache("")
			must(t, l.Install(cache))
			good := record.NewTopicRecord()
			good.Name, good.TopicID = "good", record.UUID{7}
			must(t, l.LoadSnapshot(publisher.Snapshot{LastContainedOffset: 9, LastContainedEpoch: 1, Records: []record.Record{good}}.Reader()))
			before := cache.Load()

			err = dirfollow.LoadWith(l, "meta", dirfollow.Options{FS: mem})
			if want := fmt.Sprintf(tc.want, js); err == nil || err.Error() != want {
				t.Fatalf("LoadWith returned\n%v\nwant\n%s", err, want)
			}
			var fe *dirfollow.RecordError
			if !errors.As(err, &fe) || fe.File != tc.file || fe.Position != tc.pos {
				t.Errorf("dirfollow.RecordError %+v", fe)
			}
			var le *dirfollow.LoadError
			var ft *publisher.Fault
			if tc.mode == publisher.Skip {
				if !errors.As(err, &le) || le.Count != 1 || !errors.As(err, &ft) || ft.Kind != publisher.FaultReplay {
					t.Errorf("LoadError %+v, Fault %+v", le, ft)
				}
			} else if errors.As(err, &le) || !errors.Is(err, publisher.ErrHalted) {
				t.Errorf("a halted load returned %T, not the halt", err)
			}
			var re *publisher.ReplayError
			if !errors.As(err, &re) || re.Offset != tc.offset || (re.Snapshot != nil) != tc.snapshot || re.Record.Type() != record.TypePartitionRecord {
				t.Errorf("publisher.ReplayError %+v", re)
			}
			if tc.snapshot && (re.Batch != 1 || re.Index != 1) {
				t.Errorf("the snapshot's record is at batch %d, index %d, want 1, 1", re.Batch, re.Index)
			}
			var de *delta.RecordError
			if !errors.As(err, &de) || de.Offset != tc.offset || !errors.Is(err, delta.ErrRejected) {
				t.Errorf("delta.RecordError %+v", de)
			}
			if len(faults) != 1 || faults[0].Kind != publisher.FaultReplay {
				t.Errorf("the fault handler got %v, want the one replay fault", faults)
			}
			switch {
			case tc.mode == publisher.Skip:
			case tc.snapshot && cache.Load() != before:
				t.Errorf("the halted loader no longer serves the last good image")
			case !tc.snapshot && (topicNames(cache.Load()) == nil || topicNames(cache.Load())[0] != "a" || len(topicNames(cache.Load())) != 1 || cache.Load().Provenance().LastContainedOffset != 999):
				t.Errorf("the halted loader serves %v at %d, not the snapshot's image", topicNames(cache.Load()), cache.Load().Provenance().LastContainedOffset)
			}
		})
	}
}
