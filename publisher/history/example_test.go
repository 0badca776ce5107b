package history_test

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher/history"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// crashedCluster writes the log of a three-broker cluster in which broker 1
// crashes and is fenced after the session timeout, and returns its
// directory.
func crashedCluster() (string, func()) {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 2, 3)
	sim.Advance(time.Second)
	sim.CrashBroker(1)
	sim.Advance(11 * time.Second)
	parent, _ := os.MkdirTemp("", "history-example")
	dir, err := sim.WriteDir(parent, deltatest.WriteDirOptions{})
	if err != nil {
		panic(err)
	}
	return dir, func() { os.RemoveAll(parent) }
}

// Read gathers who led each partition and when, and each broker's fenced
// and unfenced intervals.
func ExampleRead() {
	dir, done := crashedCluster()
	defer done()
	h, err := history.Read(dir, history.Options{})
	if err != nil {
		panic(err)
	}
	b, _ := h.Broker(1)
	for _, iv := range b.Intervals {
		fmt.Printf("broker 1 %s from offset %d (%s) for %s\n", iv.State, iv.From.Offset, iv.From.Time().Format("15:04:05"), iv.Duration())
	}
	for _, p := range h.PartitionsOf("orders") {
		for _, ev := range p.Events {
			if ev.Changed&history.FieldLeader != 0 && ev.Changed&history.Created == 0 {
				fmt.Printf("orders-%d offset %d: leader %d -> %d (epoch %d), isr %v\n", p.Partition, ev.At.Offset, ev.Before.Leader, ev.After.Leader, ev.After.LeaderEpoch, ev.After.ISR)
			}
		}
	}
	// Output:
	// broker 1 fenced from offset 8 (00:00:00) for 0s
	// broker 1 unfenced from offset 9 (00:00:00) for 10.125s
	// broker 1 fenced from offset 19 (00:00:10) for 0s
	// orders-0 offset 17: leader 1 -> 2 (epoch 1), isr [2 3]
}

// ImageAt travels back: the image as it was at an offset or a time.
func ExampleImageAt() {
	dir, done := crashedCluster()
	defer done()
	h, _ := history.Read(dir, history.Options{})
	b, _ := h.Broker(1)
	fenced := b.Intervals[2].From

	before, _ := history.ImageAt(dir, history.AtTime(fenced.Time().Add(-time.Second)))
	after, _ := history.ImageAt(dir, history.AtOffset(fenced.Offset))
	l0, _, _ := before.Leader("orders", 0)
	l1, _, _ := after.Leader("orders", 0)
	fmt.Println("orders-0 leader a second before broker 1's fencing:", l0, "after it:", l1)
	fmt.Println("images at offsets", before.Provenance().LastContainedOffset, "and", after.Provenance().LastContainedOffset)
	// Output:
	// orders-0 leader a second before broker 1's fencing: 1 after it: 2
	// images at offsets 16 and 19
}

// Check reports what Kafka's replay would reject and the invariants the log
// breaks; a log written by Kafka's controller (here, its simulator) has
// nothing to report.
func ExampleCheck() {
	dir, done := crashedCluster()
	defer done()
	findings, err := history.Check(dir, history.Options{})
	fmt.Println(len(findings), err)
	// Output:
	// 0 <nil>
}

// ImagesAt gives the images at several points in one pass, e.g. for a
// diff between two moments of one log.
func ExampleImagesAt() {
	dir, done := crashedCluster()
	defer done()
	at, _ := history.ParsePoint("2025-01-01T00:00:05Z")
	imgs, err := history.ImagesAt(dir, at, history.End())
	if err != nil {
		panic(err)
	}
	for _, d := range image.Diff(imgs[0], imgs[1], image.DiffOptions{}) {
		fmt.Println(d)
	}
	// Output:
	// changed broker 1: fenced false -> true
	// changed partition orders-0: isr [1,2,3] -> [2,3]; leader 1 -> 2; leaderEpoch 0 -> 1; partitionEpoch 0 -> 1
	// changed partition orders-1: isr [2,3,1] -> [2,3]; partitionEpoch 0 -> 1
}

