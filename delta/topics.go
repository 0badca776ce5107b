package delta

import (
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// The replay of topics and partitions (Kafka's TopicsDelta and
// TopicDelta).

// liveTopicID returns the id a live topic named name has in the delta's
// current view: created here first, then the base image unless deleted (in
// a snapshot delta, only topics the snapshot asserted).
func (d *Delta) liveTopicID(name string) (record.UUID, bool) {
	if id, ok := d.created.get(name); ok {
		return id, true
	}
	if d.snapshot {
		if id, ok := d.base.Topics().IDOf(name); ok {
			if td, ok := d.topics[id]; ok && td.name == name {
				return id, true
			}
		}
		return record.UUID{}, false
	}
	id, ok := d.base.Topics().IDOf(name)
	if !ok {
		return record.UUID{}, false
	}
	if _, gone := d.deleted[id]; gone {
		return record.UUID{}, false
	}
	return id, true
}

// liveTopic returns the name of live topic id and its current partitions.
func (d *Delta) liveTopic(id record.UUID) (*topicDelta, image.Topic, bool) {
	if td := d.growing; td != nil && td.id == id && !td.dropped {
		return td, td.base, true // a topic's records come one after another
	}
	if td, ok := d.topics[id]; ok {
		return td, td.base, true
	}
	if _, gone := d.deleted[id]; gone {
		return nil, image.Topic{}, false
	}
	t, ok := d.base.Topics().ByID(id)
	return nil, t, ok
}

// replayTopic follows TopicsDelta.replay(TopicRecord): the topic starts over
// with no partitions, replacing anything this delta held for that id (a
// snapshot re-asserting a topic keeps only the snapshot's partitions).
// kmeta rejects a TopicRecord whose name is live under another id, or whose
// id is live under another name.
func (d *Delta) replayTopic(r *record.TopicRecord) error {
	if id, ok := d.liveTopicID(r.Name); ok && id != r.TopicID {
		return reject(r, "topic %q already exists with id %s", r.Name, id)
	}
	if td, t, ok := d.liveTopic(r.TopicID); ok {
		name := ""
		if td != nil {
			name = td.name
		} else {
			name = t.Name()
		}
		if name != r.Name && !(d.snapshot && td == nil) {
			return reject(r, "topic id %s already belongs to topic %q", r.TopicID, name)
		}
	}
	// The topic to fill (its name hashed now, while the record is at hand).
	b := image.NewTopicBuilder(r.Name, r.TopicID)
	if d.topics == nil {
		d.topics = map[record.UUID]*topicDelta{}
	}
	if old, ok := d.topics[r.TopicID]; ok {
		old.dropped = true
		if old.name != r.Name {
			d.created.delete(old.name)
		}
	}
	td := d.order.add(topicDelta{name: r.Name, id: r.TopicID, b: b})
	d.topics[r.TopicID] = td
	d.created.set(td)
	return nil
}

// topicDeltaFor gets or creates the TopicDelta of a live topic.
func (d *Delta) topicDeltaFor(id record.UUID, td *topicDelta, base image.Topic) *topicDelta {
	if td != nil {
		return td
	}
	if d.topics == nil {
		d.topics = map[record.UUID]*topicDelta{}
	}
	td = d.order.add(topicDelta{base: base, name: base.Name(), id: id})
	d.topics[id] = td
	return td
}

// own gives td a builder of its partitions: a copy of the topic the last
// Apply froze, or of the base topic.
func (td *topicDelta) own() {
	switch {
	case td.b != nil:
	case !td.built.IsZero():
		td.b, td.built = image.NewTopicBuilderFrom(td.built), image.Topic{}
	default:
		td.b = image.NewTopicBuilderFrom(td.base)
	}
}

// freeze returns the topic as it now is, freezing its builder (the next
// change starts a new one from a copy).
func (td *topicDelta) freeze() image.Topic {
	if td.b != nil {
		td.built, td.b = td.b.Topic(), nil
	}
	if !td.built.IsZero() {
		return td.built
	}
	return td.base // not changed after all
}

// topic is the frozen topic td reads from when it has no builder.
func (td *topicDelta) topic() image.Topic {
	if !td.built.IsZero() {
		return td.built
	}
	return td.base
}

// numPartitions, partitionAt and partition read td's current partitions
// (in ascending id order); the partitions returned are copies.
func (td *topicDelta) numPartitions() int {
	if td.b != nil {
		return td.b.Len()
	}
	return td.topic().NumPartitions()
}

func (td *topicDelta) partitionAt(i int) image.PartitionRegistration {
	if td.b != nil {
		return td.b.At(i)
	}
	return td.topic().PartitionAt(i).Registration()
}

func (td *topicDelta) partition(id int32) (image.PartitionRegistration, bool) {
	if td.b != nil {
		return td.b.Partition(id)
	}
	if p, ok := td.topic().Partition(id); ok {
		return p.Registration(), true
	}
	return image.PartitionRegistration{}, false
}

// putPartition stores p in topic id.
func (d *Delta) putPartition(id record.UUID, td *topicDelta, base image.Topic, p image.PartitionRegistration) *topicDelta {
	td = d.topicDeltaFor(id, td, base)
	if d.growing != td {
		if g := d.growing; g != nil {
			d.sizeHint = g.numPartitions()
		}
		d.growing = td
		if td.base.IsZero() && td.b != nil && td.b.Len() == 0 {
			// A new topic: room for as many partitions as the topic
			// before it had (topics of a snapshot or a creation batch
			// are often alike), so that it grows in one allocation.
			td.b.Grow(max(d.sizeHint, 1))
		}
	}
	td.put(p)
	return td
}

// put stores p, replacing the partition with its id.
func (td *topicDelta) put(p image.PartitionRegistration) {
	td.own()
	if !td.base.IsZero() {
		if td.changed == nil {
			td.changed = map[int32]struct{}{}
		}
		td.changed[p.ID()] = struct{}{}
	}
	td.b.Put(p)
}

// replayPartition follows TopicsDelta.replay(PartitionRecord): the record
// replaces the whole partition (PartitionRegistration(PartitionRecord)).
// kmeta rejects a PartitionRecord for a topic id that is not live (Kafka
// fails later, in apply).
func (d *Delta) replayPartition(r *record.PartitionRecord) error {
	td, base, ok := d.liveTopic(r.TopicID)
	if !ok {
		return reject(r, "unknown topic id %s", r.TopicID)
	}
	if r.PartitionID < 0 {
		return reject(r, "negative partition id %d", r.PartitionID)
	}
	p, err := image.NewPartition(r)
	if err != nil {
		return reject(r, "%v", err)
	}
	td = d.putPartition(r.TopicID, td, base, p)
	if len(r.Directories) > 0 && !td.base.IsZero() {
		td.rewriteDirs(r.PartitionID)
	}
	return nil
}

// replayPartitionChange follows TopicsDelta.replay(PartitionChangeRecord)
// and PartitionRegistration.merge (see image.Partition.Merge for the field
// rules). The partition must exist, changed earlier in this delta or in the
// base image ("Unable to find partition").
func (d *Delta) replayPartitionChange(r *record.PartitionChangeRecord) error {
	td, base, ok := d.liveTopic(r.TopicID)
	if !ok {
		return reject(r, "unknown topic id %s", r.TopicID)
	}
	var cur image.PartitionRegistration
	if td != nil {
		cur, ok = td.partition(r.PartitionID)
	} else {
		var bp image.Partition
		if bp, ok = base.Partition(r.PartitionID); ok {
			cur = bp.Registration()
		}
	}
	if !ok {
		return reject(r, "unable to find partition %s:%d", r.TopicID, r.PartitionID)
	}
	p, err := cur.Merge(r)
	if err != nil {
		return reject(r, "%v", err)
	}
	td = d.putPartition(r.TopicID, td, base, p)
	if len(r.Directories) > 0 {
		td.rewriteDirs(r.PartitionID)
	}
	return nil
}

// rewriteDirs notes that a record of the delta gave partition id new
// directory Uuids (PartitionRegistration.merge takes the record's list), so
// that TopicDelta.localChanges, which compares directories by reference,
// reports them even where their values did not change.
func (td *topicDelta) rewriteDirs(id int32) {
	if td.base.IsZero() {
		return
	}
	if td.dirsRewritten == nil {
		td.dirsRewritten = map[int32]struct{}{}
	}
	td.dirsRewritten[id] = struct{}{}
}

// replayRemoveTopic follows TopicsDelta.replay(RemoveTopicRecord) and
// MetadataDelta's removal of the topic's configs. A topic created and
// removed within the delta leaves no trace. Quirk fixed:
// Kafka clears the configs only when the base image holds some for the
// topic, so configs written in the same delta survive; kmeta clears them
// regardless.
func (d *Delta) replayRemoveTopic(r *record.RemoveTopicRecord) error {
	td, base, ok := d.liveTopic(r.TopicID)
	if !ok {
		return reject(r, "unable to delete topic with id %s: no such topic found", r.TopicID)
	}
	name := ""
	if td != nil {
		name = td.name
		td.dropped = true
		delete(d.topics, r.TopicID)
		if id, ok := d.created.get(name); ok && id == r.TopicID {
			d.created.delete(name)
		}
	} else {
		name = base.Name()
	}
	if bt, ok := d.base.Topics().ByID(r.TopicID); ok {
		if d.deleted == nil {
			d.deleted = map[record.UUID]struct{}{}
		}
		d.deleted[r.TopicID] = struct{}{}
		if bt.Name() != name {
			d.clearConfigs(image.ConfigResource{Type: image.ConfigTopic, Name: bt.Name()})
		}
	}
	d.clearConfigs(image.ConfigResource{Type: image.ConfigTopic, Name: name})
	return nil
}

// replayClearELR follows TopicsDelta.replay(ClearElrRecord) (Kafka 4.0+,
// KAFKA-18649, KAFKA-19383): a name selects the topic created in this delta
// under that name, else the base image's; an empty name selects every live
// topic. Deleted topics are skipped. Every partition with a non-empty ELR or
// last known ELR gets both emptied and its partition epoch bumped.
// Difference kept small on purpose: Kafka creates a TopicDelta for every
// selected topic even when none of its partitions has ELRs; kmeta only for
// topics it changes (the image is the same).
func (d *Delta) replayClearELR(r *record.ClearElrRecord) error {
	if r.TopicName != "" {
		id, ok := d.created.get(r.TopicName)
		if !ok {
			id, ok = d.base.Topics().IDOf(r.TopicName)
		}
		if !ok {
			return reject(r, "unable to clear elr for topic with name %q: no such topic found", r.TopicName)
		}
		if _, gone := d.deleted[id]; gone {
			if _, recreated := d.topics[id]; !recreated {
				return nil
			}
		}
		d.clearTopicELR(id)
		return nil
	}
	for t := range d.base.Topics().All() {
		if _, gone := d.deleted[t.ID()]; gone {
			continue
		}
		if _, ok := d.topics[t.ID()]; ok {
			continue
		}
		d.clearTopicELR(t.ID())
	}
	for id := range d.topics {
		d.clearTopicELR(id)
	}
	return nil
}

func (d *Delta) clearTopicELR(id record.UUID) {
	td, base, ok := d.liveTopic(id)
	if !ok {
		return
	}
	view := td
	if view == nil {
		view = &topicDelta{base: base}
	}
	var cleared []image.PartitionRegistration
	for i := range view.numPartitions() {
		if p := view.partitionAt(i); p.HasELR() {
			cleared = append(cleared, p.WithoutELR())
		}
	}
	if len(cleared) == 0 {
		return
	}
	td = d.topicDeltaFor(id, td, base)
	for _, p := range cleared {
		td.put(p)
	}
}
