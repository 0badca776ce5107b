package image

import (
	"iter"
	"slices"
	"strings"
)

// nameOrder is a Topics value's topics sorted by name, computed on first
// use. Kafka's answers that walk every topic (all-topics Metadata,
// DescribeTopicPartitions) list them by name in kmeta; sorting
// on every request cost about a quarter of an all-topics Metadata answer.
// A Topics value never changes, so its order is computed once, by the
// first reader that needs it, and published with an atomic pointer (readers
// racing on a fresh value may each compute it; one result is kept, and
// they are equal). An image whose topics did not change shares its Topics
// value, and with it the order, with its base; an image whose topics changed
// has a new Topics value whose order is computed when first asked for
// (never at Apply, which stays O(topics changed); the pointer adds 8 bytes
// to a Topics value).
type nameOrder struct {
	list  []Topic // read-only
	parts int     // the partitions of all the topics
}

// byNameOrder returns the topics sorted by name. The list is shared by
// every reader and must not be modified.
func (t *Topics) byNameOrder() *nameOrder {
	if o := t.order.Load(); o != nil {
		return o
	}
	o := &nameOrder{list: make([]Topic, 0, t.Len())}
	for tp := range t.byID.All() {
		o.list = append(o.list, Topic{tp})
		o.parts += len(tp.parts)
	}
	slices.SortFunc(o.list, func(a, b Topic) int { return strings.Compare(a.t.name, b.t.name) })
	if !t.order.CompareAndSwap(nil, o) {
		return t.order.Load()
	}
	return o
}

// AllByName iterates over the topics in ascending name order (byte-wise
// comparison, as Java's String.compareTo for the ASCII names Kafka allows).
// The order is computed once per Topics value, on first use, and shared by
// every later call and by every image that shares these topics: after that
// first call, iterating allocates nothing. Safe for concurrent use.
func (t *Topics) AllByName() iter.Seq[Topic] {
	list := t.byNameOrder().list
	return func(yield func(Topic) bool) {
		for _, tp := range list {
			if !yield(tp) {
				return
			}
		}
	}
}

// NumPartitions is the number of partitions of all the topics, computed
// with the name order (AllByName) once per Topics value.
func (t *Topics) NumPartitions() int {
	return t.byNameOrder().parts
}

// ByNameAt returns the i-th topic in name order (0 ≤ i < Len), the topic
// AllByName yields i-th, as Topic.PartitionAt indexes partitions: a loop
// over i allocates nothing, where a loop over AllByName's iterator may.
func (t *Topics) ByNameAt(i int) Topic { return t.byNameOrder().list[i] }
