package clientview

import (
	"maps"
	"sort"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/record"
)

// merger is one Merge call: what it has made of the next view so far.
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
		return v, Report{ErrorCode: kafkaerr.FromInt16(resp.ErrorCode)}
	}
	m := merger{v: v, opts: opts, version: resp.Version, rewind: v.cfg.rewindAfter(),
		refreshing: v.refreshing, brokers: v.brokers, controller: v.controller, clusterID: v.clusterID,
		tw: tableWriter{base: &v.tab}}
	m.mergeCluster(resp)
	answered := m.mergeTopics(resp)
	if opts.AllTopics && answered < v.tab.n {
		m.absent(resp)
	}
	if !m.changed {
		return v, m.rep
	}
	m.rep.Changed = true
	return checkedView(m.next(resp)), m.rep
}

// mergeCluster takes the answer's brokers, controller id and cluster id.
func (m *merger) mergeCluster(resp *kmsg.MetadataResponse) {
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
}

// mergeTopics merges every topic entry of the answer, in order, and returns
// how many of them were topics of the receiver. It keeps the next view's
// order hint (m.order) as it goes.
func (m *merger) mergeTopics(resp *kmsg.MetadataResponse) (answered int) {
	v := m.v
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
		switch {
		case m.unchangedTopic(rt, hint):
			m.slot = hint
			answered++
		case m.mergeTopic(rt, hint):
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
	return answered
}

// next is the view the merge made of the receiver and the answer resp.
func (m *merger) next(resp *kmsg.MetadataResponse) *View {
	v := m.v
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
	return next
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
		j := sort.Search(len(m.brokers), func(j int) bool { return m.brokers[j].nodeID >= b.NodeID })
		same = j < len(m.brokers) && m.brokers[j].equal(b.NodeID, b.Host, b.Port, b.Rack)
	}
	if same {
		return
	}
	bs := make([]Broker, 0, len(resp.Brokers))
	for i := range resp.Brokers {
		b := &resp.Brokers[i]
		bs = append(bs, NewBroker(b.NodeID, b.Host, b.Port, b.Rack))
	}
	m.brokers = sortBrokers(bs)
	m.changed = true
}

// sortBrokers sorts by node id, the last entry of a duplicated id winning.
func sortBrokers(bs []Broker) []Broker {
	sort.SliceStable(bs, func(i, j int) bool { return bs[i].nodeID < bs[j].nodeID })
	out := bs[:0]
	for i := range bs {
		if len(out) > 0 && out[len(out)-1].nodeID == bs[i].nodeID {
			out[len(out)-1] = bs[i]
			continue
		}
		out = append(out, bs[i])
	}
	return out
}
