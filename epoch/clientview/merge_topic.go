package clientview

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/record"
)

// mergeTopic merges one topic of the answer and reports whether the topic
// was one of the receiver's; it leaves in m.slot the slot of the entry's
// topic in the table being written (-1: none). hint is a slot of the
// receiver's table where the answer's name may be (-1: none).
func (m *merger) mergeTopic(rt *kmsg.MetadataResponseTopic, hint int32) bool {
	var name string
	id := record.UUID(rt.TopicID)
	switch {
	case rt.Topic != nil && *rt.Topic != "":
		name = *rt.Topic
	case id != record.ZeroUUID:
		n, ok := m.nameOf(id)
		if !ok {
			return false // UNKNOWN_TOPIC_ID for an id the view never knew
		}
		name = n
	default:
		m.rep.Invalid++
		return false
	}
	// orig is the receiver's topic, old the topic as this merge has made it
	// so far (another entry of the answer may have named it already).
	orig, slot := m.v.tab.topicAt(hint, name), hint
	if orig == nil {
		orig, slot = m.v.tab.find(name)
	}
	old, known := orig, orig != nil
	m.slot = slot
	if m.tw.started {
		t := &m.tw.t
		switch {
		case m.tw.rebuilt:
			old = nil
		case orig != nil && t.at(slot) == orig:
			// Not replaced yet by this merge: no second name comparison.
		default:
			old = t.topicAt(slot, name)
		}
		if old == nil {
			old, m.slot = t.find(name)
		}
	}
	switch kafkaerr.FromInt16(rt.ErrorCode) {
	case kafkaerr.UnknownTopicOrPartition, kafkaerr.UnknownTopicID:
		if old != nil {
			m.gone(name, old)
		}
		return known
	case kafkaerr.TopicAuthorizationFailed, kafkaerr.InvalidTopic:
		// Surfaced to the embedder, not refreshed (Metadata.java records
		// these and throws them to the caller).
		if old == nil {
			m.put(name, nil, &Topic{name: name, errorCode: rt.ErrorCode})
		} else if old.errorCode != rt.ErrorCode {
			nt := *old
			nt.errorCode = rt.ErrorCode
			m.put(name, old, &nt)
		}
		return known
	}
	if id != record.ZeroUUID && (old == nil || old.id != id) && m.idTaken(id, name) {
		m.rep.Invalid++
		return known
	}
	if old == nil {
		nt := &Topic{name: name, id: id}
		m.fill(nt, rt, nil)
		m.event(Event{Kind: TopicAdded, Topic: name, After: int32(len(nt.parts)), TopicID: id})
		m.rep.Progress = true
		m.put(name, nil, nt)
		return known
	}
	if id != record.ZeroUUID && old.id != record.ZeroUUID && id != old.id {
		m.otherID(name, old, rt, id)
		return known
	}
	m.mergeInto(name, old, rt, id)
	return known
}

// unchangedTopic reports whether the answer entry rt describes the
// receiver's topic in slot hint exactly as the view holds it, a topic this
// merge has not replaced yet: the case of most entries of a periodic
// refresh, which Merge then skips without a write. It is mergeTopic's and
// mergeInto's own test for that case (same name, no topic error, same id or
// none, nothing topic-level pending, every partition unchangedBy its
// answer), taken before their general steps.
func (m *merger) unchangedTopic(rt *kmsg.MetadataResponseTopic, hint int32) bool {
	tab := &m.v.tab
	if hint < 0 || int(hint) >= tab.slots() || rt.Topic == nil || rt.ErrorCode != 0 || m.version < 9 ||
		m.tw.rebuilt {
		return false
	}
	t := tab.at(hint)
	if t == nil || t == tombstone || (m.tw.started && m.tw.t.at(hint) != t) {
		return false
	}
	id := record.UUID(rt.TopicID)
	if t.errorCode != 0 || t.internal != rt.IsInternal || t.refresh || t.gone != 0 || t.idStreak.n != 0 ||
		len(rt.Partitions) > len(t.parts) || (id != t.id && id != record.ZeroUUID) || t.name != *rt.Topic {
		return false
	}
	return settledRun(t.parts[:len(rt.Partitions)], rt.Partitions) == len(rt.Partitions)
}

