package image

import (
	"encoding/binary"
	"fmt"
	"iter"
	"sort"

	"github.com/benbjohnson/immutable"

	"github.com/kmeta-go/kmeta/record"
)

// Topic is one topic and its partitions, Kafka's TopicImage. A *Topic held
// by an image is never modified; the next image shares it when the topic did
// not change.
type Topic struct {
	name  string
	id    record.UUID
	parts []Partition // sorted by partition id, unique
}

// NewTopic returns a topic holding parts, which must be sorted by partition
// id without duplicates. NewTopic takes ownership of parts: the caller must
// not modify the slice afterwards (as with bytes.NewBuffer).
func NewTopic(name string, id record.UUID, parts []Partition) (*Topic, error) {
	for i := 1; i < len(parts); i++ {
		if parts[i-1].id >= parts[i].id {
			return nil, fmt.Errorf("topic %s (%s): partitions not sorted by id or duplicated at index %d", name, id, i)
		}
	}
	return &Topic{name: name, id: id, parts: parts}, nil
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
	if id >= 0 && int(id) < len(t.parts) && t.parts[id].id == id {
		return &t.parts[id], true
	}
	i := sort.Search(len(t.parts), func(i int) bool { return t.parts[i].id >= id })
	if i < len(t.parts) && t.parts[i].id == id {
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

// PartitionSlice returns the topic's partitions. The slice is shared with
// the image and must be treated as read-only; it is exported for the delta
// package, which copies it before changing anything.
func (t *Topic) PartitionSlice() []Partition { return t.parts[:len(t.parts):len(t.parts)] }

// uuidHasher hashes 16-byte ids for immutable.Map. Topic ids are random, so
// folding the four words is enough to spread them.
type uuidHasher struct{}

func (uuidHasher) Hash(u record.UUID) uint32 {
	h := binary.LittleEndian.Uint64(u[:8]) ^ binary.LittleEndian.Uint64(u[8:])*0x9E3779B97F4A7C15
	return uint32(h ^ h>>32)
}

func (uuidHasher) Equal(a, b record.UUID) bool { return a == b }

// stringHasher is FNV-1a.
type stringHasher struct{}

func (stringHasher) Hash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

func (stringHasher) Equal(a, b string) bool { return a == b }

// Topics is every topic by id and by name, Kafka's TopicsImage. Both indexes
// are persistent maps, so an image that changes k topics shares everything
// else with the image before it; the name index maps names to ids.
type Topics struct {
	byID   *immutable.Map[record.UUID, *Topic]
	byName *immutable.Map[string, record.UUID]
}

var emptyTopics = &Topics{
	byID:   immutable.NewMap[record.UUID, *Topic](uuidHasher{}),
	byName: immutable.NewMap[string, record.UUID](stringHasher{}),
}

// Len is the number of topics.
func (t *Topics) Len() int { return t.byID.Len() }

// ByID returns the topic with id.
func (t *Topics) ByID(id record.UUID) (*Topic, bool) { return t.byID.Get(id) }

// ByName returns the topic named name.
func (t *Topics) ByName(name string) (*Topic, bool) {
	id, ok := t.byName.Get(name)
	if !ok {
		return nil, false
	}
	return t.byID.Get(id)
}

// IDOf returns the id of the topic named name.
func (t *Topics) IDOf(name string) (record.UUID, bool) { return t.byName.Get(name) }

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
		it := t.byID.Iterator()
		for !it.Done() {
			_, v, _ := it.Next()
			if !yield(v) {
				return
			}
		}
	}
}

// Sorted returns the topics sorted by name (allocates).
func (t *Topics) Sorted() []*Topic {
	out := make([]*Topic, 0, t.Len())
	for tp := range t.All() {
		out = append(out, tp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

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

// UpdateTopics returns t without the topics in deleted and with every topic
// in changed put under its id and name, as TopicsDelta.apply does: deletes
// first (removing the deleted topic's name as the base image had it), then
// puts, so "delete X (id A), create X (id B)" in one delta is right. A
// deleted id absent from t is an error. When changed is large relative to t
// the maps are rebuilt with builders; unchanged *Topic values are shared
// either way.
func (t *Topics) UpdateTopics(deleted []record.UUID, changed []*Topic) (*Topics, error) {
	for _, id := range deleted {
		if _, ok := t.byID.Get(id); !ok {
			return nil, fmt.Errorf("delete topic %s: not in the base image", id)
		}
	}
	if len(deleted) == 0 && len(changed) == 0 {
		return t, nil
	}
	if len(changed) > 64 && len(changed) >= t.byID.Len()/2 {
		return t.rebuild(deleted, changed), nil
	}
	byID, byName := t.byID, t.byName
	for _, id := range deleted {
		old, _ := byID.Get(id)
		byID = byID.Delete(id)
		if cur, ok := byName.Get(old.name); ok && cur == id {
			byName = byName.Delete(old.name)
		}
	}
	for _, tp := range changed {
		if old, ok := byID.Get(tp.id); !ok || old.name != tp.name {
			if ok {
				if cur, ok := byName.Get(old.name); ok && cur == tp.id {
					byName = byName.Delete(old.name)
				}
			}
			byName = byName.Set(tp.name, tp.id)
		}
		byID = byID.Set(tp.id, tp)
	}
	return &Topics{byID: byID, byName: byName}, nil
}

func (t *Topics) rebuild(deleted []record.UUID, changed []*Topic) *Topics {
	skip := make(map[record.UUID]struct{}, len(deleted)+len(changed))
	for _, id := range deleted {
		skip[id] = struct{}{}
	}
	for _, tp := range changed {
		skip[tp.id] = struct{}{}
	}
	byID := immutable.NewMapBuilder[record.UUID, *Topic](uuidHasher{})
	byName := immutable.NewMapBuilder[string, record.UUID](stringHasher{})
	if len(skip) < t.byID.Len()+len(changed) {
		it := t.byID.Iterator()
		for !it.Done() {
			id, tp, _ := it.Next()
			if _, ok := skip[id]; ok {
				continue
			}
			byID.Set(id, tp)
			byName.Set(tp.name, id)
		}
	}
	for _, tp := range changed {
		byID.Set(tp.id, tp)
		byName.Set(tp.name, tp.id)
	}
	return &Topics{byID: byID.Map(), byName: byName.Map()}
}
