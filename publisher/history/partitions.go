package history

import (
	"slices"
	"strconv"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// What the Builder records for partitions and topics: their states, the
// fields a change touched, and the events of their histories.

func stateOf(p *image.PartitionRegistration, prev PartitionState) PartitionState {
	s := PartitionState{Leader: p.Leader(), LeaderEpoch: p.LeaderEpoch(), PartitionEpoch: p.PartitionEpoch(), LeaderRecoveryState: p.LeaderRecoveryState()}
	s.Replicas = reuse(prev.Replicas, p.AppendReplicas(nil))
	if s.Replicas == nil {
		s.Replicas = []int32{}
	}
	s.ISR = reuse(prev.ISR, p.AppendISR(nil))
	s.ELR = reuse(prev.ELR, p.AppendELR(nil))
	s.LastKnownELR = reuse(prev.LastKnownELR, p.AppendLastKnownELR(nil))
	s.Adding = reuse(prev.Adding, p.AppendAddingReplicas(nil))
	s.Removing = reuse(prev.Removing, p.AppendRemovingReplicas(nil))
	return s
}

// reuse returns prev when it holds the same ids as cur, so that events
// share unchanged lists.
func reuse(prev, cur []int32) []int32 {
	if slices.Equal(prev, cur) && (prev != nil || len(cur) == 0) {
		return prev
	}
	return cur
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
	slot := b.last[tp]
	if slot == nil {
		slot = &partSlot{}
		b.last[tp] = slot
	}
	bs := PartitionState{Leader: image.NoLeader, LeaderEpoch: -1, PartitionEpoch: -1}
	if existed {
		bs = stateOf(&before, slot.state)
	}
	as := stateOf(&after, bs)
	changed := diffFields(bs, as)
	if !existed {
		changed = Created | diffFields(bs, as)
	}
	if existed && !sameDirectories(&before, &after) {
		changed |= FieldDirectories
	}
	slot.state = as
	ev := PartitionEvent{At: pos, Changed: changed, Before: bs, After: as, Record: r}
	ec := b.elrContext(name)
	b.emit(func() {
		ph := slot.ph
		if ph == nil {
			ph = b.partitionHistory(tp, name)
			slot.ph = ph
		}
		if ev.LeaderChanged() {
			ph.LeaderChanges++
		}
		if ev.ISRShrank() {
			ph.ISRShrinks++
		}
		if b.tl != nil {
			b.tl.partition(ph, &ev)
		}
		ph.Events = push(ph.Events, ev, b.lim, &ph.Dropped)
		b.chk.partition(ph, &ph.Events[len(ph.Events)-1], ec)
	})
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
	ph, ok := b.h.partitions[tp]
	if !ok {
		ph = &PartitionHistory{Topic: name, TopicID: tp.TopicID, Partition: tp.Partition}
		b.h.partitions[tp] = ph
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
	b.emit(func() {
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
	})
}

func (b *Builder) topicDeleted(pos Position, r record.Record, id record.UUID, name string, parts []image.PartitionRegistration) {
	for i := range parts {
		tp := TopicPartition{id, parts[i].ID()}
		var prev PartitionState
		if slot := b.last[tp]; slot != nil {
			prev = slot.state
		}
		bs := stateOf(&parts[i], prev)
		delete(b.last, tp)
		ev := PartitionEvent{At: pos, Changed: Deleted, Before: bs, Record: r}
		b.emit(func() {
			ph := b.partitionHistory(tp, name)
			if b.tl != nil {
				b.tl.partition(ph, &ev)
			}
			ph.Events = push(ph.Events, ev, b.lim, &ph.Dropped)
			b.chk.partition(ph, &ph.Events[len(ph.Events)-1], elrContext{})
		})
	}
	delete(b.created, id)
	b.emit(func() {
		th := b.topicHistory(id, name)
		th.Events = push(th.Events, TopicEvent{At: pos, Kind: TopicDeleted, Record: r}, b.lim, &th.Dropped)
	})
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
