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

// TestPartitionRegistrationMergeSentinels: null lists, Leader -2 and
// LeaderRecoveryState -1 mean unchanged; any record bumps the partition
// epoch; an explicit leader (even the same one, even -1) bumps the leader
// epoch (PartitionRegistration.merge).
func TestPartitionRegistrationMergeSentinels(t *testing.T) {
	base := baseImage(t)
	noop := record.NewPartitionChangeRecord()
	noop.TopicID, noop.PartitionID = fooID, 0
	same := record.NewPartitionChangeRecord()
	same.TopicID, same.PartitionID, same.Leader = fooID, 0, 0
	none := record.NewPartitionChangeRecord()
	none.TopicID, none.PartitionID, none.Leader, none.ISR = fooID, 0, -1, []int32{2}
	_, img := build(t, base, noop, same, none)
	p, ok := img.Topics().Partition(fooID, 0)
	require.True(t, ok)
	require.Equal(t, int32(3), p.PartitionEpoch())
	require.Equal(t, int32(2), p.LeaderEpoch())
	require.Equal(t, int32(-1), p.Leader())
	require.Equal(t, []int32{2}, p.ISR())
	require.Equal(t, []int32{0, 1, 2}, p.Replicas())
	require.Equal(t, "PartitionRegistration(replicas=[0, 1, 2], directories=[AAAAAAAAAAAAAAAAAAAAAA, AAAAAAAAAAAAAAAAAAAAAA, AAAAAAAAAAAAAAAAAAAAAA], isr=[2], removingReplicas=[], addingReplicas=[], elr=[], lastKnownElr=[], leader=-1, leaderRecoveryState=RECOVERED, leaderEpoch=2, partitionEpoch=3)", p.String())
	// the base image never changes
	p0, _ := base.Topics().Partition(fooID, 0)
	require.Equal(t, int32(0), p0.PartitionEpoch())
}

