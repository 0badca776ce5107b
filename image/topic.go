package image

import (
	"fmt"
	"iter"
	"slices"
	"sync/atomic"

	"github.com/kmeta-go/kmeta/record"
)

// Topic is one topic and its partitions, Kafka's TopicImage, as an image
// hands it out: a handle, one pointer wide, to the image's own topic, which
// is never modified (the next image shares it when the topic did not
// change). Copy it freely; two handles are == when they are the same topic
// of the same image line. The zero Topic is "no topic" (lookups return it
// with false); its methods panic.
//
// A topic, its partitions and its name are one allocation of pointer-free
// memory, which the garbage collector keeps alive as a whole but never
// scans (topicblock.go). A Topic, a Partition of it or its name keeps that
// block alive. Nothing the package hands out lets a caller write into it:
// Topic and Partition are handles with unexported fields, and every
// partition read from them is a value the caller owns
// (TestNoExportedPointerIntoTopicBlocks).
type Topic struct{ t *topic }

// topic is the topic a Topic designates, at the start of its block.
type topic struct {
	name     string
	id       record.UUID
	parts    []PartitionRegistration // sorted by partition id, unique
	nameHash uint32                  // hashString(name), the name index's hash
}

// IsZero reports whether t is the zero Topic, the "no topic" a lookup that
// fails returns.
func (t Topic) IsZero() bool { return t.t == nil }

// Name is the topic name.
func (t Topic) Name() string { return t.t.name }

// ID is the topic id.
func (t Topic) ID() record.UUID { return t.t.id }

// NumPartitions is the number of partitions.
func (t Topic) NumPartitions() int { return len(t.t.parts) }

// Partition returns partition id: a handle to the image's own, read-only
// partition, which allocates nothing and stays valid forever.
func (t Topic) Partition(id int32) (Partition, bool) { return t.t.partition(id) }

// PartitionAt returns the i-th partition in ascending id order.
func (t Topic) PartitionAt(i int) Partition { return Partition{&t.t.parts[i]} }

// Partitions iterates over the partitions in ascending id order.
func (t Topic) Partitions() iter.Seq[Partition] {
	parts := t.t.parts
	return func(yield func(Partition) bool) {
		for i := range parts {
			if !yield(Partition{&parts[i]}) {
				return
			}
		}
	}
}

func (t *topic) partition(id int32) (Partition, bool) {
	if i, ok := findPartition(t.parts, id); ok {
		return Partition{&t.parts[i]}, true
	}
	return Partition{}, false
}

// Topics is every topic by id and by name, Kafka's TopicsImage. Both indexes
// are persistent maps (topicMap: small arrays of slots under a copy-on-write
// directory whose depth follows the number of topics), so an image that
// changes k topics shares everything else with the image before it. Both
// map to the same topic, as TopicsImage's topicsById and topicsByName both hold
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
func (t *Topics) ByID(id record.UUID) (Topic, bool) {
	tp, ok := t.byID.getID(id)
	return Topic{tp}, ok
}

// ByName returns the topic named name.
func (t *Topics) ByName(name string) (Topic, bool) {
	tp, ok := t.byName.getName(name)
	return Topic{tp}, ok
}

// IDOf returns the id of the topic named name.
func (t *Topics) IDOf(name string) (record.UUID, bool) {
	if tp, ok := t.byName.getName(name); ok {
		return tp.id, true
	}
	return record.UUID{}, false
}

// Partition returns partition p of topic id.
func (t *Topics) Partition(id record.UUID, p int32) (Partition, bool) {
	tp, ok := t.byID.getID(id)
	if !ok {
		return Partition{}, false
	}
	return tp.partition(p)
}

// All iterates over the topics in the id index's order (not sorted).
func (t *Topics) All() iter.Seq[Topic] {
	return func(yield func(Topic) bool) {
		for tp := range t.byID.All() {
			if !yield(Topic{tp}) {
				return
			}
		}
	}
}

// Sorted returns the topics sorted by name, as a new slice the caller owns
// (a copy of the order AllByName iterates over).
func (t *Topics) Sorted() []Topic { return slices.Clone(t.byNameOrder().list) }

// HostedBy iterates over the partitions that have broker among their
// replicas, with their topic (KRaftMetadataCache's per-broker view).
func (t *Topics) HostedBy(broker int32) iter.Seq2[Topic, Partition] {
	return func(yield func(Topic, Partition) bool) {
		for tp := range t.byID.All() {
			for i := range tp.parts {
				if tp.parts[i].HasReplica(broker) {
					if !yield(Topic{tp}, Partition{&tp.parts[i]}) {
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
// deleted id absent from t is an error. Unchanged topics, and every
// shard of the indexes that no change falls in, are shared with t. The
// new roots of the id and name indexes are copied into roots[0] and
// roots[1] when roots is not nil (the image's own allocation: a root
// belongs to one index value only); a root the result does not use is
// cleared, so that it keeps nothing alive.
func (t *topicIndexes) update(deleted []record.UUID, changed []*topic, roots *[2]dirNode) (topicIndexes, error) {
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
	// One change (the usual delta): the two indexes' copies of the nodes of
	// one level of their paths are one allocation. Not the whole path: a
	// node stays current until a later change copies it, and a node copied
	// by that change still points at the older nodes below it, so an
	// allocation holding a current node keeps the stale nodes beside it
	// and everything they point at. Nodes of one level only point at the
	// level below, so what a current node keeps alive this way is bounded
	// by the depth; a whole path in one allocation would chain every
	// earlier image's path (TestStaleNodesFreed).
	var byIDPath, byNamePath pathNodes
	first := 0
	if roots != nil {
		byIDPath[0], byNamePath[0], first = &roots[0], &roots[1], 1
	}
	if len(deleted) == 0 && len(changed) == 1 && t.byID.bits == t.byName.bits {
		for l := first; l < t.byID.levels(); l++ {
			pair := new([2]dirNode)
			byIDPath[l], byNamePath[l] = &pair[0], &pair[1]
		}
	}
	byID := t.byID.update(idOps, byIDPath)
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
	out := topicIndexes{byID: byID, byName: t.byName.update(nameOps, byNamePath)}
	if roots != nil {
		for i, root := range [2]*dirNode{out.byID.root, out.byName.root} {
			if root != &roots[i] { // rebuilt (a reshard) or emptied
				roots[i] = dirNode{}
			}
		}
	}
	return out, nil
}

// buildTopics returns the topics of an empty image plus topics (a snapshot
// load, or the first delta).
func buildTopics(topics []*topic) topicIndexes {
	return topicIndexes{byID: buildTopicMap(false, topics), byName: buildTopicMap(true, topics)}
}
