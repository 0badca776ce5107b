// Command quickstart is kmeta's first example. It needs no files and no
// network, and runs in well under a second:
//
//	go run ./examples/quickstart
//
// A simulated KRaft controller (delta/deltatest) runs a three-broker cluster
// in memory and writes the records Kafka's controller would write: brokers
// registering, two topics created, a broker crashing and being fenced after the
// session timeout with its leaderships moved (leader epochs bumped), a config
// change and a partition count increase. Each commit of that log is fed to a
// metadata loader (publisher.Loader, Kafka's MetadataLoader) with two
// publishers installed: the cache that request handlers read the current image
// from, and a publisher that prints what each update changed. At the end the
// program reads the final leaders from the cache.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	// The loader and its publishers. The loader runs on this goroutine:
	// each HandleCommit returns after every publisher has seen the update.
	loader := publisher.NewLoader(publisher.Config{})
	defer loader.Close()
	cache := publisher.NewCache("cache")
	if err := loader.Install(cache, printer(w)); err != nil {
		return err
	}

	// The cluster: three brokers in three racks, metadata.version 4.1-IV1.
	sim := deltatest.MustCluster(3)
	feed := feeder(loader, sim)

	fmt.Fprintln(w, "== three brokers register and two topics are created")
	sim.MustCreateTopic("orders", 6, 3)
	sim.MustCreateTopic("payments", 3, 3)
	if err := feed(); err != nil {
		return err
	}

	fmt.Fprintln(w, "== broker 2 crashes; the controller fences it after the 9 s session timeout")
	if err := sim.CrashBroker(2); err != nil {
		return err
	}
	if err := sim.Advance(11 * time.Second); err != nil {
		return err
	}
	if err := feed(); err != nil {
		return err
	}

	fmt.Fprintln(w, "== retention.ms of orders changes")
	if err := sim.SetTopicConfig("orders", "retention.ms", "3600000"); err != nil {
		return err
	}
	if err := feed(); err != nil {
		return err
	}

	fmt.Fprintln(w, "== orders grows from 6 to 12 partitions")
	if err := sim.CreatePartitions("orders", 12, nil); err != nil {
		return err
	}
	if err := feed(); err != nil {
		return err
	}

	// Request handlers read the current image from the cache: lock-free,
	// and the image they get never changes under them.
	img := cache.Load()
	fmt.Fprintf(w, "== final leaders (image at offset %d)\n", img.Provenance().LastContainedOffset)
	for _, name := range []string{"orders", "payments"} {
		t, _ := img.Topics().ByName(name)
		var parts []string
		for i := 0; i < t.NumPartitions(); i++ {
			p := t.PartitionAt(i)
			parts = append(parts, fmt.Sprintf("%d:%d", i, p.Leader()))
		}
		fmt.Fprintf(w, "%s leaders (partition:broker) %s\n", name, strings.Join(parts, " "))
	}
	return nil
}

// configValue reads one topic config from an image.
func configValue(img *image.Image, topic, key string) string {
	v, _ := img.Configs().Get(image.ConfigResource{Type: image.ConfigTopic, Name: topic}, key)
	return v
}

// feeder returns a function that hands the loader every batch the simulator
// wrote since the last call, as one raft commit, and reports the new high
// watermark: what a broker's raft client does.
func feeder(l *publisher.Loader, sim *deltatest.Simulator) func() error {
	next := int64(0)
	return func() error {
		var batches []publisher.Batch
		for _, b := range sim.BatchesFrom(next) {
			pb := publisher.Batch{BaseOffset: b.BaseOffset, Epoch: b.LeaderEpoch, AppendTime: b.AppendTime}
			for _, r := range b.Records {
				pb.Records = append(pb.Records, r.Record)
			}
			if b.Control != nil {
				pb.Control = []record.ControlRecord{b.Control}
			}
			batches = append(batches, pb)
		}
		next = sim.NextOffset()
		if err := l.HandleCommit(batches...); err != nil {
			return err
		}
		l.SetHighWatermark(next)
		return nil
	}
}

// printer is a publisher that prints what each update changed, from the
// delta's change reports.
func printer(w io.Writer) publisher.Publisher {
	return publisher.Func("printer", func(u publisher.Update) error {
		d, img, m := u.Changes, u.Image, u.Manifest
		what := "a log delta"
		if m.Type == publisher.SnapshotLoad {
			what = "its first update, the whole image"
		}
		fmt.Fprintf(w, "printer: %s, up to offset %d\n", what, m.Provenance.LastContainedOffset)
		b := d.Brokers()
		if len(b.Registered) > 0 {
			fmt.Fprintf(w, "  brokers registered %v\n", b.Registered)
		}
		if len(b.Fenced) > 0 {
			fmt.Fprintf(w, "  brokers fenced %v\n", b.Fenced)
		}
		tc := d.Topics()
		for _, id := range tc.Created {
			t, _ := img.Topics().ByID(id)
			fmt.Fprintf(w, "  topic %s created with %d partitions\n", t.Name(), t.NumPartitions())
		}
		for _, id := range tc.Changed {
			after, _ := img.Topics().ByID(id)
			before, _ := d.Base().Topics().ByID(id)
			for _, p := range d.ChangedPartitions(id) {
				if int(p) >= before.NumPartitions() {
					continue // a new partition: reported as growth below
				}
				old, cur := before.PartitionAt(int(p)), after.PartitionAt(int(p))
				if old.Leader() != cur.Leader() {
					fmt.Fprintf(w, "  %s-%d leader %d -> %d, leader epoch %d -> %d\n",
						after.Name(), p, old.Leader(), cur.Leader(), old.LeaderEpoch(), cur.LeaderEpoch())
				}
			}
		}
		if old, cur := configValue(d.Base(), "orders", "retention.ms"), configValue(img, "orders", "retention.ms"); old != cur {
			fmt.Fprintf(w, "  orders retention.ms %q -> %q\n", old, cur)
		}
		for _, g := range d.PartitionGrowth() {
			fmt.Fprintf(w, "  %s grew from %d to %d partitions\n", g.Name, g.Before, g.After)
		}
		return nil
	})
}
