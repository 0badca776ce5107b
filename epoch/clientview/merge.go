package clientview

import (
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/epoch"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/record"
)

// Kafka error codes the client rules look at (org.apache.kafka.common.protocol.Errors),
// as the int16 of kmsg's fields.
const (
	errUnknownTopicOrPartition = int16(kafkaerr.UnknownTopicOrPartition)
	errLeaderNotAvailable      = int16(kafkaerr.LeaderNotAvailable)
	errNotLeaderOrFollower     = int16(kafkaerr.NotLeaderOrFollower)
	errReplicaNotAvailable     = int16(kafkaerr.ReplicaNotAvailable)
	errInvalidTopic            = int16(kafkaerr.InvalidTopic)
	errTopicAuthorization      = int16(kafkaerr.TopicAuthorizationFailed)
	errKafkaStorage            = int16(kafkaerr.KafkaStorageError)
	errFencedLeaderEpoch       = int16(kafkaerr.FencedLeaderEpoch)
	errUnknownTopicID          = int16(kafkaerr.UnknownTopicID)
)

// MergeOptions describe the request an answer replies to.
type MergeOptions struct {
	// AllTopics: the request asked for every topic (Topics null). A topic of
	// the view absent from such an answer is marked for refresh, and removed
	// after RewindAfter consecutive full answers without it (once when
	// rewinds are disabled, as the Java client drops it at once).
	AllTopics bool
	// Node is the broker that answered, when HasNode is set. It lets the
	// rewind escape require two distinct brokers.
	Node    int32
	HasNode bool
}

// EventKind says what an Event reports.
type EventKind uint8

const (
	// TopicAdded: a topic new to the view.
	TopicAdded EventKind = iota + 1
	// TopicRecreated: an answer carried another topic id for a known name
	// (KAFKA-12257): the old incarnation's partitions and epochs are dropped.
	// OldTopicID is the replaced id.
	TopicRecreated
	// TopicDeleted: the topic was removed from the view after consecutive
	// answers agreeing it does not exist.
	TopicDeleted
	// PartitionsGrew: Before and After are the partition counts (scenario 3:
	// keys hashed modulo Before now go modulo After; see Moves).
	PartitionsGrew
	// LeaderMoved: Before and After are the leaders, Epoch the new epoch.
	LeaderMoved
	// StaleAnswer: an answer with an older leader epoch (After) than the
	// view's (Before) was ignored.
	StaleAnswer
	// SuspectLeader: an answer named leader After at the view's own epoch
	// Epoch, where the view knows leader Before (redpanda-data/redpanda#31668).
	SuspectLeader
	// RewindAccepted: RewindAfter consecutive answers agreed on an older
	// epoch (After) than the view's (Before): the view took it (franz-go#119).
	RewindAccepted
	// StaleTopicID: an answer described an incarnation of the topic that the
	// view has already replaced; it was ignored.
	StaleTopicID
	// ClusterIDChanged: the answer came from another cluster.
	ClusterIDChanged
)

var eventNames = [...]string{"", "TopicAdded", "TopicRecreated", "TopicDeleted", "PartitionsGrew",
	"LeaderMoved", "StaleAnswer", "SuspectLeader", "RewindAccepted", "StaleTopicID", "ClusterIDChanged"}

// String returns the kind's name.
func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "EventKind(?)"
}

// Event is one thing a merge or hint changed or refused.
type Event struct {
	Kind       EventKind
	Topic      string
	Partition  int32
	Before     int32
	After      int32
	Epoch      int32
	TopicID    record.UUID
	OldTopicID record.UUID
}

// Report says what a merge or a hint did.
type Report struct {
	// Changed: the returned view is not the receiver.
	Changed bool
	// Progress: the answer told the view something newer (a higher epoch, a
	// new leader, topic or partition). An answer without progress is what the
	// Java client counts as an equivalent response (equivalentResponseCount),
	// which backs its next refresh off.
	Progress bool
	// ErrorCode is the top-level error of a Metadata v13 answer
	// (REBOOTSTRAP_REQUIRED, KIP-1102); such an answer is not merged.
	ErrorCode int16
	// Refused counts partitions whose answer was ignored (stale or suspect).
	Refused int
	// Invalid counts entries ignored as bad input (no topic name or id,
	// negative partition ids, partition ids far past the known count).
	Invalid int
	Events  []Event
}

