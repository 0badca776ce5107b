package delta

import (
	"fmt"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/invariants"
)

// maxCheckedPartitions bounds the images whose topics checkImage walks, so
// that the large-image tests stay within the CI budget under -race (the
// cluster is always checked).
const maxCheckedPartitions = 5_000

// checked returns img after checking it under the invariants build tag
// (package internal/invariants); it panics on an image whose indexes
// disagree, which only a bug in kmeta can build.
func checked(img *image.Image) *image.Image {
	if invariants.Enabled {
		if err := checkImage(img); err != nil {
			panic(fmt.Sprintf("kmeta invariants: image at offset %d: %v", img.Provenance().LastContainedOffset, err))
		}
	}
	return img
}

// checkImage checks what every image holds whatever records built it: the
// broker and controller lists ascend by id and agree with the lookups, every
// topic is found by id and by name, the name order is strict, the partition
// counts add up, and every partition is found by its id.
func checkImage(img *image.Image) error {
	c := img.Cluster()
	n, prev := 0, int32(-1)
	for b := range c.Brokers() {
		if n > 0 && b.ID() <= prev {
			return fmt.Errorf("broker %d listed after broker %d", b.ID(), prev)
		}
		if got, ok := c.Broker(b.ID()); !ok || got != b {
			return fmt.Errorf("broker %d listed but Cluster.Broker does not find it", b.ID())
		}
		n, prev = n+1, b.ID()
	}
	if n != c.NumBrokers() {
		return fmt.Errorf("%d brokers listed, NumBrokers says %d", n, c.NumBrokers())
	}
	for b := range c.AliveBrokers() {
		if b.Fenced() {
			return fmt.Errorf("fenced broker %d listed as alive", b.ID())
		}
	}
	n = 0
	for ctl := range c.Controllers() {
		if got, ok := c.Controller(ctl.ID()); !ok || got != ctl {
			return fmt.Errorf("controller %d listed but Cluster.Controller does not find it", ctl.ID())
		}
		n++
	}
	if n != c.NumControllers() {
		return fmt.Errorf("%d controllers listed, NumControllers says %d", n, c.NumControllers())
	}

	ts := img.Topics()
	if ts.NumPartitions() > maxCheckedPartitions {
		return nil
	}
	n, parts := 0, 0
	for t := range ts.All() {
		if got, ok := ts.ByID(t.ID()); !ok || got != t {
			return fmt.Errorf("topic %s (%s) listed but Topics.ByID does not find it", t.Name(), t.ID())
		}
		if got, ok := ts.ByName(t.Name()); !ok || got != t {
			return fmt.Errorf("topic %s (%s) listed but Topics.ByName does not find it", t.Name(), t.ID())
		}
		if id, ok := ts.IDOf(t.Name()); !ok || id != t.ID() {
			return fmt.Errorf("topic %s: IDOf gives %s, want %s", t.Name(), id, t.ID())
		}
		np := 0
		for p := range t.Partitions() {
			if got, ok := t.Partition(p.ID()); !ok || got != p {
				return fmt.Errorf("partition %s-%d listed but Topic.Partition does not find it", t.Name(), p.ID())
			}
			np++
		}
		if np != t.NumPartitions() {
			return fmt.Errorf("topic %s: %d partitions listed, NumPartitions says %d", t.Name(), np, t.NumPartitions())
		}
		n, parts = n+1, parts+np
	}
	if n != ts.Len() || parts != ts.NumPartitions() {
		return fmt.Errorf("%d topics and %d partitions listed, Topics says %d and %d", n, parts, ts.Len(), ts.NumPartitions())
	}
	sorted := ts.Sorted()
	if len(sorted) != n {
		return fmt.Errorf("Topics.Sorted holds %d topics, %d listed", len(sorted), n)
	}
	for i := 1; i < len(sorted); i++ {
		if sorted[i-1].Name() >= sorted[i].Name() {
			return fmt.Errorf("Topics.Sorted lists %q before %q", sorted[i-1].Name(), sorted[i].Name())
		}
	}
	return nil
}
