package dirfollow_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kmeta-go/kmeta/delta/deltatest/kafkalog"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// topicBatch is a data batch at offset creating topic name (a TopicRecord
// and one PartitionRecord), valid after any prefix of the log.
func topicBatch(t *testing.T, offset int64, name string) []byte {
	t.Helper()
	tr := record.NewTopicRecord()
	tr.Name = name
	copy(tr.TopicID[:], fmt.Sprintf("%016s", name))
	pr := record.NewPartitionRecord()
	pr.TopicID, pr.PartitionID, pr.Leader, pr.Replicas, pr.ISR = tr.TopicID, 0, 1, []int32{1}, []int32{1}
	b := metalog.NewBatchBuilder(offset, 1, 1000+offset)
	if err := b.AppendRecord(tr, tr.HighestVersion()); err != nil {
		t.Fatal(err)
	}
	if err := b.AppendRecord(pr, pr.HighestVersion()); err != nil {
		t.Fatal(err)
	}
	data, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// loadedImage is the loader's image after a fresh Load of dir.
func loadedImage(t *testing.T, dir string) *image.Image {
	l := publisher.NewLoader(publisher.Config{FaultHandler: func(*publisher.Loader, *publisher.Fault) {}})
	defer l.Close()
	dirfollow.Load(l, dir)
	return l.Image()
}

// FuzzFollowDirectoryOps: a random sequence of what Kafka's log layer does
// to a metadata directory (append, partial append and its completion,
// roll, snapshot, deletion below the latest snapshot, truncation of the
// tail, never below the latest snapshot as Kafka never truncates below the
// high watermark) while a follower runs. After every operation the
// follower must reach the image of a fresh Load within stepLimit: no
// panic, no hang, no disagreement.
func FuzzFollowDirectoryOps(f *testing.F) {
	f.Add([]byte{0, 0, 3, 3, 4, 0, 5, 0, 4, 0, 6, 7, 1, 0})
	f.Add([]byte{0, 1, 2, 4, 0, 1, 7, 2, 0, 5, 4, 0, 6, 3, 7, 0, 0})
	f.Add([]byte{3, 7, 0, 0, 0, 7, 1, 4, 4, 5, 5, 6, 6, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 40 {
			ops = ops[:40]
		}
		dir := filepath.Join(t.TempDir(), metalog.MetadataPartitionDir)
		w, err := kafkalog.Create(dir, 0, kafkalog.Config{SegmentBytes: 600})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		fl := startFollower(t, dir)
		partial := false
		var snapEnd int64
		n := 0
		for i := 0; i < len(ops); i++ {
			op := ops[i] % 8
			n++
			name := fmt.Sprintf("t%d", n)
			switch op {
			case 0, 1, 2:
				if partial {
					must(t, w.Complete())
					partial = false
				}
				must(t, w.Append(topicBatch(t, w.EndOffset(), name)))
			case 3:
				if partial {
					must(t, w.Complete())
					partial = false
				} else {
					b := topicBatch(t, w.EndOffset(), name)
					must(t, w.AppendPartial(b, len(b)/3))
					partial = true
				}
			case 4:
				if !partial {
					must(t, w.Roll())
				}
			case 5:
				if !partial && w.EndOffset() > snapEnd {
					id, err := w.Snapshot(loadedImage(t, dir))
					must(t, err)
					snapEnd = id.EndOffset
				}
			case 6:
				if snaps := w.Snapshots(); len(snaps) > 0 {
					must(t, w.DeleteBeforeSnapshot(snaps[len(snaps)-1]))
				}
			case 7:
				k := int64(2)
				if i+1 < len(ops) {
					i++
					k = 2 * (int64(ops[i]%3) + 1)
				}
				to := max(w.EndOffset()-k, snapEnd)
				if _, err := w.TruncateTo(to); err != nil {
					t.Fatal(err)
				}
				partial = false
			}
			fl.settle(t, fmt.Sprintf("op %d (%d) of %v", i, op, ops), w)
		}
	})
}
