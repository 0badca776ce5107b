package delta

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

func uuid(b byte) record.UUID { return record.UUID{0: b, 15: b} }

func topicRec(name string, id record.UUID) *record.TopicRecord {
	r := record.NewTopicRecord()
	r.Name, r.TopicID = name, id
	return r
}

func partRec(id record.UUID, p int32, replicas []int32, leader int32) *record.PartitionRecord {
	r := record.NewPartitionRecord()
	r.TopicID, r.PartitionID = id, p
	r.Replicas, r.ISR = replicas, replicas
	r.RemovingReplicas, r.AddingReplicas = []int32{}, []int32{}
	r.Leader, r.LeaderEpoch, r.PartitionEpoch = leader, 0, 0
	return r
}

func brokerRec(id int32, epoch int64) *record.RegisterBrokerRecord {
	r := record.NewRegisterBrokerRecord()
	r.BrokerID, r.BrokerEpoch = id, epoch
	r.IncarnationID = uuid(byte(id))
	r.EndPoints = []record.BrokerEndpoint{{Name: "PLAINTEXT", Host: "b", Port: 9092}}
	r.Rack = nil
	return r
}

func mustApply(t testing.TB, d *Delta) *image.Image {
	t.Helper()
	img, err := d.Apply(image.EmptyProvenance)
	require.NoError(t, err)
	return img
}

func build(t testing.TB, base *image.Image, recs ...record.Record) (*Delta, *image.Image) {
	t.Helper()
	d := New(base)
	for _, r := range recs {
		require.NoError(t, d.Replay(r))
	}
	return d, mustApply(t, d)
}

var fooID = uuid(1)

func baseImage(t testing.TB) *image.Image {
	_, img := build(t, nil, brokerRec(0, 10), brokerRec(1, 11), brokerRec(2, 12),
		topicRec("foo", fooID), partRec(fooID, 0, []int32{0, 1, 2}, 0), partRec(fooID, 1, []int32{1, 2, 0}, 1),
		topicRec("bar", uuid(2)), partRec(uuid(2), 0, []int32{2, 0, 1}, 2))
	return img
}

func requireSameRecords(t *testing.T, a, b *image.Image) {
	t.Helper()
	ra, err := a.Records(image.WriteOptions{})
	require.NoError(t, err)
	rb, err := b.Records(image.WriteOptions{})
	require.NoError(t, err)
	require.Equal(t, len(ra), len(rb))
	for i := range ra {
		ja, _ := record.AppendEnvelopeJSON(nil, ra[i].Record, ra[i].Version)
		jb, _ := record.AppendEnvelopeJSON(nil, rb[i].Record, rb[i].Version)
		require.Equal(t, string(ja), string(jb))
	}
}

// TestStructuralSharing: a delta changing one partition shares every other
// topic object, and every untouched component, with its base.
func TestStructuralSharing(t *testing.T) {
	base := baseImage(t)
	pc := record.NewPartitionChangeRecord()
	pc.TopicID, pc.PartitionID, pc.ISR = fooID, 0, []int32{0, 1}
	_, img := build(t, base, pc)
	oldBar, _ := base.Topic("bar")
	newBar, _ := img.Topic("bar")
	require.True(t, oldBar == newBar, "an unchanged topic is shared")
	oldFoo, _ := base.Topic("foo")
	newFoo, _ := img.Topic("foo")
	require.True(t, oldFoo != newFoo, "a changed topic is new")
	p1, ok := oldFoo.Partition(1)
	require.True(t, ok && p1 == oldFoo.PartitionAt(1), "Partition and PartitionAt hand out the same partition")
	require.Same(t, base.Cluster(), img.Cluster())
	require.Same(t, base.Configs(), img.Configs())
	require.Same(t, base.Features(), img.Features())
}

// TestApplyTwice: Apply may be called repeatedly, with replays between,
// and earlier images never change (Kafka's JMH benchmarks call apply
// repeatedly on one delta).
func TestApplyTwice(t *testing.T) {
	base := baseImage(t)
	d := New(base)
	pc := record.NewPartitionChangeRecord()
	pc.TopicID, pc.PartitionID, pc.ISR = fooID, 0, []int32{0, 1}
	require.NoError(t, d.Replay(pc))
	a := mustApply(t, d)
	b := mustApply(t, d)
	requireSameRecords(t, a, b)
	pc2 := record.NewPartitionChangeRecord()
	pc2.TopicID, pc2.PartitionID, pc2.ISR = fooID, 0, []int32{0}
	require.NoError(t, d.Replay(pc2))
	c := mustApply(t, d)
	pa, _ := a.Topics().Partition(fooID, 0)
	pc3, _ := c.Topics().Partition(fooID, 0)
	require.Equal(t, []int32{0, 1}, pa.ISR())
	require.Equal(t, []int32{0}, pc3.ISR())
}