type merger struct {
	v       *View
	rep     Report
	opts    MergeOptions
	version int16
	rewind  int

	changed bool
	// tw writes the next view's name index, copying only the chunks of the
	// receiver's it touches.
	tw tableWriter
	// slot is the slot of the current answer entry's topic in the table
	// being written (-1: none).
	slot int32
	// order is the next view's order from the first entry whose slot differs
	// from the receiver's on; nil while they agree.
	order      []int32
	ids        map[record.UUID]string
	lists      []int32 // room for the replica lists of the topic being filled
	refreshing int
	brokers    []Broker
	controller int32
	clusterID  *string
}

// Merge merges a Metadata answer of any version into the view and returns
// the next view; the receiver is not modified. resp is not retained.
//
// Per partition (Kafka's Metadata.updateLatestMetadata, with the
// fixes other clients learnt the hard way):
//
//   - An answer with an older leader epoch does not replace a newer one; the
//     partition is marked Stale and NeedsRefresh, so the client asks again
//     soon instead of waiting for metadata.max.age.ms (redpanda#27629).
//   - Unless the topic id changed (the topic was recreated, KAFKA-12257), or
//     ViewConfig.RewindAfter consecutive answers agree on the same older epoch
//     and leader (twmb/franz-go#119).
//   - Leader -1 means "no leader known": the last known leader and epoch are
//     kept, the partition is flagged NoLeader and NeedsRefresh, and this is
//     never counted as a rewind (twmb/franz-go#1331).
//   - An answer without a reliable epoch (Metadata below v9, or leader epoch
//     -1) names a leader the view takes, without an epoch (KAFKA-9212: the
//     Java client drops the epoch; librdkafka#4796: a client refusing such
//     answers stays on the old leader forever). Unlike Java, the view keeps
//     SeenEpoch, so a later answer older than what it saw is still refused.
//   - An equal epoch naming another leader is flagged Suspect and the view
//     keeps its leader (redpanda#31668: a broker guessing leaders at one
//     epoch made librdkafka flip between brokers).
//   - Leaderless and errored partitions are never dropped, and the
//     partition count never shrinks for one topic id (kafkaex/kafka_ex#594:
//     dropping them changes key → partition mapping).
//   - Partition-count growth is reported (PartitionsGrew).
//
// The broker list is replaced by the answer's, as the Java client does; the
// controller id and cluster id too.
//
// When the answer changes nothing, Merge returns the receiver itself and
// allocates nothing.
func (v *View) Merge(resp *kmsg.MetadataResponse, opts MergeOptions) (*View, Report) {
	if resp == nil {
		return v, Report{}
	}
	if resp.ErrorCode != 0 {
		return v, Report{ErrorCode: resp.ErrorCode}
	}
	m := merger{v: v, opts: opts, version: resp.Version, rewind: v.cfg.rewindAfter(),
		refreshing: v.refreshing, brokers: v.brokers, controller: v.controller, clusterID: v.clusterID,
		tw: tableWriter{base: &v.tab}}
	m.mergeBrokers(resp)
	if resp.Version >= 1 && resp.ControllerID != m.controller {
		m.controller = resp.ControllerID
		m.changed = true
	}
	if resp.ClusterID != nil && (m.clusterID == nil || *m.clusterID != *resp.ClusterID) {
		if m.clusterID != nil {
			m.event(Event{Kind: ClusterIDChanged})
		}
		id := *resp.ClusterID
		m.clusterID = &id
		m.changed = true
	}
	answered := 0
	for i := range resp.Topics {
		rt := &resp.Topics[i]
		// The view remembers, for each entry of the answer that made it, the
		// slot of that entry's topic: the same broker answers the same topics
		// in the same order, so the topic at i is found without hashing.
		hint := int32(-1)
		if i < len(v.order) && rt.Topic != nil {
			hint = v.order[i]
		}
		m.slot = -1
		if m.mergeTopic(rt, hint) {
			answered++
		}
		slot := int32(-1)
		if rt.Topic != nil {
			slot = m.slot
		}
		if m.order == nil {
			if i < len(v.order) && v.order[i] == slot {
				continue
			}
			m.order = make([]int32, len(resp.Topics))
			copy(m.order, v.order[:i])
		}
		m.order[i] = slot
	}
	if opts.AllTopics && answered < v.tab.n {
		m.absent(resp)
	}
	if !m.changed {
		return v, m.rep
	}
	m.rep.Changed = true
	next := &View{cfg: v.cfg, brokers: m.brokers, controller: m.controller, clusterID: m.clusterID,
		tab: m.tw.finish(), ids: v.ids, refreshing: m.refreshing, updates: v.updates + 1}
	switch {
	case m.tw.rebuilt:
		// Slots moved: the order is looked up again in the new table.
		next.order = make([]int32, len(resp.Topics))
		for i := range resp.Topics {
			next.order[i] = -1
			if n := resp.Topics[i].Topic; n != nil {
				_, next.order[i] = next.tab.find(*n)
			}
		}
	case m.order != nil:
		next.order = m.order
	default:
		// Every entry's slot is the receiver's: its order is shared (it is
		// never modified).
		next.order = v.order[:len(resp.Topics)]
	}
	if m.ids != nil {
		next.ids = m.ids
	}
	return checkedView(next), m.rep
}

