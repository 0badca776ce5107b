package history

import "github.com/kmeta-go/kmeta/record"

// byPartition indexes values by topic id and partition id: per topic, by
// partition id, with the topic of the last lookup at hand (a batch changes
// its partitions in runs of one topic), so that a partition record costs
// a slice index rather than a lookup in a map of every partition.
type byPartition[T any] struct {
	topics map[record.UUID]*topicIndex[T]
	lastID record.UUID
	last   *topicIndex[T] // the index of lastID, nil if none
	n      int
}

// topicIndex is one topic's values. Partition ids are dense from 0 in
// every topic Kafka makes; an id far past them (a damaged or hostile log)
// goes to sparse, so that it cannot make the slice large.
type topicIndex[T any] struct {
	dense  []*T
	sparse map[int32]*T
}

func (s *byPartition[T]) topic(id record.UUID, add bool) *topicIndex[T] {
	if s.last != nil && s.lastID == id {
		return s.last
	}
	ti := s.topics[id]
	if ti == nil {
		if !add {
			return nil
		}
		if s.topics == nil {
			s.topics = map[record.UUID]*topicIndex[T]{}
		}
		ti = &topicIndex[T]{}
		s.topics[id] = ti
	}
	s.lastID, s.last = id, ti
	return ti
}

// get returns tp's value, nil if none.
func (s *byPartition[T]) get(tp TopicPartition) *T {
	ti := s.topic(tp.TopicID, false)
	if ti == nil {
		return nil
	}
	if p := int(tp.Partition); p >= 0 && p < len(ti.dense) {
		return ti.dense[p]
	}
	return ti.sparse[tp.Partition]
}

// put sets tp's value to v (not nil).
func (s *byPartition[T]) put(tp TopicPartition, v *T) {
	ti := s.topic(tp.TopicID, true)
	p := int(tp.Partition)
	switch {
	case p >= 0 && p < len(ti.dense):
		if ti.dense[p] == nil {
			s.n++
		}
		ti.dense[p] = v
		return
	case p >= 0 && p < 2*len(ti.dense)+64:
		for len(ti.dense) <= p {
			ti.dense = append(ti.dense, nil)
		}
		ti.dense[p] = v
		s.n++
		return
	}
	if ti.sparse == nil {
		ti.sparse = map[int32]*T{}
	}
	if _, ok := ti.sparse[tp.Partition]; !ok {
		s.n++
	}
	ti.sparse[tp.Partition] = v
}

// remove drops tp's value.
func (s *byPartition[T]) remove(tp TopicPartition) {
	ti := s.topic(tp.TopicID, false)
	if ti == nil {
		return
	}
	if p := int(tp.Partition); p >= 0 && p < len(ti.dense) {
		if ti.dense[p] != nil {
			ti.dense[p] = nil
			s.n--
		}
		return
	}
	if _, ok := ti.sparse[tp.Partition]; ok {
		delete(ti.sparse, tp.Partition)
		s.n--
	}
}

// dropTopic drops the values of topic id.
func (s *byPartition[T]) dropTopic(id record.UUID) {
	ti := s.topics[id]
	if ti == nil {
		return
	}
	for _, v := range ti.dense {
		if v != nil {
			s.n--
		}
	}
	s.n -= len(ti.sparse)
	delete(s.topics, id)
	if s.lastID == id {
		s.last = nil
	}
}

// len is the number of values.
func (s *byPartition[T]) len() int { return s.n }

// each calls fn with every value; a value fn returns false for is dropped.
func (s *byPartition[T]) each(fn func(TopicPartition, *T) bool) {
	for id, ti := range s.topics {
		for p, v := range ti.dense {
			if v != nil && !fn(TopicPartition{id, int32(p)}, v) {
				ti.dense[p] = nil
				s.n--
			}
		}
		for p, v := range ti.sparse {
			if !fn(TopicPartition{id, p}, v) {
				delete(ti.sparse, p)
				s.n--
			}
		}
	}
}

// partSlots holds the Builder's slot of every live partition.
type partSlots struct {
	byPartition[partSlot]
	slots chunk[partSlot]
}

// add returns tp's slot, made empty if there was none.
func (s *partSlots) add(tp TopicPartition) *partSlot {
	if slot := s.get(tp); slot != nil {
		return slot
	}
	slot := s.slots.new()
	s.put(tp, slot)
	return slot
}

// chunk hands out values of T from shared arrays, so that the objects a
// replay makes per partition (a slot, a history) cost one allocation per
// chunkSize of them. A chunk stays in memory while any value in it does.
type chunk[T any] struct{ free []T }

const chunkSize = 128

func (c *chunk[T]) new() *T {
	if len(c.free) == 0 {
		c.free = make([]T, chunkSize)
	}
	p := &c.free[0]
	c.free = c.free[1:]
	return p
}

// idChunk hands out copies of id lists from shared arrays (a lean
// Builder's partition states: ReadTimeline's replay is short-lived, so
// the arrays that hold old states are freed with it).
type idChunk struct{ free []int32 }

func (c *idChunk) clone(s []int32) []int32 {
	if len(s) > cap(c.free)-len(c.free) {
		c.free = make([]int32, 0, max(1024, len(s)))
	}
	n := len(c.free)
	c.free = append(c.free, s...)
	return c.free[n:len(c.free):len(c.free)]
}
