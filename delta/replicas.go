package delta

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// ReplicaDelete is a replica the broker stops and deletes
// (ReplicaManager.applyDelta: StopPartition with deleteLocalLog true).
type ReplicaDelete struct {
	TopicPartition
	// DeleteRemoteLog: the topic was deleted and the broker led the
	// partition in the base image, so the broker also deletes the
	// partition's tiered (remote) log.
	DeleteRemoteLog bool
}

// LeaderTransition is a partition the broker now leads with a new
// partition epoch (ReplicaManager.applyLocalLeadersDelta →
// Partition.makeLeader).
type LeaderTransition struct {
	PartitionInfo
	// Elected: the leader epoch changed too (LocalReplicaChanges.electedLeaders).
	Elected bool
}

// FollowerTransition is a partition the broker now follows with a new
// partition epoch (ReplicaManager.applyLocalFollowersDelta →
// Partition.makeFollower).
type FollowerTransition struct {
	PartitionInfo
	// LeaderChanged: the leader differs from the one the broker's replica
	// had (a replica new to the broker has none).
	LeaderChanged bool
	// NewLeaderEpoch: the leader epoch is above the one the broker's
	// replica had (-1 for a replica new to it), Partition.makeFollower's
	// result: the fetcher is restarted.
	NewLeaderEpoch bool
	// StopFetching: the broker is in controlled shutdown and the partition
	// has no leader or the broker is not in its ISR; the replica is
	// stopped, its log kept (StopPartition with deleteLocalLog false).
	StopFetching bool
	// StartFetching: NewLeaderEpoch and not StopFetching; the broker
	// (re)starts fetching from the leader.
	StartFetching bool
}

// ReplicaChanges is what ReplicaManager.applyDelta does with a delta on
// one broker, in its order: deletes first, then leaders, then followers,
// then directory assignments.
type ReplicaChanges struct {
	Deletes   []ReplicaDelete
	Leaders   []LeaderTransition
	Followers []FollowerTransition
	// Directories is LocalReplicaChanges.directoryIds (see
	// LocalChanges.Directories); applyDelta acts on them only when
	// AssignDirectories.
	Directories map[TopicPartition]record.UUID
	// AssignDirectories: the new image's metadata.version supports
	// directory assignment (MetadataVersion.isDirectoryAssignmentSupported).
	AssignDirectories bool
}

// ReplicaChanges computes what broker's ReplicaManager.applyDelta does
// with the delta, given whether the broker is in controlled shutdown
// (ReplicaManager.beginControlledShutdown). The broker's Partition objects
// are taken to hold the base image's state of the replicas it had there
// (true of a broker that applied every earlier delta). Lists are sorted by
// topic name, topic id, partition.
func (d *Delta) ReplicaChanges(broker int32, inControlledShutdown bool) ReplicaChanges {
	lc := d.LocalChanges(broker)
	rc := ReplicaChanges{Directories: lc.Directories}
	mv := d.base.Features().EffectiveMetadataVersion()
	if d.mv != 0 {
		mv = d.mv
	}
	rc.AssignDirectories = mv.DirectoryAssignmentSupported()
	for _, tp := range lc.Deletes {
		del := ReplicaDelete{TopicPartition: tp}
		if bt, ok := d.base.Topics().ByName(tp.Topic); ok && d.topicWasDeleted(bt.ID()) {
			if p, ok := bt.Partition(tp.Partition); ok && p.Leader() == broker {
				del.DeleteRemoteLog = true
			}
		}
		rc.Deletes = append(rc.Deletes, del)
	}
	// ElectedLeaders ⊆ Leaders, both sorted alike: one walk pairs them.
	rc.Leaders = make([]LeaderTransition, len(lc.Leaders))
	e := 0
	for i, l := range lc.Leaders {
		rc.Leaders[i] = LeaderTransition{PartitionInfo: l}
		if e < len(lc.ElectedLeaders) && lc.ElectedLeaders[e] == l.TopicPartition {
			rc.Leaders[i].Elected = true
			e++
		}
	}
	for _, f := range lc.Followers {
		ft := FollowerTransition{PartitionInfo: f}
		prevLeader, prevEpoch, held := int32(-1), int32(-1), false
		if p, ok := d.base.Topics().Partition(f.TopicID, f.Partition); ok && p.HasReplica(broker) {
			prevLeader, prevEpoch, held = p.Leader(), p.LeaderEpoch(), true
		}
		np := &f.Registration
		ft.LeaderChanged = !held || prevLeader != np.Leader()
		ft.NewLeaderEpoch = np.LeaderEpoch() > prevEpoch
		if inControlledShutdown && (np.Leader() == image.NoLeader || !np.InISR(broker)) {
			ft.StopFetching = true
		} else if ft.NewLeaderEpoch {
			ft.StartFetching = true
		}
		rc.Followers = append(rc.Followers, ft)
	}
	return rc
}

