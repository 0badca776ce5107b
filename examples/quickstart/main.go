// Command quickstart is kmeta's first example. It needs no files and no
// network:
//
//	go run ./examples/quickstart
//
// It writes the metadata history of a small three-broker cluster into a
// temporary __cluster_metadata-0 directory the way Kafka lays it out (a
// snapshot, then a log segment after it), reads the directory back the way a
// broker loads it at start-up, replays the records into an image, and prints
// what the image says.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

func main() {
	dir, err := os.MkdirTemp("", "kmeta-quickstart")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	if err := run(dir, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// The cluster: metadata.version 3.9-IV0, three brokers in two racks, one
// topic with three partitions.
const (
	metadataVersion = 21 // 3.9-IV0
	appendTime      = 1700000000000
)

var ordersID = record.UUID{0x6f, 0x72, 0x64, 0x65, 0x72, 0x73}

// snapshotRecords is the cluster as a snapshot holds it.
func snapshotRecords() []record.Record {
	mv := record.NewFeatureLevelRecord()
	mv.Name, mv.FeatureLevel = "metadata.version", metadataVersion
	recs := []record.Record{mv}
	for id := int32(1); id <= 3; id++ {
		b := record.NewRegisterBrokerRecord()
		b.BrokerID, b.BrokerEpoch, b.Fenced = id, 100+int64(id), false
		b.IncarnationID = record.UUID{byte(id)}
		rack := fmt.Sprintf("rack-%d", (id+1)%2)
		b.Rack = &rack
		b.EndPoints = []record.BrokerEndpoint{{Name: "PLAINTEXT", Host: fmt.Sprintf("broker-%d", id), Port: 9092, SecurityProtocol: 0}}
		b.LogDirs = []record.UUID{{0xd0, byte(id)}}
		recs = append(recs, b)
	}
	t := record.NewTopicRecord()
	t.Name, t.TopicID = "orders", ordersID
	recs = append(recs, t)
	for p := int32(0); p < 3; p++ {
		pr := record.NewPartitionRecord()
		pr.TopicID, pr.PartitionID = ordersID, p
		pr.Replicas = []int32{p%3 + 1, (p+1)%3 + 1, (p+2)%3 + 1}
		pr.ISR = pr.Replicas
		pr.Directories = []record.UUID{{0xd0, byte(pr.Replicas[0])}, {0xd0, byte(pr.Replicas[1])}, {0xd0, byte(pr.Replicas[2])}}
		pr.Leader, pr.LeaderEpoch, pr.PartitionEpoch = pr.Replicas[0], 0, 0
		recs = append(recs, pr)
	}
	c := record.NewConfigRecord()
	c.ResourceType, c.ResourceName, c.Name = 2, "orders", "retention.ms"
	v := "604800000"
	c.Value = &v
	return append(recs, c)
}

// logRecords is what happened after the snapshot: broker 1 was fenced, and
// in the same batch the controller took it out of every ISR and moved the
// leadership of partition 0 to the next ISR member (Kafka's
// ReplicationControlManager; the leader stays, with no epoch bump, where it
// was not broker 1).
func logRecords() []record.Record {
	fence := record.NewBrokerRegistrationChangeRecord()
	fence.BrokerID, fence.BrokerEpoch, fence.Fenced = 1, 101, 1
	recs := []record.Record{fence}
	for p, isr := range [][]int32{{2, 3}, {2, 3}, {3, 2}} {
		c := record.NewPartitionChangeRecord()
		c.TopicID, c.PartitionID, c.ISR = ordersID, int32(p), isr
		if p == 0 {
			c.Leader = 2
		}
		recs = append(recs, c)
	}
	return recs
}

// write lays the history out as Kafka does: a snapshot ending at offset 100,
// then a segment from offset 100 that starts with the new raft leader's
// LeaderChange control batch.
func write(part string) error {
	snap, err := record.CreateSnapshot(part, record.SnapshotID{EndOffset: 100, Epoch: 1},
		record.SnapshotOptions{LastContainedLogTimestamp: appendTime, Now: func() int64 { return appendTime }})
	if err != nil {
		return err
	}
	for _, r := range snapshotRecords() {
		if err := snap.AppendRecord(r, recordVersion(r)); err != nil {
			return err
		}
	}
	if _, err := snap.Freeze(); err != nil {
		return err
	}

	seg, err := record.CreateSegment(part, 100)
	if err != nil {
		return err
	}
	lc := record.NewLeaderChangeMessage()
	lc.LeaderID, lc.Voters = 3000, []record.LeaderChangeVoter{{VoterID: 3000}}
	lcBody, err := lc.AppendBody(nil, 0)
	if err != nil {
		return err
	}
	if _, err := seg.AppendControl(2, appendTime+1000, record.ControlLeaderChange, lcBody); err != nil {
		return err
	}
	var values [][]byte
	for _, r := range logRecords() {
		v, err := record.Append(nil, r, recordVersion(r))
		if err != nil {
			return err
		}
		values = append(values, v)
	}
	if _, err := seg.AppendData(2, appendTime+2000, values...); err != nil {
		return err
	}
	return seg.Close()
}

// recordVersion is the version Kafka's controller writes at metadata.version
// 3.9-IV0 (spec §3.10): RegisterBrokerRecord v3, PartitionRecord and
// PartitionChangeRecord v1, BrokerRegistrationChangeRecord v0 for fencing.
func recordVersion(r record.Record) int16 {
	switch r.Type() {
	case record.TypeRegisterBrokerRecord:
		return 3
	case record.TypePartitionRecord, record.TypePartitionChangeRecord:
		return 1
	}
	return 0
}

func run(dir string, w io.Writer) error {
	part := filepath.Join(dir, record.MetadataPartitionDir)
	if err := os.Mkdir(part, 0o755); err != nil {
		return err
	}
	if err := write(part); err != nil {
		return err
	}

	// Read the directory as a broker does at start-up: the latest snapshot,
	// then the log after it.
	d, err := record.OpenDir(part, record.Finished)
	if err != nil {
		return err
	}
	defer d.Close()
	fmt.Fprintf(w, "files read: %v\n", d.Files())

	// The snapshot first: a delta from the empty image that keeps only what
	// the snapshot asserts (Kafka's MetadataLoader.loadSnapshot).
	img := image.Empty()
	if s := d.Snapshot(); s != nil {
		dl := delta.NewSnapshot(img)
		if err := replayAll(s.Next, dl, nil); err != nil {
			return err
		}
		dl.FinishSnapshot()
		if img, err = dl.Apply(image.Provenance{LastContainedOffset: s.LastContainedLogOffset(),
			LastContainedEpoch: s.LastContainedLogEpoch(), LastContainedLogTimeMs: s.LastContainedLogTimestamp(), BatchAligned: true}); err != nil {
			return err
		}
		fmt.Fprintf(w, "snapshot %s: %d brokers, %d topics\n", s.ID(), img.Cluster().NumBrokers(), img.Topics().Len())
	}

	// Then the log after it, as one delta.
	dl := delta.New(img)
	prov := img.Provenance()
	if err := replayAll(d.Next, dl, func(b *record.Batch, r record.Record, offset int64) {
		if r == nil {
			fmt.Fprintf(w, "offset %d: control batch (raft epoch %d)\n", b.BaseOffset, b.PartitionLeaderEpoch)
		} else {
			fmt.Fprintf(w, "offset %d: %s\n", offset, r.Type())
		}
		prov = image.Provenance{LastContainedOffset: b.LastOffset(), LastContainedEpoch: b.PartitionLeaderEpoch,
			LastContainedLogTimeMs: b.AppendTime(), BatchAligned: true}
	}); err != nil {
		return err
	}
	if img, err = dl.Apply(prov); err != nil {
		return err
	}

	fmt.Fprintf(w, "image at offset %d (epoch %d)\n", img.Provenance().LastContainedOffset, img.Provenance().LastContainedEpoch)
	for b := range img.Cluster().Brokers() {
		state := "alive"
		if b.Fenced() {
			state = "fenced"
		}
		ep, _ := b.Listener("PLAINTEXT")
		fmt.Fprintf(w, "  broker %d %s:%d %s\n", b.ID(), ep.Host, ep.Port, state)
	}
	t, _ := img.Topics().ByName("orders")
	for i := 0; i < t.NumPartitions(); i++ {
		p := t.PartitionAt(i)
		fmt.Fprintf(w, "  orders-%d leader %d epoch %d replicas %v isr %v\n", i, p.Leader(), p.LeaderEpoch(), p.Replicas(), p.ISR())
	}
	return nil
}

// replayAll replays the data records of every batch next yields into dl,
// telling seen (if set) about each record, and each control batch with a nil
// record.
func replayAll(next func() (*record.Batch, error), dl *delta.Delta, seen func(*record.Batch, record.Record, int64)) error {
	for {
		b, err := next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if b.IsControl() {
			if seen != nil {
				seen(b, nil, b.BaseOffset)
			}
			continue
		}
		recs, err := b.DecodeRecords()
		if err != nil {
			return err
		}
		for _, r := range recs {
			if seen != nil {
				seen(b, r.Record, r.Offset)
			}
			if err := dl.Replay(r.Record); err != nil {
				return err
			}
		}
	}
}
