package history

import "github.com/kmeta-go/kmeta/record"

// partSlots holds the Builder's slot of every live partition: per topic,
// by partition id, with the topic of the last lookup at hand (a batch
// changes its partitions in runs of one topic), so that a partition
// record costs a slice index rather than a lookup in a map of every
// partition.
type partSlots struct {
	slots  chunk[partSlot]
	topics map[record.UUID]*topicSlots
	lastID record.UUID
	last   *topicSlots // the slots of lastID, nil if none
}

// topicSlots are one topic's slots. Partition ids are dense from 0 in
// every topic Kafka makes; an id far past them (a damaged or hostile log)
// goes to sparse, so that it cannot make the slice large.
type topicSlots struct {
	dense  []*partSlot
	sparse map[int32]*partSlot
}

func (s *partSlots) topic(id record.UUID, add bool) *topicSlots {
	if s.last != nil && s.lastID == id {
		return s.last
	}
	ts := s.topics[id]
	if ts == nil {
		if !add {
			return nil
		}
		if s.topics == nil {
			s.topics = map[record.UUID]*topicSlots{}
		}
		ts = &topicSlots{}
		s.topics[id] = ts
	}
	s.lastID, s.last = id, ts
	return ts
}

// get returns tp's slot, nil if none.
func (s *partSlots) get(tp TopicPartition) *partSlot {
	ts := s.topic(tp.TopicID, false)
	if ts == nil {
		return nil
	}
	if p := int(tp.Partition); p >= 0 && p < len(ts.dense) {
		return ts.dense[p]
	}
	return ts.sparse[tp.Partition]
}

// add returns tp's slot, made empty if there was none.
func (s *partSlots) add(tp TopicPartition) *partSlot {
	ts := s.topic(tp.TopicID, true)
	p := int(tp.Partition)
	switch {
	case p >= 0 && p < len(ts.dense):
		if ts.dense[p] == nil {
			ts.dense[p] = s.slots.new()
		}
		return ts.dense[p]
	case p >= 0 && p < 2*len(ts.dense)+64:
		for len(ts.dense) <= p {
			ts.dense = append(ts.dense, nil)
		}
		ts.dense[p] = s.slots.new()
		return ts.dense[p]
	}
	slot := ts.sparse[tp.Partition]
	if slot == nil {
		if ts.sparse == nil {
			ts.sparse = map[int32]*partSlot{}
		}
		slot = s.slots.new()
		ts.sparse[tp.Partition] = slot
	}
	return slot
}

// remove drops tp's slot.
func (s *partSlots) remove(tp TopicPartition) {
	ts := s.topic(tp.TopicID, false)
	if ts == nil {
		return
	}
	if p := int(tp.Partition); p >= 0 && p < len(ts.dense) {
		ts.dense[p] = nil
		return
	}
	delete(ts.sparse, tp.Partition)
}

// dropTopic drops the slots of topic id.
func (s *partSlots) dropTopic(id record.UUID) {
	delete(s.topics, id)
	if s.lastID == id {
		s.last = nil
	}
}

// each calls fn with every slot; a slot fn returns false for is dropped.
func (s *partSlots) each(fn func(TopicPartition, *partSlot) bool) {
	for id, ts := range s.topics {
		for p, slot := range ts.dense {
			if slot != nil && !fn(TopicPartition{id, int32(p)}, slot) {
				ts.dense[p] = nil
			}
		}
		for p, slot := range ts.sparse {
			if !fn(TopicPartition{id, p}, slot) {
				delete(ts.sparse, p)
			}
		}
	}
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
