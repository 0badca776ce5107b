package image

import (
	"iter"
	"slices"
	"strings"
	"sync"
)

// nameOrder is a Topics value's topics sorted by name, computed on first
// use. Kafka's answers that walk every topic (all-topics Metadata,
// DescribeTopicPartitions) list them by name in kmeta (spec §10 #8); sorting
// on every request cost about a quarter of an all-topics Metadata answer.
// A Topics value never changes, so its order is computed at most once, under
// once, by whichever reader needs it first; the other readers wait for it.
// An image whose topics did not change shares its Topics value, and with it
// the order, with its base; an image whose topics changed has a new Topics
// value whose order is computed when first asked for (never at Apply, which
// stays O(topics changed)).
type nameOrder struct {
	once  sync.Once
	list  []*Topic // read-only once computed
	parts int      // the partitions of all the topics
}

// byNameOrder returns the topics sorted by name. The slice is shared by every
// reader and must not be modified.
func (t *Topics) byNameOrder() []*Topic {
	t.order.once.Do(func() {
		list := make([]*Topic, 0, t.Len())
		parts := 0
		for _, tp := range t.byID.All() {
			list = append(list, tp)
			parts += len(tp.parts)
		}
		t.order.parts = parts
		slices.SortFunc(list, func(a, b *Topic) int { return strings.Compare(a.name, b.name) })
		t.order.list = list
	})
	return t.order.list
}

// AllByName iterates over the topics in ascending name order (byte-wise
// comparison, as Java's String.compareTo for the ASCII names Kafka allows).
// The order is computed once per Topics value, on first use, and shared by
// every later call and by every image that shares these topics: after that
// first call, iterating allocates nothing. Safe for concurrent use.
func (t *Topics) AllByName() iter.Seq[*Topic] {
	list := t.byNameOrder()
	return func(yield func(*Topic) bool) {
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
	t.byNameOrder()
	return t.order.parts
}
