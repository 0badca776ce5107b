package image

import (
	"fmt"
	"iter"
	"slices"
	"sync/atomic"

	"github.com/kmeta-go/kmeta/record"
)

// Topic is one topic and its partitions, Kafka's TopicImage. A *Topic held
// by an image is never modified; the next image shares it when the topic did
// not change.
//
// A frozen Topic, its partitions and its name are one allocation of
// pointer-free memory, which the garbage collector keeps alive as a whole
// but never scans: a *Topic, *Partition or name a caller holds keeps the
// block alive. Never assign through a *Topic or *Partition the image handed
// out; the image cannot stop it, and a value copied in from elsewhere could
// point at memory the collector frees.
type Topic struct {
	name     string
	id       record.UUID
	parts    []Partition // sorted by partition id, unique
	nameHash uint32      // hashString(name), the name index's hash
}

// Name is the topic name.
func (t *Topic) Name() string { return t.name }

// ID is the topic id.
func (t *Topic) ID() record.UUID { return t.id }

// NumPartitions is the number of partitions.
func (t *Topic) NumPartitions() int { return len(t.parts) }

// Partition returns partition id. The pointer is to the image's own,
// read-only value: it allocates nothing and stays valid forever.
func (t *Topic) Partition(id int32) (*Partition, bool) {
	if i, ok := findPartition(t.parts, id); ok {
		return &t.parts[i], true
	}
	return nil, false
}

// PartitionAt returns the i-th partition in ascending id order.
func (t *Topic) PartitionAt(i int) *Partition { return &t.parts[i] }

// Partitions iterates over the partitions in ascending id order.
func (t *Topic) Partitions() iter.Seq[*Partition] {
	return func(yield func(*Partition) bool) {
		for i := range t.parts {
			if !yield(&t.parts[i]) {
				return
			}
		}
	}
}

// Topics is every topic by id and by name, Kafka's TopicsImage. Both indexes
// are persistent maps (topicMap: small arrays of slots under a copy-on-write
// directory whose depth follows the number of topics), so an image that
// changes k topics shares everything else with the image before it. Both
// map to the *Topic, as TopicsImage's topicsById and topicsByName both hold
// the TopicImage.
type Topics struct {
	topicIndexes
	order atomic.Pointer[nameOrder] // the topics by name, computed on first use
}

// topicIndexes is the two indexes of a Topics value.
type topicIndexes struct {
	byID   topicMap
	byName topicMap
}

var emptyTopics = &Topics{topicIndexes: topicIndexes{byName: topicMap{names: true}}}

// Len is the number of topics.
func (t *Topics) Len() int { return t.byID.Len() }

// ByID returns the topic with id.
func (t *Topics) ByID(id record.UUID) (*Topic, bool) { return t.byID.getID(id) }

// ByName returns the topic named name.
func (t *Topics) ByName(name string) (*Topic, bool) { return t.byName.getName(name) }

// IDOf returns the id of the topic named name.
func (t *Topics) IDOf(name string) (record.UUID, bool) {
	if tp, ok := t.byName.getName(name); ok {
		return tp.id, true
	}
	return record.UUID{}, false
}

// Partition returns partition p of topic id.
func (t *Topics) Partition(id record.UUID, p int32) (*Partition, bool) {
	tp, ok := t.byID.getID(id)
	if !ok {
		return nil, false
	}
	return tp.Partition(p)
}

// All iterates over the topics in the id index's order (not sorted).
func (t *Topics) All() iter.Seq[*Topic] {
	return func(yield func(*Topic) bool) {
		for tp := range t.byID.All() {
			if !yield(tp) {
				return
			}
		}
	}
}

// Sorted returns the topics sorted by name, as a new slice the caller owns
// (a copy of the order AllByName iterates over).
func (t *Topics) Sorted() []*Topic { return slices.Clone(t.byNameOrder().list) }

// HostedBy iterates over the partitions that have broker among their
// replicas, with their topic (KRaftMetadataCache's per-broker view).
func (t *Topics) HostedBy(broker int32) iter.Seq2[*Topic, *Partition] {
	return func(yield func(*Topic, *Partition) bool) {
		for tp := range t.All() {
			for i := range tp.parts {
				if tp.parts[i].HasReplica(broker) {
					if !yield(tp, &tp.parts[i]) {
						return
					}
				}
			}
		}
	}
}

// update returns t without the topics in deleted and with every topic
// in changed put under its id and name, as TopicsDelta.apply does: deletes
// first (removing the deleted topic's name as the base image had it), then
// puts, so "delete X (id A), create X (id B)" in one delta is right. A
// deleted id absent from t is an error. Unchanged *Topic values, and every
// shard of the indexes that no change falls in, are shared with t.
func (t *topicIndexes) update(deleted []record.UUID, changed []*Topic) (topicIndexes, error) {
	if len(deleted) == 0 && len(changed) == 0 {
		return *t, nil
	}
	if t.byID.Len() == 0 {
		if len(deleted) > 0 {
			return topicIndexes{}, fmt.Errorf("delete topic %s: not in the base image", deleted[0])
		}
		return buildTopics(changed), nil
	}
	n := len(deleted) + len(changed)
	var idBuf, nameBuf [4]topicOp // a small delta's ops stay on the stack
	idOps, nameOps := idBuf[:0], nameBuf[:0]
	if n > len(idBuf) {
		idOps, nameOps = make([]topicOp, 0, n), make([]topicOp, 0, n)
	}
	for _, id := range deleted {
		old, ok := t.byID.getID(id)
		if !ok {
			return topicIndexes{}, fmt.Errorf("delete topic %s: not in the base image", id)
		}
		idOps = append(idOps, t.byID.op(old, true))
	}
	for _, tp := range changed {
		idOps = append(idOps, t.byID.op(tp, false))
	}
	// One change (the usual delta): both indexes' copied paths are one
	// allocation, and their new shards another.
	var spare []dirNode
	var slots []slot
	if len(deleted) == 0 && len(changed) == 1 {
		tp := changed[0]
		spare = make([]dirNode, t.byID.levels()+t.byName.levels())
		n := len(t.byID.shard(idOps[0].shard)) + len(t.byName.shard(shardOf(tp.nameHash, t.byName.bits))) + 2
		slots = make([]slot, n)
	}
	byID := t.byID.update(idOps, &spare, &slots)
	// The name index: every name the base gave a deleted or renamed topic
	// goes (if still that topic's), then every changed topic is put under
	// its name. The base topic under each id was found by the id index's
	// update.
	for i := range idOps {
		op := &idOps[i]
		if op.had && (op.del || op.old.name != op.tp.name) {
			if cur, ok := t.byName.getName(op.old.name); ok && cur.id == op.old.id {
				nameOps = append(nameOps, t.byName.op(op.old, true))
			}
		}
	}
	for i := range idOps {
		if !idOps[i].del {
			nameOps = append(nameOps, t.byName.op(idOps[i].tp, false))
		}
	}
	return topicIndexes{byID: byID, byName: t.byName.update(nameOps, &spare, &slots)}, nil
}

// buildTopics returns the topics of an empty image plus topics (a snapshot
// load, or the first delta).
func buildTopics(topics []*Topic) topicIndexes {
	return topicIndexes{byID: buildTopicMap(false, topics), byName: buildTopicMap(true, topics)}
}
