package delta

import (
	"bytes"
	"slices"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// TopicChanges says which topics the delta touches, relative to its base.
type TopicChanges struct {
	// Created: topics created by a TopicRecord in this delta and still live
	// (TopicsDelta.createdTopicIds). A snapshot re-asserting a topic counts.
	Created []record.UUID
	// Changed: topics of the base image with partitions changed or added
	// (and not re-created).
	Changed []record.UUID
	// Deleted: topics of the base image that the delta removes.
	Deleted []record.UUID
}

func sortIDs(ids []record.UUID) []record.UUID {
	slices.SortFunc(ids, func(a, b record.UUID) int { return bytes.Compare(a[:], b[:]) })
	return ids
}

// Topics reports the created, changed and deleted topics, each sorted by id.
func (d *Delta) Topics() TopicChanges {
	var c TopicChanges
	for id, td := range d.topics {
		if td.base.IsZero() {
			c.Created = append(c.Created, id)
		} else if len(td.changed) > 0 {
			c.Changed = append(c.Changed, id)
		}
	}
	for id := range d.deleted {
		c.Deleted = append(c.Deleted, id)
	}
	sortIDs(c.Created)
	sortIDs(c.Changed)
	sortIDs(c.Deleted)
	return c
}

// ChangedPartitions returns the ids of the partitions of topic id that the
// delta created or changed (TopicDelta.partitionChanges), ascending; for a
// topic created in this delta, every partition.
func (d *Delta) ChangedPartitions(id record.UUID) []int32 {
	td, ok := d.topics[id]
	if !ok {
		return nil
	}
	var out []int32
	if td.base.IsZero() {
		for i := range td.numPartitions() {
			p := td.partitionAt(i)
			out = append(out, p.ID())
		}
		return out
	}
	for p := range td.changed {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// PartitionGrowth is a topic that gained partitions (when a topic doubles
// its partitions, producers hashing keys modulo the old count keep doing
// so until their next metadata refresh, and per-key order is lost across the
// change).
type PartitionGrowth struct {
	TopicID record.UUID
	Name    string
	Before  int
	After   int
}

// PartitionGrowth reports every base topic that keeps its id and ends the
// delta with more partitions than it had, sorted by name.
func (d *Delta) PartitionGrowth() []PartitionGrowth {
	var out []PartitionGrowth
	for id, td := range d.topics {
		bt, ok := d.base.Topics().ByID(id)
		if !ok {
			continue
		}
		if after := td.numPartitions(); after > bt.NumPartitions() {
			out = append(out, PartitionGrowth{TopicID: id, Name: td.name, Before: bt.NumPartitions(), After: after})
		}
	}
	slices.SortFunc(out, func(a, b PartitionGrowth) int { return compareStrings(a.Name, b.Name) })
	return out
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// BrokerChanges says how broker registrations change from the base image to
// the applied image (ClusterDelta.changedBrokers, split by meaning). Each
// list is sorted by broker id.
type BrokerChanges struct {
	// Registered: brokers with a new registration (new id, or a new
	// incarnation or epoch of a registered id).
	Registered []int32
	// Unregistered: brokers of the base image that are gone.
	Unregistered []int32
	// Fenced: brokers unfenced in the base image (or newly registered) that
	// end fenced; Unfenced: the reverse.
	Fenced   []int32
	Unfenced []int32
	// Changed: every broker id whose registration differs in any way.
	Changed []int32
	// Touched: every broker id the delta holds a registration or a removal
	// for (ClusterDelta.changedBrokers' keys): Changed, plus brokers whose
	// records end where the base image was (fenced then unfenced, or
	// registered again exactly as before). Kafka's publishers that ask
	// "did the delta change broker X" (BrokerRegistrationTracker) read
	// these.
	Touched []int32
}

// Brokers reports the broker changes of the delta.
func (d *Delta) Brokers() BrokerChanges {
	if len(d.brokers) == 0 {
		return BrokerChanges{}
	}
	var c BrokerChanges
	ids := make([]int32, 0, len(d.brokers))
	for id := range d.brokers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	c.Touched = ids
	for _, id := range ids {
		nb := d.brokers[id]
		ob, had := d.base.Cluster().Broker(id)
		switch {
		case nb == nil && had:
			c.Unregistered = append(c.Unregistered, id)
			c.Changed = append(c.Changed, id)
			continue
		case nb == nil:
			continue
		}
		if had && nb.Equal(ob) {
			continue
		}
		c.Changed = append(c.Changed, id)
		if !had || ob.Epoch() != nb.Epoch() || ob.IncarnationID() != nb.IncarnationID() {
			c.Registered = append(c.Registered, id)
		}
		wasFenced := !had || ob.Fenced()
		if had && !ob.Fenced() && nb.Fenced() {
			c.Fenced = append(c.Fenced, id)
		}
		if wasFenced && !nb.Fenced() {
			c.Unfenced = append(c.Unfenced, id)
		}
	}
	return c
}

// TopicPartition names a partition by topic id, topic name and index.
type TopicPartition struct {
	TopicID   record.UUID
	Topic     string
	Partition int32
}

// PartitionInfo is a partition a broker now leads or follows, with its new
// registration (LocalReplicaChanges.PartitionInfo).
type PartitionInfo struct {
	TopicPartition
	Registration image.PartitionRegistration
}

// LocalChanges is what one broker must do after the delta
// (TopicsDelta.localChanges → LocalReplicaChanges).
type LocalChanges struct {
	// Deletes: replicas the broker must delete.
	Deletes []TopicPartition
	// Leaders: partitions the broker now leads whose partition epoch
	// changed; ElectedLeaders ⊆ Leaders also changed leader epoch.
	Leaders        []PartitionInfo
	ElectedLeaders []TopicPartition
	// Followers: partitions the broker now follows whose partition epoch
	// changed.
	Followers []PartitionInfo
	// Directories: the broker's replica directory where it changed. As
	// TopicDelta.localChanges compares directory Uuids by reference, a
	// directory a record of the delta rewrote (a PartitionChangeRecord
	// carrying Directories) counts as changed even at the same value.
	// As in Kafka, a replica the broker did not hold before gets no entry
	// unless the partition itself is new to the delta's topic.
	Directories map[TopicPartition]record.UUID
}

// LocalChanges computes what broker must do, following
// TopicsDelta.localChanges: for each changed partition, compared
// with the same partition of that TopicDelta's base topic (absent for a
// topic created by a TopicRecord in this delta, so a snapshot that
// re-asserts a topic reports all its local partitions again), then every
// replica of a deleted base topic. Lists are sorted by topic name then
// partition.
func (d *Delta) LocalChanges(broker int32) LocalChanges {
	lc := LocalChanges{Directories: map[TopicPartition]record.UUID{}}
	for id, td := range d.topics {
		td.localChanges(id, broker, &lc)
	}
	for id := range d.deleted {
		bt, ok := d.base.Topics().ByID(id)
		if !ok {
			continue
		}
		for p := range bt.Partitions() {
			if p.HasReplica(broker) {
				lc.Deletes = append(lc.Deletes, TopicPartition{TopicID: id, Topic: bt.Name(), Partition: p.ID()})
			}
		}
	}
	byTP := compareTP
	slices.SortFunc(lc.Deletes, byTP)
	slices.SortFunc(lc.ElectedLeaders, byTP)
	slices.SortFunc(lc.Leaders, func(a, b PartitionInfo) int { return byTP(a.TopicPartition, b.TopicPartition) })
	slices.SortFunc(lc.Followers, func(a, b PartitionInfo) int { return byTP(a.TopicPartition, b.TopicPartition) })
	return lc
}

// localChanges adds to lc what TopicDelta.localChanges reports for broker
// in topic id: each changed partition compared with the same partition of
// the topic's base (absent for a topic created by a TopicRecord here).
func (td *topicDelta) localChanges(id record.UUID, broker int32, lc *LocalChanges) {
	visit := func(np *image.PartitionRegistration) {
		tp := TopicPartition{TopicID: id, Topic: td.name, Partition: np.ID()}
		var prev *image.PartitionRegistration
		var base image.PartitionRegistration
		if !td.base.IsZero() {
			if bp, ok := td.base.Partition(np.ID()); ok {
				base = bp.Registration()
				prev = &base
			}
		}
		if !np.HasReplica(broker) {
			if prev != nil && prev.HasReplica(broker) {
				lc.Deletes = append(lc.Deletes, tp)
			}
		} else if np.Leader() == broker {
			if prev == nil || prev.PartitionEpoch() != np.PartitionEpoch() {
				lc.Leaders = append(lc.Leaders, PartitionInfo{tp, *np})
				if prev == nil || prev.LeaderEpoch() != np.LeaderEpoch() {
					lc.ElectedLeaders = append(lc.ElectedLeaders, tp)
				}
			}
		} else if prev == nil || prev.PartitionEpoch() != np.PartitionEpoch() {
			lc.Followers = append(lc.Followers, PartitionInfo{tp, *np})
		}
		nd, inNew := np.DirectoryOf(broker)
		if prev == nil {
			if inNew {
				lc.setDir(tp, nd)
			}
		} else if pd, inPrev := prev.DirectoryOf(broker); inPrev && inNew && dirChanged(td, prev, np, broker, pd, nd) {
			lc.setDir(tp, nd)
		}
	}
	if td.base.IsZero() {
		for i := range td.numPartitions() {
			p := td.partitionAt(i)
			visit(&p)
		}
		return
	}
	for pid := range td.changed {
		if p, ok := td.partition(pid); ok {
			visit(&p)
		}
	}
}

// dirChanged says whether TopicDelta.localChanges sees broker's directory
// in partition np as changed from prev (pd to nd). Kafka compares the
// directory Uuid objects by reference: a record of the delta that carries
// Directories gives every replica new objects; without one the partition
// keeps its array (PartitionRegistration.merge), so a replica that moved to
// another position in the replica list reads another object; and arrays
// that PartitionRegistration.defaultToMigrating fills (records without
// directories, as before 3.7-IV2) share one MIGRATING object.
func dirChanged(td *topicDelta, prev, np *image.PartitionRegistration, broker int32, pd, nd record.UUID) bool {
	if pd != nd {
		return true
	}
	if _, ok := td.dirsRewritten[np.ID()]; ok {
		return true
	}
	if nd == record.DirectoryMigrating || prev.NumReplicas() != np.NumReplicas() {
		return false
	}
	return replicaIndex(prev, broker) != replicaIndex(np, broker)
}

func replicaIndex(p *image.PartitionRegistration, broker int32) int {
	for i := range p.NumReplicas() {
		if p.Replica(i) == broker {
			return i
		}
	}
	return -1
}

func (lc *LocalChanges) setDir(tp TopicPartition, dir record.UUID) {
	if lc.Directories == nil {
		lc.Directories = map[TopicPartition]record.UUID{}
	}
	lc.Directories[tp] = dir
}
