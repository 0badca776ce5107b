package history

import (
	"slices"
	"strconv"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// What the Builder records for partitions and topics: their states, the
// fields a change touched, and the events of their histories.

// stateOf is p's state. A list equal to prev's is prev's, so that events
// share unchanged lists; the lists are read into the builder's scratch
// buffer first, and only a changed one is copied out of it.
func (b *Builder) stateOf(p *image.PartitionRegistration, prev PartitionState) PartitionState {
	s := PartitionState{Leader: p.Leader(), LeaderEpoch: p.LeaderEpoch(), PartitionEpoch: p.PartitionEpoch(), LeaderRecoveryState: p.LeaderRecoveryState()}
	s.Replicas = b.reuse(prev.Replicas, p.AppendReplicas(b.scratch[:0]))
	if s.Replicas == nil {
		s.Replicas = []int32{}
	}
	s.ISR = b.reuse(prev.ISR, p.AppendISR(b.scratch[:0]))
	s.ELR = b.reuse(prev.ELR, p.AppendELR(b.scratch[:0]))
	s.LastKnownELR = b.reuse(prev.LastKnownELR, p.AppendLastKnownELR(b.scratch[:0]))
	s.Adding = b.reuse(prev.Adding, p.AppendAddingReplicas(b.scratch[:0]))
	s.Removing = b.reuse(prev.Removing, p.AppendRemovingReplicas(b.scratch[:0]))
	return s
}

// reuse returns prev when it holds the same ids as cur (nil or prev for
// none), else a copy of cur, which is in the scratch buffer (kept for the
// next list).
func (b *Builder) reuse(prev, cur []int32) []int32 {
	b.scratch = cur[:0]
	switch {
	case len(cur) == 0:
		if prev != nil && len(prev) == 0 {
			return prev
		}
		return nil
	case slices.Equal(prev, cur):
		return prev
	}
	if b.lean {
		return b.ids.clone(cur)
	}
	return slices.Clone(cur)
}

func diffFields(a, b PartitionState) PartitionFields {
	var f PartitionFields
	if a.Leader != b.Leader {
		f |= FieldLeader
	}
	if a.LeaderEpoch != b.LeaderEpoch {
		f |= FieldLeaderEpoch
	}
	if a.PartitionEpoch != b.PartitionEpoch {
		f |= FieldPartitionEpoch
	}
	if a.LeaderRecoveryState != b.LeaderRecoveryState {
		f |= FieldRecoveryState
	}
	if !slices.Equal(a.Replicas, b.Replicas) {
		f |= FieldReplicas
	}
	if !slices.Equal(a.ISR, b.ISR) {
		f |= FieldISR
	}
	if !slices.Equal(a.ELR, b.ELR) {
		f |= FieldELR
	}
	if !slices.Equal(a.LastKnownELR, b.LastKnownELR) {
		f |= FieldLastKnownELR
	}
	if !slices.Equal(a.Adding, b.Adding) {
		f |= FieldAdding
	}
	if !slices.Equal(a.Removing, b.Removing) {
		f |= FieldRemoving
	}
	return f
}

func (b *Builder) partitionChanged(pos Position, r record.Record, name string, id record.UUID, before image.PartitionRegistration, existed bool, after image.PartitionRegistration) {
	tp := TopicPartition{id, after.ID()}
	slot := b.last.add(tp)
	bs := PartitionState{Leader: image.NoLeader, LeaderEpoch: -1, PartitionEpoch: -1}
	if existed {
		bs = b.stateOf(&before, slot.state)
	}
	as := b.stateOf(&after, bs)
	changed := diffFields(bs, as)
	if !existed {
		changed = Created | diffFields(bs, as)
	}
	if existed && !sameDirectories(&before, &after) {
		changed |= FieldDirectories
	}
	slot.state = as
	ev := PartitionEvent{At: pos, Changed: changed, Before: bs, After: as, Record: r}
	var ec elrContext
	if !b.lean {
		ec = b.elrContext(name)
	}
	if b.inTx {
		held := ev // a copy, so that ev itself stays off the heap
		b.pending = append(b.pending, func() { b.partitionEvent(slot, tp, name, &held, ec) })
		return
	}
	b.partitionEvent(slot, tp, name, &ev, ec)
}

// partitionEvent records ev in the history of the partition of slot: its
// counts, the timeline's track, and unless the builder is lean its events
// and the checks.
func (b *Builder) partitionEvent(slot *partSlot, tp TopicPartition, name string, ev *PartitionEvent, ec elrContext) {
	ph := slot.ph
	if ph == nil {
		ph = b.partitionHistory(tp, name)
		slot.ph = ph
	}
	if ev.LeaderChanged() {
		ph.LeaderChanges++
	}
	shrank := ev.ISRShrank()
	if shrank {
		ph.ISRShrinks++
	}
	if b.tl != nil {
		b.tl.partition(ph, ev, shrank)
	}
	if b.lean {
		return
	}
	ph.Events = push(ph.Events, *ev, b.lim, &ph.Dropped)
	b.chk.partition(ph, &ph.Events[len(ph.Events)-1], ec)
}

// elrContext is what the ELR rules of a topic's partitions depend on, as
// the replay stands: whether eligible.leader.replicas.version is on, and
// the topic's effective min.insync.replicas (the topic's config, else the
// active controller's node config, else the cluster default:
// ConfigurationControlManager's resolution; -1 when the log does not say,
// the static config being unknown).
func (b *Builder) elrContext(topic string) elrContext {
	ec := elrContext{enabled: b.d.FeatureLevel(image.ELRFeature) >= 1, minISR: -1}
	if !ec.enabled {
		return ec
	}
	for _, res := range []image.ConfigResource{{Type: image.ConfigTopic, Name: topic},
		{Type: image.ConfigBroker, Name: strconv.Itoa(int(b.raftLeader))}, {Type: image.ConfigBroker}} {
		if v, ok := b.d.Config(res, "min.insync.replicas"); ok {
			if n, err := strconv.Atoi(v); err == nil {
				ec.minISR = n
			}
			break
		}
	}
	return ec
}

func (b *Builder) partitionHistory(tp TopicPartition, name string) *PartitionHistory {
	ph := b.h.partitions.get(tp)
	if ph == nil {
		ph = b.histories.new()
		ph.Topic, ph.TopicID, ph.Partition = name, tp.TopicID, tp.Partition
		b.h.partitions.put(tp, ph)
	}
	return ph
}

func (b *Builder) topicHistory(id record.UUID, name string) *TopicHistory {
	th, ok := b.h.topics[id]
	if !ok {
		th = &TopicHistory{Name: name, ID: id}
		b.h.topics[id] = th
	}
	return th
}

func (b *Builder) topicCreated(pos Position, r *record.TopicRecord) {
	b.created[r.TopicID] = b.batch
	b.emit(func() {
		th := b.topicHistory(r.TopicID, r.Name)
		th.Events = push(th.Events, TopicEvent{At: pos, Kind: TopicCreated, Record: r}, b.lim, &th.Dropped)
	})
}

// partitionAdded counts a new partition into its topic's creation (same
// batch) or growth event.
func (b *Builder) partitionAdded(pos Position, r *record.PartitionRecord, id record.UUID) {
	name, n := b.topicName(id), b.partitionCount(id)
	sameBatch := b.created[id] == b.batch
	batch := b.batch
	if b.inTx {
		b.pending = append(b.pending, func() { b.topicCounted(pos, r, id, name, n, sameBatch, batch) })
		return
	}
	b.topicCounted(pos, r, id, name, n, sameBatch, batch)
}

// topicCounted sets topic id's partition count to n after r: in its
// creation event (sameBatch) or growth event of the same batch, else in a
// new growth event.
func (b *Builder) topicCounted(pos Position, r *record.PartitionRecord, id record.UUID, name string, n int, sameBatch bool, batch int) {
	th := b.topicHistory(id, name)
	if k := len(th.Events); k > 0 {
		last := &th.Events[k-1]
		if (last.Kind == TopicCreated && sameBatch) || (last.Kind == TopicGrown && b.grown[id] == batch) {
			last.Partitions = n
			return
		}
	}
	th.Events = push(th.Events, TopicEvent{At: pos, Kind: TopicGrown, Partitions: n, Record: r}, b.lim, &th.Dropped)
	b.grown[id] = batch
}

func (b *Builder) topicDeleted(pos Position, r record.Record, id record.UUID, name string, parts []image.PartitionRegistration) {
	for i := range parts {
		tp := TopicPartition{id, parts[i].ID()}
		var prev PartitionState
		if slot := b.last.get(tp); slot != nil {
			prev = slot.state
		}
		bs := b.stateOf(&parts[i], prev)
		b.last.remove(tp)
		ev := PartitionEvent{At: pos, Changed: Deleted, Before: bs, Record: r}
		if b.inTx {
			held := ev
			b.pending = append(b.pending, func() { b.partitionDeleted(tp, name, &held) })
			continue
		}
		b.partitionDeleted(tp, name, &ev)
	}
	b.last.dropTopic(id)
	delete(b.created, id)
	b.emit(func() {
		th := b.topicHistory(id, name)
		th.Events = push(th.Events, TopicEvent{At: pos, Kind: TopicDeleted, Record: r}, b.lim, &th.Dropped)
	})
}

// partitionDeleted records ev, a partition's deletion, in its history.
func (b *Builder) partitionDeleted(tp TopicPartition, name string, ev *PartitionEvent) {
	ph := b.partitionHistory(tp, name)
	if b.tl != nil {
		b.tl.partition(ph, ev, false)
	}
	if b.lean {
		return
	}
	ph.Events = push(ph.Events, *ev, b.lim, &ph.Dropped)
	b.chk.partition(ph, &ph.Events[len(ph.Events)-1], elrContext{})
}

// sameDirectories reports whether two registrations of a partition assign
// the same directory to each replica (Partition.Directory), without copying
// them.
func sameDirectories(a, b *image.PartitionRegistration) bool {
	n := a.NumReplicas()
	if n != b.NumReplicas() {
		return false
	}
	for i := 0; i < n; i++ {
		if a.Directory(i) != b.Directory(i) {
			return false
		}
	}
	return true
}