func (m *merger) event(e Event) { m.rep.Events = append(m.rep.Events, e) }

// get returns the topic named name as the merge has made it so far.
func (m *merger) get(name string) *Topic { return m.tw.table().get(name) }

func (m *merger) nameOf(id record.UUID) (string, bool) {
	if m.ids != nil {
		n, ok := m.ids[id]
		return n, ok
	}
	n, ok := m.v.ids[id]
	return n, ok
}

// put replaces topic old (nil: none) by nt (nil: delete) under name.
func (m *merger) put(name string, old, nt *Topic) {
	m.changed = true
	m.slot = m.tw.set(name, old, nt, m.slot)
	if old != nil && old.NeedsRefresh() {
		m.refreshing--
	}
	if nt != nil && nt.NeedsRefresh() {
		m.refreshing++
	}
	var zero record.UUID
	oldID, newID := zero, zero
	if old != nil {
		oldID = old.id
	}
	if nt != nil {
		newID = nt.id
	}
	if oldID == newID {
		return
	}
	if m.ids == nil {
		m.ids = maps.Clone(m.v.ids)
	}
	if oldID != zero && m.ids[oldID] == name {
		delete(m.ids, oldID)
	}
	if newID != zero {
		m.ids[newID] = name
	}
}

func (m *merger) mergeBrokers(resp *kmsg.MetadataResponse) {
	same := len(resp.Brokers) == len(m.brokers)
	for i := 0; same && i < len(resp.Brokers); i++ {
		b := &resp.Brokers[i]
		j := sort.Search(len(m.brokers), func(j int) bool { return m.brokers[j].NodeID >= b.NodeID })
		same = j < len(m.brokers) && m.brokers[j].equal(b.NodeID, b.Host, b.Port, b.Rack)
	}
	if same {
		return
	}
	bs := make([]Broker, 0, len(resp.Brokers))
	for i := range resp.Brokers {
		b := &resp.Brokers[i]
		nb := Broker{NodeID: b.NodeID, Host: b.Host, Port: b.Port}
		if b.Rack != nil {
			r := *b.Rack
			nb.Rack = &r
		}
		bs = append(bs, nb)
	}
	m.brokers = sortBrokers(bs)
	m.changed = true
}

