// Command quickstart is kmeta's first example. It needs no files and no
// network, and runs in well under a second:
//
//	go run ./examples/quickstart
//
// A simulated KRaft controller (delta/deltatest) runs a three-broker cluster
// in memory and writes the records Kafka's controller would write: brokers
// registering, two topics and the group coordinator's __consumer_offsets
// created, a broker crashing and being fenced after the session timeout with
// its leaderships moved (leader epochs bumped), a config change, a client
// quota and a partition count increase. Each commit of that log is fed to a
// metadata loader (publisher.Loader, Kafka's MetadataLoader) with two
// publishers installed: the cache that request handlers read the current image
// from, and a publisher that prints what each update changed and what broker 1
// does about it, as Kafka's BrokerMetadataPublisher would have it: become
// leader or follower (ReplicaManager.applyDelta), move its group coordinator
// (updateCoordinator), apply a config or a quota change. At the end the
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

	fmt.Fprintln(w, "== three brokers register; orders, payments and __consumer_offsets are created")
	sim.MustCreateTopic("orders", 6, 3)
	sim.MustCreateTopic("payments", 3, 3)
	sim.MustCreateTopic("__consumer_offsets", 3, 3)
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

	fmt.Fprintln(w, "== a produce quota for user alice")
	alice, rate := "alice", 1048576.0
	if err := sim.AlterClientQuota([]image.QuotaEntityPart{{Type: "user", Name: &alice}}, "producer_byte_rate", &rate); err != nil {
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

// feeder returns a function that hands the loader every batch the simulator
// wrote since the last call, as one raft commit, and reports the new high
// watermark: what a broker's raft client does.
func feeder(l *publisher.Loader, sim *deltatest.Simulator) func() error {
	next := int64(0)
	return func() error {
		batches := sim.BatchesFrom(next)
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
		for _, c := range d.Configs() {
			name := c.Resource.Name
			if name == "" {
				name = "<cluster default>"
			}
			for _, k := range c.Set {
				v, _ := img.Configs().Get(c.Resource, k)
				fmt.Fprintf(w, "  config %s %s = %q\n", name, k, v)
			}
		}
		for _, q := range d.ClientQuotas() {
			fmt.Fprintf(w, "  client quota %s=%s: %v set\n", q.Entity[0].Type, *q.Entity[0].Name, q.Set)
		}
		for _, g := range d.PartitionGrowth() {
			fmt.Fprintf(w, "  %s grew from %d to %d partitions\n", g.Name, g.Before, g.After)
		}
		if m.Type == publisher.LogDelta {
			broker1(w, d)
		}
		return nil
	})
}

// broker1 prints what broker 1 does with a log delta: its replica
// transitions (Kafka's ReplicaManager.applyDelta) and its group
// coordinator's elections and resignations (updateCoordinator).
func broker1(w io.Writer, d publisher.Changes) {
	rc := d.ReplicaChanges(1, false)
	var leads, follows, coord []string
	for _, l := range rc.Leaders {
		if l.Elected {
			leads = append(leads, fmt.Sprintf("%s-%d", l.Topic, l.Partition))
		}
	}
	for _, f := range rc.Followers {
		if f.StartFetching {
			follows = append(follows, fmt.Sprintf("%s-%d", f.Topic, f.Partition))
		}
	}
	for _, c := range d.Coordinators(1) {
		what := "resigns"
		if c.Elected {
			what = "elected"
		}
		coord = append(coord, fmt.Sprintf("%s %s-%d at epoch %d", what, c.Topic, c.Partition, c.LeaderEpoch))
	}
	if len(leads) > 0 {
		fmt.Fprintf(w, "  broker 1 is elected leader of %s\n", strings.Join(leads, " "))
	}
	if len(follows) > 0 {
		fmt.Fprintf(w, "  broker 1 (re)starts fetching %s\n", strings.Join(follows, " "))
	}
	if len(coord) > 0 {
		fmt.Fprintf(w, "  broker 1's group coordinator %s\n", strings.Join(coord, ", "))
	}
}