// TestLookupsAllocateNothing: the request-handler lookups allocate nothing.
func TestLookupsAllocateNothing(t *testing.T) {
	img := baseImage(t)
	n := testing.AllocsPerRun(100, func() {
		tp, _ := img.Topic("foo")
		p, _ := tp.Partition(1)
		_ = p.Replica(0) + p.ISRMember(0)
		_, _, _ = img.Leader("foo", 0)
		_, _ = img.LeaderEndpoint("foo", 0, "PLAINTEXT")
		_, _ = img.TopicByID(fooID)
		_, _ = img.Cluster().BrokerEndpoint(1, "PLAINTEXT")
	})
	require.Zero(t, n)
}

func mustUUID(t *testing.T, s string) record.UUID {
	u, err := record.ParseUUID(s)
	require.NoError(t, err)
	return u
}

// TestRemoveAndRecreateSameTopic: a RemoveTopicRecord then a TopicRecord
// with the same id and name in one delta (TopicsDelta.apply deletes, then
// puts) leaves the topic findable by name and by id, with only the new
// partitions; the same with a new name frees the old one.
func TestRemoveAndRecreateSameTopic(t *testing.T) {
	base := baseImage(t)
	rm := record.NewRemoveTopicRecord()
	rm.TopicID = fooID
	_, img := build(t, base, rm, topicRec("foo", fooID), partRec(fooID, 0, []int32{2}, 2))
	foo, ok := img.Topic("foo")
	require.True(t, ok)
	require.Equal(t, fooID, foo.ID())
	require.Equal(t, 1, foo.NumPartitions())
	byID, ok := img.TopicByID(fooID)
	require.True(t, ok)
	require.True(t, foo == byID, "ByName and ByID hand out the same topic")
	require.Equal(t, 2, img.Topics().Len())

	_, img = build(t, base, rm, topicRec("foo2", fooID))
	_, ok = img.Topic("foo")
	require.False(t, ok)
	foo2, ok := img.Topic("foo2")
	require.True(t, ok)
	require.Equal(t, fooID, foo2.ID())
}

// TestRecordErrorOneFactPerLayer: a record MetadataDelta.replay rejects
// comes back as a *RecordError carrying the offset ReplayAt was given (-1
// from Replay), the record and the cause, naming the record's type once; a
// nil record is a *RecordError wrapping ErrNilRecord and ErrRejected, not a
// panic.
func TestRecordErrorOneFactPerLayer(t *testing.T) {
	d := New(baseImage(t))
	bad := partRec(uuid(9), 0, []int32{0}, 0) // unknown topic id
	err := d.ReplayAt(41, bad)
	var re *RecordError
	require.ErrorAs(t, err, &re)
	require.Equal(t, int64(41), re.Offset)
	require.Same(t, bad, re.Record.(*record.PartitionRecord))
	require.True(t, errors.Is(err, ErrRejected))
	msg := err.Error()
	require.True(t, strings.HasPrefix(msg, "delta: PARTITION_RECORD at offset 41 {"), msg)
	require.Equal(t, 1, strings.Count(msg, "PARTITION_RECORD"), msg)
	require.Equal(t, 1, strings.Count(msg, "offset"), msg)
	require.Contains(t, msg, "unknown topic id")

	err = d.Replay(bad)
	require.ErrorAs(t, err, &re)
	require.Equal(t, int64(-1), re.Offset)
	require.NotContains(t, err.Error(), "offset")

	err = d.ReplayAt(7, nil)
	require.ErrorAs(t, err, &re)
	require.Nil(t, re.Record)
	require.Equal(t, int64(7), re.Offset)
	require.True(t, errors.Is(err, ErrNilRecord))
	require.True(t, errors.Is(err, ErrRejected))
	require.Equal(t, "delta: record at offset 7: nil record", err.Error())
}