// idTaken reports whether another topic of the view holds id: an answer
// giving it to a second name is bad input (Kafka never reuses a topic id), so
// the entry is ignored rather than filed under two names.
func (m *merger) idTaken(id record.UUID, name string) bool {
	owner, ok := m.nameOf(id)
	if !ok || owner == name {
		return false
	}
	t := m.get(owner)
	return t != nil && t.id == id
}

// gone handles an answer saying a known topic does not exist: a lagging
// broker that has not seen a new topic yet, or a deleted topic.
func (m *merger) gone(name string, old *Topic) {
	nt := *old
	if nt.gone < 255 {
		nt.gone++
	}
	nt.refresh = true
	limit := m.rewind
	if limit == 0 {
		limit = 1
	}
	if int(nt.gone) >= limit {
		m.event(Event{Kind: TopicDeleted, Topic: name, Before: int32(len(old.parts)), TopicID: old.id})
		m.rep.Progress = true
		m.put(name, old, nil)
		return
	}
	m.put(name, old, &nt)
}

// absent marks the view's topics missing from a full answer.
func (m *merger) absent(resp *kmsg.MetadataResponse) {
	seen := make(map[string]struct{}, len(resp.Topics))
	for i := range resp.Topics {
		if t := resp.Topics[i].Topic; t != nil {
			seen[*t] = struct{}{}
		}
	}
	for t := range m.v.tab.all() {
		name := t.name
		if _, ok := seen[name]; ok {
			continue
		}
		var old *Topic
		if old, m.slot = m.tw.table().find(name); old != nil {
			m.gone(name, old)
		}
	}
}

// otherID handles an answer carrying another topic id for a known name.
func (m *merger) otherID(name string, old *Topic, rt *kmsg.MetadataResponseTopic, id record.UUID) {
	if old.isRetired(id) {
		// An incarnation the view already replaced: only a lagging broker
		// still describes it. Refused like an older epoch, with the same
		// escape so a wrong replacement cannot stick forever.
		nt := *old
		if nt.idStreak.id == id && nt.idStreak.n > 0 {
			if nt.idStreak.n < 255 {
				nt.idStreak.n++
			}
		} else {
			nt.idStreak.id, nt.idStreak.n = id, 1
		}
		if m.rewind == 0 || int(nt.idStreak.n) < m.rewind {
			nt.refresh = true
			m.rep.Refused++
			m.event(Event{Kind: StaleTopicID, Topic: name, TopicID: id, OldTopicID: old.id})
			m.put(name, old, &nt)
			return
		}
	}
	// The topic was deleted and recreated (KAFKA-12257): nothing of the old
	// incarnation's partitions or epochs applies to the new one.
	nt := &Topic{name: name, id: id}
	nt.retired = append(nt.retired, old.retired...)
	nt.retired = slices.DeleteFunc(nt.retired, func(r record.UUID) bool { return r == id })
	nt.retired = append(nt.retired, old.id)
	if len(nt.retired) > retiredIDs {
		nt.retired = nt.retired[len(nt.retired)-retiredIDs:]
	}
	m.fill(nt, rt, nil)
	m.event(Event{Kind: TopicRecreated, Topic: name, Before: int32(len(old.parts)), After: int32(len(nt.parts)),
		TopicID: id, OldTopicID: old.id})
	m.rep.Progress = true
	m.put(name, old, nt)
}

// answerCount returns the partition count an answer implies over a topic of
// have partitions, ignoring ids far past it.
func (m *merger) answerCount(rt *kmsg.MetadataResponseTopic, have int) int {
	n := have
	limit := have + len(rt.Partitions) + maxPartitionGap
	for i := range rt.Partitions {
		id := int(rt.Partitions[i].Partition)
		if id >= n && id < limit {
			n = id + 1
		}
	}
	return n
}