// sortBrokers sorts by node id, the last entry of a duplicated id winning.
func sortBrokers(bs []Broker) []Broker {
	sort.SliceStable(bs, func(i, j int) bool { return bs[i].NodeID < bs[j].NodeID })
	out := bs[:0]
	for i := range bs {
		if len(out) > 0 && out[len(out)-1].NodeID == bs[i].NodeID {
			out[len(out)-1] = bs[i]
			continue
		}
		out = append(out, bs[i])
	}
	return out
}

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
	switch rt.ErrorCode {
	case errUnknownTopicOrPartition, errUnknownTopicID:
		if old != nil {
			m.gone(name, old)
		}
		return known
	case errTopicAuthorization, errInvalidTopic:
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
	return Partition{ID: id, Leader: -1, LeaderEpoch: -1, SeenEpoch: -1, Flags: Missing | NeedsRefresh}
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

// mergePartition applies one partition answer to cur and returns the result
// and whether it differs. It allocates only when the replica lists change.
func (m *merger) mergePartition(cur *Partition, ap *kmsg.MetadataResponseTopicPartition, topic string) (Partition, bool) {
	p := *cur
	leader, ep := ap.Leader, ap.LeaderEpoch
	if leader < 0 {
		leader = -1
	}
	// KAFKA-9212: epochs of Metadata answers below v9 are unreliable;
	// Metadata v7-v8 carry one, earlier versions none (-1).
	reliable := m.version >= 9 && ep >= 0
	listsChanged := false
	switch {
	case p.Flags&Missing != 0:
		// First description of this partition.
		if leader >= 0 {
			p.Leader = leader
		}
		p.LeaderEpoch, p.SeenEpoch = -1, -1
		if reliable {
			p.SeenEpoch = ep
			if leader >= 0 {
				p.LeaderEpoch = ep
			}
		}
		p.Flags = 0
		if leader < 0 {
			p.Flags |= NoLeader
		} else if !reliable {
			p.Flags |= EpochUnknown
		}
		listsChanged = m.setLists(&p, ap)
		m.rep.Progress = true
		p.ErrorCode = ap.ErrorCode
		p.setStreak(streak{})
	case !reliable && leader < 0:
		// twmb/franz-go#1331: "no leader, no epoch" is not a rewind. Keep the
		// last known leader and epoch; ask again soon.
		p.Flags |= NoLeader
		p.ErrorCode = ap.ErrorCode
	case !reliable:
		// KAFKA-9212 / librdkafka#4796: take the leader without an epoch.
		if leader != p.Leader || p.Flags&NoLeader != 0 {
			if leader != p.Leader {
				m.event(Event{Kind: LeaderMoved, Topic: topic, Partition: p.ID, Before: p.Leader, After: leader, Epoch: -1})
			}
			m.rep.Progress = true
			p.Leader, p.LeaderEpoch = leader, -1
			p.Flags |= EpochUnknown
		}
		p.Flags &^= NoLeader | Stale | Suspect
		listsChanged = m.setLists(&p, ap)
		p.ErrorCode = ap.ErrorCode
		p.setStreak(streak{})
	case ep > p.SeenEpoch:
		m.rep.Progress = true
		listsChanged = m.accept(&p, ap, leader, ep, topic)
	case ep == p.SeenEpoch:
		switch {
		case leader < 0,
			p.Flags&NoLeader != 0, // the view knew no leader at this epoch
			p.LeaderEpoch != ep,   // nor had a leader named at this epoch
			leader == p.Leader:
			if leader >= 0 && (leader != p.Leader || p.LeaderEpoch != ep || p.Flags&NoLeader != 0) {
				m.rep.Progress = true
			}
			listsChanged = m.accept(&p, ap, leader, ep, topic)
		default:
			listsChanged = m.refuse(&p, ap, leader, ep, Suspect, topic)
		}
	default:
		listsChanged = m.refuse(&p, ap, leader, ep, Stale, topic)
	}
	if p.Flags&NoLeader != 0 || epoch.InvalidMetadata(kafkaerr.Code(p.ErrorCode)) || p.Flags&(Stale|Suspect) != 0 {
		p.Flags |= NeedsRefresh
	} else {
		p.Flags &^= NeedsRefresh
	}
	return p, listsChanged || !p.sameScalars(cur)
}

// accept takes an answer at epoch ep ≥ SeenEpoch (or forced by an escape).
func (m *merger) accept(p *Partition, ap *kmsg.MetadataResponseTopicPartition, leader, ep int32, topic string) bool {
	if leader >= 0 {
		if leader != p.Leader {
			m.event(Event{Kind: LeaderMoved, Topic: topic, Partition: p.ID, Before: p.Leader, After: leader, Epoch: ep})
		}
		p.Leader, p.LeaderEpoch = leader, ep
		p.Flags &^= NoLeader | EpochUnknown
	} else {
		p.Flags |= NoLeader
	}
	p.SeenEpoch = ep
	p.Flags &^= Stale | Suspect
	p.ErrorCode = ap.ErrorCode
	p.setStreak(streak{})
	return m.setLists(p, ap)
}

// refuse ignores an answer older than the view (flag Stale) or naming
// another leader at the view's epoch (flag Suspect), counting the streak of
// agreeing answers that lets the view escape a cluster that really went back.
func (m *merger) refuse(p *Partition, ap *kmsg.MetadataResponseTopicPartition, leader, ep int32, flag Flags, topic string) bool {
	node := int32(-1)
	if m.opts.HasNode {
		node = m.opts.Node
	}
	s := p.streak()
	if s.n > 0 && s.epoch == ep && s.leader == leader {
		if s.n < 255 {
			s.n++
		}
		if node >= 0 && s.node >= 0 && node != s.node {
			s.multi = true
		}
	} else {
		s = streak{epoch: ep, leader: leader, node: node, n: 1}
	}
	if m.rewind > 0 && int(s.n) >= m.rewind && (s.node < 0 || s.multi) {
		m.event(Event{Kind: RewindAccepted, Topic: topic, Partition: p.ID, Before: p.SeenEpoch, After: ep})
		m.rep.Progress = true
		return m.accept(p, ap, leader, ep, topic)
	}
	p.setStreak(s)
	p.Flags |= flag
	m.rep.Refused++
	if flag == Suspect {
		m.event(Event{Kind: SuspectLeader, Topic: topic, Partition: p.ID, Before: p.Leader, After: leader, Epoch: ep})
	} else {
		m.event(Event{Kind: StaleAnswer, Topic: topic, Partition: p.ID, Before: p.SeenEpoch, After: ep})
	}
	return false
}

// settledPrefix returns how many leading entries of aps answer partitions
// 0, 1, 2... of t exactly as t holds them (unchangedBy): the entries Merge
// skips without a write. It reads plain fields only.
func (t *Topic) settledPrefix(aps []kmsg.MetadataResponseTopicPartition) int {
	parts := t.parts
	n := min(len(aps), len(parts))
	for i := 0; i < n; i++ {
		if aps[i].Partition != int32(i) || !parts[i].unchangedBy(&aps[i]) {
			return i
		}
	}
	return n
}

// unchangedBy is the fast path of an answer identical to a settled
// partition: no flags, no streak, same error, leader and epoch, same lists.
// It is exactly the case where mergePartition would return cur unchanged
// (with no flags set, NeedsRefresh is clear, so the error code is not one of
// epoch.InvalidMetadata's: mergePartition sets NeedsRefresh for those).
func (p *Partition) unchangedBy(ap *kmsg.MetadataResponseTopicPartition) bool {
	if p.Flags != 0 || p.streakN != 0 || ap.ErrorCode != p.ErrorCode || ap.Leader != p.Leader ||
		ap.LeaderEpoch != p.LeaderEpoch || p.LeaderEpoch != p.SeenEpoch || p.Leader < 0 || p.LeaderEpoch < 0 {
		return false
	}
	nr, ni := int(p.nRep), int(p.nISR)
	if len(ap.Replicas) != nr || len(ap.ISR) != ni || len(ap.OfflineReplicas) != int(p.nOff) {
		return false
	}
	l := p.allLists()
	for i, x := range ap.Replicas {
		if l[i] != x {
			return false
		}
	}
	for i, x := range ap.ISR {
		if l[nr+i] != x {
			return false
		}
	}
	for i, x := range ap.OfflineReplicas {
		if l[nr+ni+i] != x {
			return false
		}
	}
	return true
}

// setLists takes the answer's replica lists, keeping the current backing
// array when they are equal. It reports whether they changed. The new array
// is carved from m.lists when that has room (a new topic's lists end to end,
// read in one stream by the next merge), allocated alone otherwise.
func (m *merger) setLists(p *Partition, ap *kmsg.MetadataResponseTopicPartition) bool {
	if slices.Equal(p.replicas(), ap.Replicas) && slices.Equal(p.isr(), ap.ISR) &&
		slices.Equal(p.offline(), ap.OfflineReplicas) {
		return false
	}
	// A replica list longer than 65 535 brokers is bad input: kept clipped.
	rep, isr, off := clip(ap.Replicas), clip(ap.ISR), clip(ap.OfflineReplicas)
	p.lists, p.nRep, p.nISR, p.nOff = nil, uint16(len(rep)), uint16(len(isr)), uint16(len(off))
	n := len(rep) + len(isr) + len(off)
	if n == 0 {
		return true
	}
	var l []int32
	if k := len(m.lists); cap(m.lists)-k >= n {
		l = m.lists[k : k : k+n]
		m.lists = m.lists[:k+n]
	} else {
		l = make([]int32, 0, n)
	}
	l = append(l, rep...)
	l = append(l, isr...)
	l = append(l, off...)
	p.lists = &l[0]
	return true
}

func clip(l []int32) []int32 { return l[:min(len(l), math.MaxUint16)] }

func (p *Partition) sameScalars(q *Partition) bool {
	return p.ID == q.ID && p.Leader == q.Leader && p.LeaderEpoch == q.LeaderEpoch &&
		p.SeenEpoch == q.SeenEpoch && p.ErrorCode == q.ErrorCode && p.Flags == q.Flags &&
		p.streak() == q.streak() && p.nRep == q.nRep && p.nISR == q.nISR && p.nOff == q.nOff
}
