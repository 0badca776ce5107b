package dirfollow_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

func value(t *testing.T, r record.Record) []byte {
	t.Helper()
	b, err := record.Append(nil, r, r.HighestVersion())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func topic(t *testing.T, name string, id byte) [][]byte {
	tr := record.NewTopicRecord()
	tr.Name, tr.TopicID = name, record.UUID{id}
	pr := record.NewPartitionRecord()
	pr.TopicID, pr.PartitionID, pr.Leader, pr.LeaderEpoch, pr.PartitionEpoch = record.UUID{id}, 0, 1, 0, 0
	pr.Replicas, pr.ISR = []int32{1}, []int32{1}
	return [][]byte{value(t, tr), value(t, pr)}
}

// TestFollowLiveDirectory: Follow publishes what a directory holds, then
// batches appended to the segment, then a new segment rolled at the next
// offset, as they appear.
func TestFollowLiveDirectory(t *testing.T) {
	dir := t.TempDir()
	seg, err := metalog.CreateSegment(metalog.OS{}, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	lc := record.NewLeaderChangeMessage()
	lc.LeaderID = 1
	lcv, _ := lc.AppendBody(nil, 0)
	if _, err := seg.AppendControl(1, 1000, record.ControlLeaderChange, lcv); err != nil {
		t.Fatal(err)
	}
	if _, err := seg.AppendData(1, 1001, topic(t, "a", 1)...); err != nil {
		t.Fatal(err)
	}
	l := publisher.NewLoader(publisher.Config{})
	cache := publisher.NewCache("")
	if err := l.Install(cache); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- dirfollow.Follow(ctx, l, dir, dirfollow.Options{Poll: 5 * time.Millisecond}) }()
	wait := func(off int64) {
		t.Helper()
		wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
		defer wcancel()
		if _, err := l.WaitForOffset(wctx, off); err != nil {
			t.Fatalf("waiting for offset %d: %v (loader at %v)", off, err, l.Stats().Loaded)
		}
	}
	wait(2)
	if _, err := seg.AppendData(1, 1002, topic(t, "b", 2)...); err != nil {
		t.Fatal(err)
	}
	wait(4)
	seg.Close()
	seg2, err := metalog.CreateSegment(metalog.OS{}, dir, 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seg2.AppendData(2, 1003, topic(t, "c", 3)...); err != nil {
		t.Fatal(err)
	}
	wait(6)
	seg2.Close()
	if n := cache.Load().Topics().Len(); n != 3 {
		t.Errorf("%d topics, want 3", n)
	}
	if st := l.Stats(); st.Leader != (publisher.LeaderAndEpoch{LeaderID: 1, Epoch: 1}) {
		t.Errorf("leader %v", st.Leader)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Follow returned %v", err)
	}
}

// TestLoadCommitSize: commits are cut at MaxCommitBytes (at least one batch
// each); the final image is the same.
func TestLoadCommitSize(t *testing.T) {
	dir := t.TempDir()
	seg, err := metalog.CreateSegment(metalog.OS{}, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if _, err := seg.AppendData(1, int64(i), topic(t, string(rune('a'+i)), byte(i+1))...); err != nil {
			t.Fatal(err)
		}
	}
	seg.Close()
	for _, tc := range []struct {
		max, commits int
	}{{0, 1}, {1, 10}} {
		commits := 0
		l := publisher.NewLoader(publisher.Config{Hooks: publisher.Hooks{CommitHandled: func(publisher.CommitInfo) { commits++ }}})
		if err := dirfollow.LoadWith(l, dir, dirfollow.Options{MaxCommitBytes: tc.max}); err != nil {
			t.Fatal(err)
		}
		img, _ := l.Watch()
		if commits != tc.commits || img == nil || img.Topics().Len() != 10 {
			t.Errorf("max %d: %d commits, image %v", tc.max, commits, img)
		}
	}
}
