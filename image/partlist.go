package image

import (
	"slices"
	"sort"
)

// PartitionList is a topic's partitions kept sorted by id as they are put:
// what package delta fills while replaying records, and hands to
// Topic.WithPartitionList, which need not check the order again. The zero
// value is an empty list.
//
// A list's array may be handed to an image (WithPartitionList); the caller
// must then not Put into that list again, but Copy it first.
type PartitionList struct {
	parts []Partition
}

// NewPartitionList returns an empty list with room for n partitions.
func NewPartitionList(n int) PartitionList {
	return PartitionList{parts: make([]Partition, 0, n)}
}

// PartitionList returns a copy of t's partitions, of exactly their length,
// to change.
func (t *Topic) PartitionList() PartitionList {
	return PartitionList{parts: exactCopy(t.parts)}
}

// Copy returns a copy of l of exactly its length.
func (l PartitionList) Copy() PartitionList { return PartitionList{parts: exactCopy(l.parts)} }

func exactCopy(parts []Partition) []Partition {
	out := make([]Partition, len(parts))
	copy(out, parts)
	return out
}

// Len is the number of partitions; Cap the room l's array has.
func (l PartitionList) Len() int { return len(l.parts) }
func (l PartitionList) Cap() int { return cap(l.parts) }

// Slice returns the partitions in id order, to read only.
func (l PartitionList) Slice() []Partition { return l.parts[:len(l.parts):len(l.parts)] }

// Find returns the index of partition id, or where it would go.
func (l PartitionList) Find(id int32) (int, bool) { return findPartition(l.parts, id) }

func findPartition(parts []Partition, id int32) (int, bool) {
	if id >= 0 && int(id) < len(parts) && parts[id].id == id {
		return int(id), true
	}
	i := sort.Search(len(parts), func(i int) bool { return parts[i].id >= id })
	return i, i < len(parts) && parts[i].id == id
}

// Put stores p, replacing the partition with its id.
func (l *PartitionList) Put(p Partition) {
	if n := len(l.parts); n == 0 || l.parts[n-1].id < p.id {
		l.parts = append(l.parts, p)
		return
	}
	i, ok := findPartition(l.parts, p.id)
	if ok {
		l.parts[i] = p
		return
	}
	l.parts = slices.Insert(l.parts, i, p)
}

// WithPartitionList returns a topic of t's name and id holding l's
// partitions (sorted by construction). The topic takes l's array: l must
// not be written again (Copy it first).
func (t *Topic) WithPartitionList(l PartitionList) *Topic {
	parts := l.Slice()
	if parts == nil {
		parts = []Partition{}
	}
	return &Topic{name: t.name, id: t.id, parts: parts, nameHash: t.nameHash}
}