// topicWasDeleted says whether the base topic id is deleted by the delta
// (TopicsDelta.topicWasDeleted, asked by name of the base image's topic).
func (d *Delta) topicWasDeleted(id record.UUID) bool {
	_, ok := d.deleted[id]
	return ok
}

// The internal topics whose leaders host a coordinator
// (BrokerMetadataPublisher.onMetadataUpdate's three updateCoordinator calls).
const (
	GroupMetadataTopic    = "__consumer_offsets"
	TransactionStateTopic = "__transaction_state"
	ShareGroupStateTopic  = "__share_group_state"
)

// CoordinatorChange is one call BrokerMetadataPublisher.updateCoordinator
// makes: an election (onElection with the leader epoch) or a resignation
// (onResignation, with the leader epoch or without one).
type CoordinatorChange struct {
	// Topic is GroupMetadataTopic, TransactionStateTopic or
	// ShareGroupStateTopic.
	Topic     string
	Partition int32
	// Elected: onElection; otherwise onResignation.
	Elected bool
	// LeaderEpoch is the partition's new leader epoch; HasEpoch is false
	// for a resignation without one (the topic or the broker's replica was
	// deleted: the coordinator's epoch is not bumped).
	LeaderEpoch int32
	HasEpoch    bool
}

// Coordinators computes the elections and resignations broker's group,
// transaction and share coordinators receive for the delta, as
// BrokerMetadataPublisher.updateCoordinator makes them, topic by topic in
// that order: if the base image's topic is deleted, a resignation without
// epoch for each partition the broker led there (only those: a broker that
// only followed resigns nothing); then, if the new image's topic of that
// name is in the delta, its TopicDelta.localChanges: a resignation without
// epoch per replica deleted, an election per elected leader, and a
// resignation with the leader epoch per partition the broker now follows.
// Within each of these steps, calls are sorted by partition (Kafka walks
// hash maps there; each partition is independent).
func (d *Delta) Coordinators(broker int32) []CoordinatorChange {
	var out []CoordinatorChange
	for _, name := range [...]string{GroupMetadataTopic, TransactionStateTopic, ShareGroupStateTopic} {
		out = d.coordinator(out, name, broker)
	}
	return out
}

func (d *Delta) coordinator(out []CoordinatorChange, name string, broker int32) []CoordinatorChange {
	if bt, ok := d.base.Topics().ByName(name); ok && d.topicWasDeleted(bt.ID()) {
		for p := range bt.Partitions() {
			if p.Leader() == broker {
				out = append(out, CoordinatorChange{Topic: name, Partition: p.ID()})
			}
		}
	}
	id, ok := d.liveTopicID(name)
	if !ok {
		return out
	}
	td, ok := d.topics[id]
	if !ok {
		return out
	}
	var lc LocalChanges // Directories stays nil: updateCoordinator does not read them
	td.localChanges(id, broker, &lc)
	byPart := func(a, b TopicPartition) int { return cmp.Compare(a.Partition, b.Partition) }
	slices.SortFunc(lc.Deletes, byPart)
	slices.SortFunc(lc.ElectedLeaders, byPart)
	slices.SortFunc(lc.Leaders, func(a, b PartitionInfo) int { return byPart(a.TopicPartition, b.TopicPartition) })
	slices.SortFunc(lc.Followers, func(a, b PartitionInfo) int { return byPart(a.TopicPartition, b.TopicPartition) })
	for _, tp := range lc.Deletes {
		out = append(out, CoordinatorChange{Topic: name, Partition: tp.Partition})
	}
	e := 0
	for _, l := range lc.Leaders { // ElectedLeaders ⊆ Leaders, both by partition
		if e < len(lc.ElectedLeaders) && lc.ElectedLeaders[e] == l.TopicPartition {
			out = append(out, CoordinatorChange{Topic: name, Partition: l.Partition, Elected: true,
				LeaderEpoch: l.Registration.LeaderEpoch(), HasEpoch: true})
			e++
		}
	}
	for _, f := range lc.Followers {
		out = append(out, CoordinatorChange{Topic: name, Partition: f.Partition,
			LeaderEpoch: f.Registration.LeaderEpoch(), HasEpoch: true})
	}
	return out
}

// compareTP orders partitions by topic name, topic id, then index.
func compareTP(a, b TopicPartition) int {
	if c := compareStrings(a.Topic, b.Topic); c != 0 {
		return c
	}
	if c := bytes.Compare(a.TopicID[:], b.TopicID[:]); c != 0 {
		return c
	}
	return cmp.Compare(a.Partition, b.Partition)
}