// fill makes nt's partitions from an answer (a new topic or incarnation).
func (m *merger) fill(nt *Topic, rt *kmsg.MetadataResponseTopic, _ *Topic) {
	nt.errorCode = rt.ErrorCode
	nt.internal = rt.IsInternal
	nt.refresh = rt.ErrorCode != 0
	n := m.answerCount(rt, 0)
	nt.parts = make([]Partition, n)
	for i := range nt.parts {
		nt.parts[i] = placeholder(int32(i))
	}
	// The topic's lists in one array (a partition named twice takes its
	// second lists from the heap).
	size := 0
	for i := range rt.Partitions {
		ap := &rt.Partitions[i]
		size += len(clip(ap.Replicas)) + len(clip(ap.ISR)) + len(clip(ap.OfflineReplicas))
	}
	m.lists = make([]int32, 0, size)
	for i := range rt.Partitions {
		ap := &rt.Partitions[i]
		if ap.Partition < 0 || int(ap.Partition) >= n {
			m.rep.Invalid++
			continue
		}
		nt.parts[ap.Partition], _ = m.mergePartition(&nt.parts[ap.Partition], ap, nt.name)
	}
	m.lists = nil
	nt.recount()
}

func placeholder(id int32) Partition {
	return Partition{id: id, leader: -1, leaderEpoch: -1, seenEpoch: -1, flags: Missing | NeedsRefresh}
}

// mergeInto merges an answer about the same incarnation into old.
func (m *merger) mergeInto(name string, old *Topic, rt *kmsg.MetadataResponseTopic, id record.UUID) {
	var nt *Topic
	ensure := func() {
		if nt == nil {
			nt = old.clone()
		}
	}
	if old.id == record.ZeroUUID && id != record.ZeroUUID {
		// From no topic ids to ids is not a recreation (KAFKA-12257).
		ensure()
		nt.id = id
	}
	refresh := rt.ErrorCode != 0
	sameTopic := old.errorCode == rt.ErrorCode && old.internal == rt.IsInternal && old.refresh == refresh &&
		old.gone == 0 && old.idStreak.n == 0
	// Fast path: the answer's partitions in id order, each identical to a
	// settled partition of the view, are skipped by a tight loop; the
	// general loop below resumes at the first that is not.
	start := 0
	if m.version >= 9 {
		start = old.settledPrefix(rt.Partitions)
		if start == len(rt.Partitions) && sameTopic && nt == nil {
			return
		}
	}
	if !sameTopic {
		ensure()
		nt.errorCode, nt.internal, nt.refresh, nt.gone = rt.ErrorCode, rt.IsInternal, refresh, 0
		nt.idStreak.n = 0
	}
	have := len(old.parts)
	limit := have + len(rt.Partitions) + maxPartitionGap
	for i := start; i < len(rt.Partitions); i++ {
		ap := &rt.Partitions[i]
		id := int(ap.Partition)
		if id < 0 || id >= limit {
			m.rep.Invalid++
			continue
		}
		var cur *Partition
		if nt != nil && id < len(nt.parts) {
			cur = &nt.parts[id]
		} else if id < have {
			cur = &old.parts[id]
		} else {
			// Growth: placeholders up to this id, filled below or by later
			// entries of the answer.
			ensure()
			for j := len(nt.parts); j <= id; j++ {
				nt.parts = append(nt.parts, placeholder(int32(j)))
			}
			cur = &nt.parts[id]
		}
		if m.version >= 9 && cur.unchangedBy(ap) {
			continue
		}
		p, changed := m.mergePartition(cur, ap, name)
		if changed {
			ensure()
			nt.parts[id] = p
		}
	}
	if nt != nil && len(nt.parts) > have {
		m.event(Event{Kind: PartitionsGrew, Topic: name, Before: int32(have), After: int32(len(nt.parts)), TopicID: nt.id})
		m.rep.Progress = true
	}
	if nt != nil {
		nt.recount()
		m.put(name, old, nt)
	}
}