// ParsePoint reads what metadump's -at takes.
func ExampleParsePoint() {
	for _, s := range []string{"1234", "2026-11-29T03:12:04Z", "yesterday"} {
		p, err := history.ParsePoint(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		if o, ok := p.Offset(); ok {
			fmt.Println("offset", o)
		} else {
			t, _ := p.Time()
			fmt.Println("time", t.Format(time.RFC3339))
		}
	}
	// Output:
	// offset 1234
	// time 2026-11-29T03:12:04Z
	// "yesterday" is neither an offset nor an RFC 3339 time (2026-11-29T03:12:04Z)
}

// A Builder takes batches from anywhere: here the simulator's, encoded as
// a raft client would hand them over.
func ExampleBuilder() {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 1, 3)
	sim.ShrinkISR("orders", 0, 3) // a follower falls behind
	sim.FenceBroker(1)            // the leader is fenced: leadership moves
	sim.UnfenceBroker(1)
	sim.ExpandISR("orders", 0, 1)
	sim.ElectPreferredLeader("orders", 0) // back to the first replica

	b := history.NewBuilder(history.BuilderConfig{})
	for _, sb := range sim.Batches() {
		raw, _ := metalog.AppendDecoded(nil, &sb)
		var batch metalog.Batch
		if _, err := metalog.ParseBatch(raw, &batch); err != nil {
			panic(err)
		}
		if err := b.AddBatch("memory", &batch); err != nil {
			panic(err)
		}
	}
	h := b.Finish()
	for _, p := range h.PartitionsOf("orders") {
		for _, ev := range p.Events {
			fmt.Printf("offset %d: %v leader %d isr %v\n", ev.At.Offset, ev.Changed.Names(), ev.After.Leader, ev.After.ISR)
		}
		fmt.Println("leader changes:", p.LeaderChanges, "ISR shrinks:", p.ISRShrinks)
	}
	// Output:
	// offset 15: [leader leaderEpoch partitionEpoch replicas isr created] leader 1 isr [1 2 3]
	// offset 16: [partitionEpoch isr] leader 1 isr [1 2]
	// offset 17: [leader leaderEpoch partitionEpoch isr] leader 2 isr [2]
	// offset 20: [partitionEpoch isr] leader 2 isr [2 1]
	// offset 21: [leader leaderEpoch partitionEpoch] leader 1 isr [2 1]
	// leader changes: 2 ISR shrinks: 2
}

// OpenLog lists the files a history or an image at a point is read from.
func ExampleOpenLog() {
	dir, done := crashedCluster()
	defer done()
	l, err := history.OpenLog(dir, nil)
	if err != nil {
		panic(err)
	}
	defer l.Close()
	snap, _ := l.Snapshot()
	fmt.Println("snapshot:", snap != nil, "segments:", len(l.Segments()), "from offset", l.Start())
	n := 0
	l.EachBatch(func(file string, b *metalog.Batch) (bool, error) {
		n++
		return true, nil
	})
	fmt.Println(n, "batches")
	// Output:
	// snapshot: false segments: 1 from offset 0
	// 10 batches
}

// ReadTimeline gathers the timeline of a log in one lean replay: the
// brokers' lanes, leader changes per time bucket, the moments in which the
// image changed, with their differences.
func ExampleReadTimeline() {
	dir, done := crashedCluster()
	defer done()
	tl, err := history.ReadTimeline(dir, history.TimelineOptions{Buckets: 10})
	if err != nil {
		panic(err)
	}
	for _, b := range tl.Brokers {
		fmt.Printf("broker %d: %d fencing(s), fenced for %dms\n", b.ID, b.Fencings, b.FencedMs)
	}
	fmt.Println("leader changes:", tl.Totals.LeaderChanges, "per bucket:", tl.LeaderChanges)
	last := tl.Moments[len(tl.Moments)-1]
	fmt.Printf("last moment, offsets %d..%d:\n", last.From+1, last.Offset)
	for _, d := range last.Diff {
		fmt.Println(" ", d)
	}
	// Output:
	// broker 1: 2 fencing(s), fenced for 0ms
	// broker 2: 1 fencing(s), fenced for 0ms
	// broker 3: 1 fencing(s), fenced for 0ms
	// leader changes: 1 per bucket: [0 0 0 0 0 0 0 0 0 1]
	// last moment, offsets 17..19:
	//   changed broker 1: fenced false -> true
	//   changed partition orders-0: isr [1,2,3] -> [2,3]; leader 1 -> 2; leaderEpoch 0 -> 1; partitionEpoch 0 -> 1
	//   changed partition orders-1: isr [2,3,1] -> [2,3]; partitionEpoch 0 -> 1
}

// Log.EachBatchUpTo reads the batches up to a point, the last one cut just
// after it; a point past the end of the log is an *OutsideError.
func ExampleLog_EachBatchUpTo() {
	dir, done := crashedCluster()
	defer done()
	l, err := history.OpenLog(dir, nil)
	if err != nil {
		panic(err)
	}
	defer l.Close()
	n := 0
	err = l.EachBatchUpTo(history.AtOffset(10), func(file string, b *metalog.Batch) error {
		n += len(b.Entries)
		return nil
	})
	fmt.Println(n, "records up to offset 10, error:", err)

	l2, _ := history.OpenLog(dir, nil)
	defer l2.Close()
	err = l2.EachBatchUpTo(history.AtOffset(1000), func(string, *metalog.Batch) error { return nil })
	var oe *history.OutsideError
	fmt.Println(errors.As(err, &oe), oe.LastOffset)
	// Output:
	// 11 records up to offset 10, error: <nil>
	// true 19
}
