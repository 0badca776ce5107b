package delta

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func measure(t *testing.T, name string, n int, f func()) {
	runtime.GC()
	c0, w0 := cpuNow(), time.Now()
	for i := 0; i < n; i++ {
		f()
	}
	c, w := cpuNow()-c0, time.Since(w0)
	fmt.Fprintf(os.Stderr, "CPU %-28s cpu/op %12v wall/op %12v\n", name, c/time.Duration(n), w/time.Duration(n))
}

func TestZZCPU(t *testing.T) {
	if os.Getenv("ZZCPU") == "" {
		t.Skip()
	}
	apply := func(d *Delta) func() {
		return func() {
			if _, err := d.Apply(image.EmptyProvenance); err != nil {
				t.Fatal(err)
			}
		}
	}
	{
		d := New(nil)
		for _, r := range snapshotRecords(100000) {
			d.Replay(r)
		}
		measure(t, "SnapshotLoad/100000", 20, apply(d))
	}
	for _, n := range []int{12500, 25000, 50000, 100000} {
		img := fullImage(t, n)
		d := New(img)
		for tp := range img.Topics().All() {
			for p := range tp.Partitions() {
				if !p.InISR(0) {
					continue
				}
				pr := p.Record(tp.ID(), false, false)
				isr := pr.ISR[:0:0]
				for _, x := range pr.ISR {
					if x != 0 {
						isr = append(isr, x)
					}
				}
				pr.ISR, pr.Leader = isr, isr[0]
				d.Replay(pr)
			}
		}
		measure(t, fmt.Sprintf("ZonalOutage/%d", n), 100, apply(d))
		if n == 100000 {
			d := New(img)
			id := record.UUID{0xff, 1, 2, 3}
			tr := record.NewTopicRecord()
			tr.Name, tr.TopicID = "newtopic", id
			pr := record.NewPartitionRecord()
			pr.TopicID, pr.PartitionID = id, 0
			pr.Replicas = []int32{0, 1, 2}
			pr.ISR, pr.RemovingReplicas, pr.AddingReplicas = pr.Replicas, []int32{}, []int32{}
			d.Replay(tr)
			d.Replay(pr)
			measure(t, "SingleRecordChange/100000", 300000, apply(d))
		}
	}
}
