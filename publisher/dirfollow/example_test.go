package dirfollow_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// Load a __cluster_metadata-0 directory into a loader as a broker does after
// a restart: the latest snapshot, then the log after it. The directory here is
// written by the simulated controller; point Load at a real Kafka data
// directory the same way.
func ExampleLoad() {
	parent, err := os.MkdirTemp("", "kmeta-dirfollow")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(parent)
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 6, 3)
	sim.MustCreateTopic("payments", 3, 3)
	dir, err := sim.WriteDir(parent, deltatest.WriteDirOptions{SnapshotAt: 10})
	if err != nil {
		panic(err)
	}

	l := publisher.NewLoader(publisher.Config{})
	defer l.Close()
	cache := publisher.NewCache("cache")
	if err := l.Install(cache); err != nil {
		panic(err)
	}
	if err := dirfollow.Load(l, dir); err != nil {
		panic(err)
	}
	img := cache.Load()
	fmt.Println("brokers:", img.Cluster().NumBrokers(), "topics:", img.Topics().Len())
	fmt.Println("same as the controller's image:", img.Provenance().LastContainedOffset == sim.NextOffset()-1)
	// Output:
	// brokers: 3 topics: 2
	// same as the controller's image: true
}

// A record the loader skips (here a PartitionRecord whose TopicRecord is
// not in the log, which Kafka's replay rejects) does not vanish: Load
// publishes what loaded and returns a *LoadError naming file, byte position
// and offset of each record left out.
func ExampleLoadError() {
	dir, err := os.MkdirTemp("", "kmeta-dirfollow")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	seg, err := metalog.CreateSegment(metalog.OS{}, dir, 0)
	if err != nil {
		panic(err)
	}
	pr := record.NewPartitionRecord()
	pr.TopicID, pr.PartitionID, pr.Leader, pr.Replicas, pr.ISR = record.UUID{7}, 0, 1, []int32{1}, []int32{1}
	v, _ := record.Append(nil, pr, pr.HighestVersion())
	seg.AppendData(1, 1000, v)
	seg.Close()

	l := publisher.NewLoader(publisher.Config{FaultHandler: func(*publisher.Loader, *publisher.Fault) {}})
	defer l.Close()
	err = dirfollow.Load(l, dir)
	var le *dirfollow.LoadError
	if errors.As(err, &le) {
		var re *dirfollow.RecordError
		errors.As(le.Problems[0], &re)
		fmt.Println("left out:", le.Count, "file:", filepath.Base(re.File), "byte:", re.Position, "offset:", re.Offset)
	}
	// Output:
	// left out: 1 file: 00000000000000000000.log byte: 0 offset: 0
}

// Follow a live directory. Here the log's tail is truncated and rewritten
// with another batch, as the raft client truncates an uncommitted suffix:
// the follower goes back to what the rewritten log says.
func ExampleFollow() {
	dir, err := os.MkdirTemp("", "kmeta-follow")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	// topicBatch is one batch at offset creating a topic with one partition.
	topicBatch := func(offset int64, name string, id byte) []byte {
		tr := record.NewTopicRecord()
		tr.Name, tr.TopicID = name, record.UUID{id}
		pr := record.NewPartitionRecord()
		pr.TopicID, pr.PartitionID, pr.Leader, pr.Replicas, pr.ISR = tr.TopicID, 0, 1, []int32{1}, []int32{1}
		b := metalog.NewBatchBuilder(offset, 1, 1000+offset)
		b.AppendRecord(tr, tr.HighestVersion())
		b.AppendRecord(pr, pr.HighestVersion())
		data, _ := b.Build()
		return data
	}
	seg := filepath.Join(dir, metalog.SegmentName(0))
	first := topicBatch(0, "orders", 1)
	os.WriteFile(seg, append(first, topicBatch(2, "uncommitted", 2)...), 0o644)

	l := publisher.NewLoader(publisher.Config{})
	defer l.Close()
	cache := publisher.NewCache("cache")
	l.Install(cache)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		// OnError receives each error (naming file, byte position and
		// offset); with it, Follow keeps following and serving the last
		// good image.
		done <- dirfollow.Follow(ctx, l, dir, dirfollow.Options{Poll: time.Millisecond, OnError: func(err error) { log.Print(err) }})
	}()
	names := func() (out []string) {
		for t := range cache.Load().Topics().All() {
			out = append(out, t.Name())
		}
		sort.Strings(out)
		return out
	}
	l.WaitForOffset(ctx, 3)
	fmt.Println("topics:", names())

	// Truncated after the first batch, then another batch appended.
	os.WriteFile(seg, append(first, topicBatch(2, "payments", 3)...), 0o644)
	for {
		if _, ok := cache.Load().Topics().ByName("payments"); ok && cache.Load().Topics().Len() == 2 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	fmt.Println("topics:", names())
	cancel()
	fmt.Println(<-done)
	// Output:
	// topics: [orders uncommitted]
	// topics: [orders payments]
	// context canceled
}

// Start follows a directory on a goroutine of its own and returns once the
// first image is published: what an embedder needs before it answers
// clients.
func ExampleStart() {
	parent, err := os.MkdirTemp("", "kmeta-dirfollow")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(parent)
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 6, 3)
	dir, err := sim.WriteDir(parent, deltatest.WriteDirOptions{})
	if err != nil {
		panic(err)
	}

	l := publisher.NewLoader(publisher.Config{})
	defer l.Close()
	cache := publisher.NewCache("cache")
	if err := l.Install(cache); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	img, following, err := dirfollow.Start(ctx, l, dir, dirfollow.Options{})
	if err != nil {
		panic(err)
	}
	defer following.Stop()
	fmt.Println("brokers:", img.Cluster().NumBrokers(), "topics:", img.Topics().Len())
	fmt.Println("the cache has it:", cache.Load() == img)
	// Output:
	// brokers: 3 topics: 1
	// the cache has it: true
}

// With Options.AwaitFiles, Start waits for a directory Kafka has not
// written yet (a node formatted after its reader started) instead of
// failing to open it, and returns its first image once it is written.
func ExampleStart_awaitFiles() {
	parent, err := os.MkdirTemp("", "kmeta-dirfollow")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(parent)
	dir := filepath.Join(parent, metalog.MetadataPartitionDir) // not there yet

	l := publisher.NewLoader(publisher.Config{})
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	type started struct {
		topics    int
		following *dirfollow.Following
		err       error
	}
	res := make(chan started, 1)
	go func() {
		img, following, err := dirfollow.Start(ctx, l, dir, dirfollow.Options{AwaitFiles: true})
		s := started{following: following, err: err}
		if img != nil {
			s.topics = img.Topics().Len()
		}
		res <- s
	}()

	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 6, 3)
	// Written elsewhere and renamed into place, so that the first image is
	// the whole log (a log being appended to may publish its first batches
	// first).
	written, err := sim.WriteDir(filepath.Join(parent, "staging"), deltatest.WriteDirOptions{})
	if err != nil {
		panic(err)
	}
	if err := os.Rename(written, dir); err != nil {
		panic(err)
	}
	s := <-res
	if s.err != nil {
		panic(s.err)
	}
	defer s.following.Stop()
	fmt.Println("topics:", s.topics)
	// Output:
	// topics: 1
}
