package dirfollow_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// memTopicBatch is a data batch at base creating topic name (offsets base and
// base+1).
func memTopicBatch(name string, id byte, base int64, epoch int32) []byte {
	tr := record.NewTopicRecord()
	tr.Name, tr.TopicID = name, record.UUID{id}
	pr := record.NewPartitionRecord()
	pr.TopicID, pr.PartitionID, pr.Leader = record.UUID{id}, 0, 1
	pr.Replicas, pr.ISR = []int32{1}, []int32{1}
	b := metalog.NewBatchBuilder(base, epoch, 1000+base)
	for _, r := range []record.Record{tr, pr} {
		if err := b.AppendRecord(r, r.HighestVersion()); err != nil {
			panic(err)
		}
	}
	out, err := b.Build()
	if err != nil {
		panic(err)
	}
	return out
}

func topicNames(img *image.Image) []string {
	var out []string
	for t := range img.Topics().All() {
		out = append(out, t.Name())
	}
	slices.Sort(out)
	return out
}

// TestFollowMemFS: Follow over a metalog.MemFS, no temporary directory:
// appends to the active segment, a roll to a new segment, then the raft
// client truncating the new segment's suffix and the leader rewriting it
// (UnifiedLog.truncateTo then append). The published images follow the
// rewritten log, never going back in offset.
func TestFollowMemFS(t *testing.T) {
	var mem metalog.MemFS
	seg0 := "meta/" + metalog.SegmentName(0)
	must(t, mem.WriteFile(seg0, memTopicBatch("a", 1, 0, 1)))
	l := publisher.NewLoader(publisher.Config{})
	cache := publisher.NewCache("")
	must(t, l.Install(cache))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- dirfollow.Follow(ctx, l, "meta", dirfollow.Options{FS: &mem, Poll: time.Millisecond, MaxPoll: 5 * time.Millisecond})
	}()
	waitFor := func(want ...string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; {
			img, next := cache.Watch()
			if slices.Equal(topicNames(img), want) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("topics %v, want %v (loader at %v)", topicNames(img), want, l.Stats().Loaded)
			}
			select {
			case <-next:
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	waitFor("a")
	must(t, mem.Append(seg0, memTopicBatch("b", 2, 2, 1)))
	waitFor("a", "b")
	seg4 := "meta/" + metalog.SegmentName(4)
	must(t, mem.WriteFile(seg4, append(memTopicBatch("c", 3, 4, 2), memTopicBatch("d", 4, 6, 2)...)))
	waitFor("a", "b", "c", "d")
	must(t, mem.Truncate(seg4, int64(len(memTopicBatch("c", 3, 4, 2)))))
	must(t, mem.Append(seg4, memTopicBatch("e", 5, 6, 3)))
	waitFor("a", "b", "c", "e")
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Follow returned %v", err)
	}
	if off := cache.Load().Provenance().LastContainedOffset; off != 7 {
		t.Errorf("last offset %d, want 7", off)
	}
}

// TestLoadMemFSErrorsNameTheFile: a damaged batch read from a MemFS is an
// error naming the file as dir/name, the byte position and the offset.
func TestLoadMemFSErrorsNameTheFile(t *testing.T) {
	var mem metalog.MemFS
	b := memTopicBatch("b", 2, 2, 1)
	b[len(b)-1] ^= 0xff // break the CRC
	must(t, mem.WriteFile("meta/"+metalog.SegmentName(0), append(memTopicBatch("a", 1, 0, 1), b...)))
	l := publisher.NewLoader(publisher.Config{FaultHandler: func(*publisher.Loader, *publisher.Fault) {}})
	err := dirfollow.LoadWith(l, "meta", dirfollow.Options{FS: &mem})
	var ce *metalog.CorruptionError
	if !errors.As(err, &ce) || ce.File != "meta/"+metalog.SegmentName(0) || ce.Offset != 2 || ce.Position != int64(len(memTopicBatch("a", 1, 0, 1))) {
		t.Fatalf("Load = %v", err)
	}
	if got := l.Stats().ReadErrors; got != 1 {
		t.Errorf("%d read errors reported, want 1", got)
	}
}

// A directory held in memory, loaded with Options.FS.
func ExampleLoadWith_memFS() {
	var mem metalog.MemFS
	mem.WriteFile("meta/"+metalog.SegmentName(0), append(memTopicBatch("orders", 1, 0, 1), memTopicBatch("payments", 2, 2, 1)...))
	l := publisher.NewLoader(publisher.Config{})
	cache := publisher.NewCache("")
	l.Install(cache)
	if err := dirfollow.LoadWith(l, "meta", dirfollow.Options{FS: &mem}); err != nil {
		fmt.Println(err)
	}
	fmt.Println(topicNames(cache.Load()), "up to offset", cache.Load().Provenance().LastContainedOffset)
	// Output:
	// [orders payments] up to offset 3
}