// TestRejectedRecordLeavesDeltaUnchanged: records contradicting the image
// return a *RecordError naming the record, and the delta is as before.
func TestRejectedRecordLeavesDeltaUnchanged(t *testing.T) {
	base := baseImage(t)
	d := New(base)
	pc := record.NewPartitionChangeRecord()
	pc.TopicID, pc.PartitionID, pc.Leader = fooID, 1, 2
	require.NoError(t, d.Replay(pc))
	before := mustApply(t, d)
	bad := []record.Record{
		partRec(uuid(9), 0, []int32{0}, 0), // unknown topic id
		func() record.Record {
			r := record.NewPartitionChangeRecord()
			r.TopicID, r.PartitionID = fooID, 7
			return r
		}(),
		topicRec("foo", uuid(9)), // live name, other id
		topicRec("baz", fooID),   // live id, other name
		func() record.Record { r := record.NewFenceBrokerRecord(); r.ID, r.Epoch = 7, 1; return r }(),
		func() record.Record { r := record.NewFenceBrokerRecord(); r.ID, r.Epoch = 1, 99; return r }(),
		func() record.Record {
			r := record.NewBrokerRegistrationChangeRecord()
			r.BrokerID, r.BrokerEpoch, r.Fenced = 1, 11, 5
			return r
		}(),
		func() record.Record { r := record.NewRemoveTopicRecord(); r.TopicID = uuid(9); return r }(),
		func() record.Record { r := record.NewRemoveAccessControlEntryRecord(); r.ID = uuid(9); return r }(),
		func() record.Record {
			r := record.NewFeatureLevelRecord()
			r.Name, r.FeatureLevel = "metadata.version", 99
			return r
		}(),
		func() record.Record { r := record.NewClearElrRecord(); r.TopicName = "nope"; return r }(),
	}
	for _, r := range bad {
		err := d.Replay(r)
		require.Error(t, err, "%s", r.Type())
		require.True(t, errors.Is(err, ErrRejected))
		var re *RecordError
		require.ErrorAs(t, err, &re)
		require.Contains(t, err.Error(), r.Type().String())
	}
	after := mustApply(t, d)
	requireSameRecords(t, before, after)
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
	require.Same(t, oldBar, newBar)
	oldFoo, _ := base.Topic("foo")
	newFoo, _ := img.Topic("foo")
	require.NotSame(t, oldFoo, newFoo)
	require.Same(t, oldFoo.PartitionAt(1), oldFoo.PartitionAt(1))
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

// TestScramDeltaRemoveAndAddSameMechanism: a Kafka quirk fixed. Kafka's
// ScramDelta.apply can lose an add when a removal empties the mechanism in
// the same delta; kmeta applies every change, then prunes.
func TestScramDeltaRemoveAndAddSameMechanism(t *testing.T) {
	add := func(user string) *record.UserScramCredentialRecord {
		r := record.NewUserScramCredentialRecord()
		r.Name, r.Mechanism, r.Iterations = user, image.ScramSHA256, 4096
		r.Salt, r.StoredKey, r.ServerKey = []byte("s"), []byte("k"), []byte("v")
		return r
	}
	_, base := build(t, nil, add("alice"))
	rm := record.NewRemoveUserScramCredentialRecord()
	rm.Name, rm.Mechanism = "alice", image.ScramSHA256
	_, img := build(t, base, rm, add("bob"))
	_, okA := img.Scram().Get(image.ScramKey{Mechanism: image.ScramSHA256, User: "alice"})
	_, okB := img.Scram().Get(image.ScramKey{Mechanism: image.ScramSHA256, User: "bob"})
	require.False(t, okA)
	require.True(t, okB)
}

// TestConfigurationsDeltaRemoveTopicClearsNewConfigs: a Kafka quirk fixed. Kafka
// keeps configs written in the same delta for a topic created and deleted
// in it; kmeta deletes them.
func TestConfigurationsDeltaRemoveTopicClearsNewConfigs(t *testing.T) {
	id := uuid(5)
	cfg := record.NewConfigRecord()
	v := "1"
	cfg.ResourceType, cfg.ResourceName, cfg.Name, cfg.Value = int8(image.ConfigTopic), "t", "retention.ms", &v
	rm := record.NewRemoveTopicRecord()
	rm.TopicID = id
	_, img := build(t, nil, topicRec("t", id), cfg, rm)
	require.Equal(t, 0, img.Configs().Len())
	require.Equal(t, 0, img.Topics().Len())
}

// TestConfigurationsDeltaNullDeletes: a ConfigRecord with a null value
// deletes the key; a resource left empty is dropped.
func TestConfigurationsDeltaNullDeletes(t *testing.T) {
	set := record.NewConfigRecord()
	v := "x"
	set.ResourceType, set.ResourceName, set.Name, set.Value = int8(image.ConfigBroker), "", "k", &v
	_, base := build(t, nil, set)
	got, ok := base.Configs().Get(image.ConfigResource{Type: image.ConfigBroker}, "k")
	require.True(t, ok)
	require.Equal(t, "x", got)
	del := record.NewConfigRecord()
	del.ResourceType, del.ResourceName, del.Name, del.Value = int8(image.ConfigBroker), "", "k", nil
	_, img := build(t, base, del)
	require.Equal(t, 0, img.Configs().Len())
}

// TestTopicsDeltaClearElr: ClearElrRecord empties both ELR lists and bumps
// the partition epoch only of partitions that had some (TopicsDelta,
// KAFKA-18649).
func TestTopicsDeltaClearElr(t *testing.T) {
	id := uuid(3)
	p0 := partRec(id, 0, []int32{0, 1}, 0)
	p0.EligibleLeaderReplicas, p0.LastKnownELR = []int32{1}, []int32{}
	p1 := partRec(id, 1, []int32{0, 1}, 0)
	_, base := build(t, nil, topicRec("e", id), p0, p1)
	clr := record.NewClearElrRecord()
	_, img := build(t, base, clr)
	a, _ := img.Topics().Partition(id, 0)
	b, _ := img.Topics().Partition(id, 1)
	require.Empty(t, a.ELR())
	require.Equal(t, int32(1), a.PartitionEpoch())
	require.Equal(t, int32(0), b.PartitionEpoch())
}

// TestTopicsDeltaLocalChanges covers TopicsDelta.localChanges: leaders,
// elected leaders, followers, deletes, and directories compared by value.
func TestTopicsDeltaLocalChanges(t *testing.T) {
	base := baseImage(t)
	d := New(base)
	move := record.NewPartitionChangeRecord() // broker 0 loses foo-1
	move.TopicID, move.PartitionID, move.Replicas, move.ISR, move.Leader = fooID, 1, []int32{1, 2}, []int32{1, 2}, 1
	lead := record.NewPartitionChangeRecord() // broker 0 leads bar-0
	lead.TopicID, lead.PartitionID, lead.Leader = uuid(2), 0, 0
	require.NoError(t, d.Replay(move))
	require.NoError(t, d.Replay(lead))
	require.NoError(t, d.Replay(topicRec("new", uuid(4))))
	require.NoError(t, d.Replay(partRec(uuid(4), 0, []int32{1, 0}, 1)))
	lc := d.LocalChanges(0)
	require.Len(t, lc.Deletes, 1)
	require.Equal(t, int32(1), lc.Deletes[0].Partition)
	require.Len(t, lc.Leaders, 1)
	require.Equal(t, "bar", lc.Leaders[0].Topic)
	require.Len(t, lc.ElectedLeaders, 1)
	require.Len(t, lc.Followers, 1)
	require.Equal(t, "new", lc.Followers[0].Topic)
	require.Len(t, lc.Directories, 1) // the new topic's partition only
	tc := d.Topics()
	require.Equal(t, []record.UUID{uuid(4)}, tc.Created)
	require.Len(t, tc.Changed, 2)
}

// TestPartitionGrowth: scenario 3, a topic going from 2 to 3 partitions.
func TestPartitionGrowth(t *testing.T) {
	base := baseImage(t)
	d, _ := build(t, base, partRec(fooID, 2, []int32{2, 0, 1}, 2))
	g := d.PartitionGrowth()
	require.Equal(t, []PartitionGrowth{{TopicID: fooID, Name: "foo", Before: 2, After: 3}}, g)
}

// TestClusterDeltaBrokerChanges: registration, fencing (Fence/Unfence and
// BrokerRegistrationChangeRecord with epoch checks) and unregistration.
func TestClusterDeltaBrokerChanges(t *testing.T) {
	base := baseImage(t) // all registered fenced (RegisterBrokerRecord default)
	unf := record.NewUnfenceBrokerRecord()
	unf.ID, unf.Epoch = 0, 10
	chg := record.NewBrokerRegistrationChangeRecord()
	chg.BrokerID, chg.BrokerEpoch, chg.Fenced, chg.InControlledShutdown = 1, 11, -1, 1
	unr := record.NewUnregisterBrokerRecord()
	unr.BrokerID, unr.BrokerEpoch = 2, 12
	d, img := build(t, base, unf, chg, unr, brokerRec(3, 13))
	c := d.Brokers()
	require.Equal(t, []int32{3}, c.Registered)
	require.Equal(t, []int32{2}, c.Unregistered)
	require.Equal(t, []int32{0, 1}, c.Unfenced)
	b1, _ := img.Cluster().Broker(1)
	require.True(t, b1.InControlledShutdown())
	require.Equal(t, 3, img.Cluster().NumBrokers())
	var alive []int32
	for b := range img.Cluster().AliveBrokers() {
		alive = append(alive, b.ID())
	}
	require.Equal(t, []int32{0, 1}, alive)
}

// TestSnapshotDeletesWhatIsNotReasserted: MetadataDelta.finishSnapshot.
func TestSnapshotDeletesWhatIsNotReasserted(t *testing.T) {
	base := baseImage(t)
	d := NewSnapshot(base)
	require.NoError(t, d.Replay(brokerRec(0, 10)))
	require.NoError(t, d.Replay(topicRec("foo", uuid(7)))) // same name, new id
	require.NoError(t, d.Replay(partRec(uuid(7), 0, []int32{0}, 0)))
	d.FinishSnapshot()
	img := mustApply(t, d)
	require.Equal(t, 1, img.Cluster().NumBrokers())
	require.Equal(t, 1, img.Topics().Len())
	foo, ok := img.Topic("foo")
	require.True(t, ok)
	require.Equal(t, uuid(7), foo.ID())
	require.ElementsMatch(t, []record.UUID{fooID, uuid(2)}, d.Topics().Deleted)
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
	require.Same(t, foo, byID)
	require.Equal(t, 2, img.Topics().Len())

	_, img = build(t, base, rm, topicRec("foo2", fooID))
	_, ok = img.Topic("foo")
	require.False(t, ok)
	foo2, ok := img.Topic("foo2")
	require.True(t, ok)
	require.Equal(t, fooID, foo2.ID())
}

// TestSnapshotGivesNameToAnotherID: a snapshot delta may give a base
// topic's name to a new id and the base id a new name
// (MetadataLoader.loadSnapshot replaces the image); both indexes follow.
func TestSnapshotGivesNameToAnotherID(t *testing.T) {
	base := baseImage(t)
	d := NewSnapshot(base)
	for _, r := range []record.Record{
		topicRec("foo", uuid(9)), partRec(uuid(9), 0, []int32{0}, 0),
		topicRec("renamed", fooID), partRec(fooID, 0, []int32{1}, 1),
	} {
		require.NoError(t, d.Replay(r))
	}
	d.FinishSnapshot()
	img := mustApply(t, d)
	foo, ok := img.Topic("foo")
	require.True(t, ok)
	require.Equal(t, uuid(9), foo.ID())
	renamed, ok := img.Topic("renamed")
	require.True(t, ok)
	require.Equal(t, fooID, renamed.ID())
	_, ok = img.Topic("bar")
	require.False(t, ok)
	require.Equal(t, 2, img.Topics().Len())
	id, ok := img.Topics().IDOf("foo")
	require.True(t, ok)
	require.Equal(t, uuid(9), id)
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
