package image

import (
	"encoding/binary"
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

// uuidHasher hashes 16-byte ids for the topic maps. Topic ids are random,
// so folding the words is enough to spread them; the top bits choose a
// shard, the low bits the slots of the shard's trie.
type uuidHasher struct{}

func (uuidHasher) Hash(u record.UUID) uint32 {
	h := binary.LittleEndian.Uint64(u[:8]) ^ binary.LittleEndian.Uint64(u[8:])*0x9E3779B97F4A7C15
	return uint32(h ^ h>>32)
}

func (uuidHasher) Equal(a, b record.UUID) bool { return a == b }

// stringHasher is FNV-1a with a final avalanche (murmur3's fmix32), so that
// the top bits, which choose a shard, depend on every byte.
type stringHasher struct{}

func (stringHasher) Hash(s string) uint32 { return hashString(s) }

func (stringHasher) Equal(a, b string) bool { return a == b }

// nameKey is a topic name with its hash, the key of the name index: the
// hash is computed once per lookup or change, and comparing keys looks at
// the names' bytes only when the hashes are equal.
type nameKey struct {
	hash uint32
	name string
}

func keyOfName(name string) nameKey { return nameKey{hashString(name), name} }

func (t *Topic) nameKey() nameKey { return nameKey{t.nameHash, t.name} }

type nameHasher struct{}

func (nameHasher) Hash(k nameKey) uint32 { return k.hash }

func (nameHasher) Equal(a, b nameKey) bool { return a.hash == b.hash && a.name == b.name }

func hashString(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	return h ^ h>>16
}

// Topics is every topic by id and by name, Kafka's TopicsImage. Both indexes
// are persistent maps (shardMap: small immutable.Maps under a copy-on-write
// directory whose depth follows the number of topics), so an image that changes k topics shares everything else with
// the image before it; the name index maps names to ids.
type Topics struct {
	topicIndexes
	order atomic.Pointer[nameOrder] // the topics by name, computed on first use
}

// topicIndexes is the two indexes of a Topics value.
type topicIndexes struct {
	byID   shardMap[record.UUID, *Topic]
	byName shardMap[nameKey, record.UUID]
}

var emptyTopics = &Topics{topicIndexes: topicIndexes{
	byID:   shardMap[record.UUID, *Topic]{hasher: uuidHasher{}},
	byName: shardMap[nameKey, record.UUID]{hasher: nameHasher{}},
}}

// Len is the number of topics.
func (t *Topics) Len() int { return t.byID.Len() }

// ByID returns the topic with id.
func (t *Topics) ByID(id record.UUID) (*Topic, bool) { return t.byID.Get(id) }

// ByName returns the topic named name.
func (t *Topics) ByName(name string) (*Topic, bool) {
	id, ok := t.byName.Get(keyOfName(name))
	if !ok {
		return nil, false
	}
	return t.byID.Get(id)
}

// IDOf returns the id of the topic named name.
func (t *Topics) IDOf(name string) (record.UUID, bool) { return t.byName.Get(keyOfName(name)) }

// Partition returns partition p of topic id.
func (t *Topics) Partition(id record.UUID, p int32) (*Partition, bool) {
	tp, ok := t.byID.Get(id)
	if !ok {
		return nil, false
	}
	return tp.Partition(p)
}

// All iterates over the topics in the id index's order (not sorted).
func (t *Topics) All() iter.Seq[*Topic] {
	return func(yield func(*Topic) bool) {
		for _, tp := range t.byID.All() {
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
	var idBuf [4]shardOp[record.UUID, *Topic] // a small delta's ops stay on the stack
	idOps := idBuf[:0]
	if n := len(deleted) + len(changed); n > len(idBuf) {
		idOps = make([]shardOp[record.UUID, *Topic], 0, n)
	}
	var gone map[record.UUID]struct{}
	if len(deleted) > 0 {
		gone = make(map[record.UUID]struct{}, len(deleted))
	}
	for _, id := range deleted {
		gone[id] = struct{}{}
		idOps = append(idOps, t.byID.opDelete(id))
	}
	for _, tp := range changed {
		idOps = append(idOps, t.byID.opSet(tp.id, tp))
	}
	// One change (the usual delta): both indexes' copied paths are one
	// allocation, sized for the name index too when the topic is new.
	var spare []dirNode
	if len(deleted) == 0 && len(changed) == 1 {
		n := t.byID.levels()
		if _, had := t.byID.Get(changed[0].id); !had {
			n += t.byName.levels()
		}
		spare = make([]dirNode, n)
	}
	byID := t.byID.update(idOps, &spare)
	// The name index: every name the base gave a deleted or renamed topic
	// goes (if still that topic's), then every new or changed name is set.
	// The base topic under each id was found by the id index's update.
	var nameDels []shardOp[nameKey, record.UUID]
	var nameBuf [4]shardOp[nameKey, record.UUID]
	nameSets := nameBuf[:0]
	for i := range idOps {
		op := &idOps[i]
		if op.del {
			if !op.had {
				return topicIndexes{}, fmt.Errorf("delete topic %s: not in the base image", op.key)
			}
			nameDels = t.appendDropName(nameDels, op.old)
			continue
		}
		had := op.had
		if _, del := gone[op.key]; del {
			had = false // its base name is dropped by the delete
		}
		if had && op.old.name == op.val.name {
			continue
		}
		if had {
			nameDels = t.appendDropName(nameDels, op.old)
		}
		nameSets = append(nameSets, t.byName.opSet(op.val.nameKey(), op.val.id))
	}
	nameOps := nameSets
	if len(nameDels) > 0 {
		nameOps = append(nameDels, nameSets...)
	}
	return topicIndexes{byID: byID, byName: t.byName.update(nameOps, &spare)}, nil
}

// appendDropName appends the deletion of old's name to ops when t's name
// index still gives that name to old's id.
func (t *topicIndexes) appendDropName(ops []shardOp[nameKey, record.UUID], old *Topic) []shardOp[nameKey, record.UUID] {
	k := old.nameKey()
	if cur, ok := t.byName.Get(k); ok && cur == old.id {
		ops = append(ops, t.byName.opDelete(k))
	}
	return ops
}

// buildTopics returns the topics of an empty image plus topics (a snapshot
// load, or the first delta): both indexes are built shard by shard with
// immutable.MapBuilder.
func buildTopics(topics []*Topic) topicIndexes {
	ids := make([]record.UUID, len(topics))
	names := make([]nameKey, len(topics))
	for i, tp := range topics {
		ids[i], names[i] = tp.id, nameKey{tp.nameHash, tp.name}
	}
	return topicIndexes{
		byID:   buildShardMap(emptyTopics.byID.hasher, ids, topics),
		byName: buildShardMap(emptyTopics.byName.hasher, names, ids),
	}
}
