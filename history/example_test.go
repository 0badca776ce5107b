package history_test

import (
	"fmt"
	"os"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/history"
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
	dir, err := sim.WriteDir(parent, deltatest.DirOptions{})
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
