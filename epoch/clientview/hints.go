package clientview

import (
	"sort"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/epoch"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/record"
)

// Hint is one partition's outcome in a Produce or Fetch answer: its error
// and the KIP-951 CurrentLeader the broker attached (-1/-1 when absent).
type Hint struct {
	Topic     string
	TopicID   record.UUID // used when Topic is empty (Produce v13+, Fetch v13+)
	Partition int32
	ErrorCode kafkaerr.Code // the partition's error in the answer
	// LeaderID and LeaderEpoch are the KIP-951 CurrentLeader, -1 when the
	// answer carries none.
	LeaderID    int32
	LeaderEpoch int32
}

// ApplyProduce applies the partition errors and KIP-951 leader hints of a
// Produce answer (v10+ carries CurrentLeader and NodeEndpoints for
// NOT_LEADER_OR_FOLLOWER) without a Metadata round trip; see ApplyHints.
func (v *View) ApplyProduce(resp *kmsg.ProduceResponse) (*View, Report) {
	if resp == nil {
		return v, Report{}
	}
	var hints []Hint
	for i := range resp.Topics {
		t := &resp.Topics[i]
		for j := range t.Partitions {
			p := &t.Partitions[j]
			if p.ErrorCode == 0 {
				continue
			}
			hints = append(hints, Hint{Topic: t.Topic, TopicID: t.TopicID, Partition: p.Partition, ErrorCode: kafkaerr.FromInt16(p.ErrorCode),
				LeaderID: p.CurrentLeader.LeaderID, LeaderEpoch: p.CurrentLeader.LeaderEpoch})
		}
	}
	if len(hints) == 0 {
		return v, Report{}
	}
	nodes := make([]Broker, 0, len(resp.Brokers))
	for _, b := range resp.Brokers {
		nodes = append(nodes, NewBroker(b.NodeID, b.Host, b.Port, b.Rack))
	}
	return v.ApplyHints(hints, nodes)
}

// ApplyFetch is ApplyProduce for a Fetch answer (CurrentLeader since v12,
// NodeEndpoints since v16, for NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH).
func (v *View) ApplyFetch(resp *kmsg.FetchResponse) (*View, Report) {
	if resp == nil {
		return v, Report{}
	}
	var hints []Hint
	for i := range resp.Topics {
		t := &resp.Topics[i]
		for j := range t.Partitions {
			p := &t.Partitions[j]
			if p.ErrorCode == 0 {
				continue
			}
			hints = append(hints, Hint{Topic: t.Topic, TopicID: t.TopicID, Partition: p.Partition, ErrorCode: kafkaerr.FromInt16(p.ErrorCode),
				LeaderID: p.CurrentLeader.LeaderID, LeaderEpoch: p.CurrentLeader.LeaderEpoch})
		}
	}
	if len(hints) == 0 {
		return v, Report{}
	}
	nodes := make([]Broker, 0, len(resp.Brokers))
	for _, b := range resp.Brokers {
		nodes = append(nodes, NewBroker(b.NodeID, b.Host, b.Port, b.Rack))
	}
	return v.ApplyHints(hints, nodes)
}

// ApplyHints applies partition errors and KIP-951 leader hints under the
// same epoch rule as Merge (Kafka's Metadata.updatePartitionLeadership): a hint is taken only when it names both a leader and an epoch, the
// epoch is strictly greater than the highest the view has seen for the
// partition (or the view has seen none), the leader's node is known (from
// nodes or the view's brokers) and the partition is in the view. It then
// replaces only the leader and its epoch, keeping replicas and ISR. Nodes of
// taken hints are merged into the broker list.
//
// A hint that cannot be taken leaves the partition as it is; if its error is
// one of Kafka's invalid-metadata errors the partition is marked
// NeedsRefresh, so that the refresh policy asks for it.
func (v *View) ApplyHints(hints []Hint, nodes []Broker) (*View, Report) {
	a := hintApplier{v: v, nodes: nodes, changed: map[string]*Topic{}}
	for _, h := range hints {
		a.apply(h)
	}
	if len(a.changed) == 0 && len(a.used) == 0 {
		return v, a.rep
	}
	next := *v
	next.updates++
	if len(a.changed) > 0 {
		w := tableWriter{base: &v.tab}
		for n, nt := range a.changed {
			old, slot := v.tab.find(n)
			nt.recount()
			if old.NeedsRefresh() {
				next.refreshing--
			}
			if nt.NeedsRefresh() {
				next.refreshing++
			}
			w.set(n, old, nt, slot)
		}
		next.tab = w.finish()
	}
	if len(a.used) > 0 {
		next.brokers = withNodes(v.brokers, a.used)
	}
	a.rep.Changed = true
	return &next, a.rep
}

// hintApplier is one ApplyHints call: the topics it has changed so far
// (copies of the receiver's) and the nodes of the hints it took.
type hintApplier struct {
	v       *View
	nodes   []Broker
	changed map[string]*Topic
	used    []Broker
	rep     Report
}

// topic returns the topic named name as the call has made it so far.
func (a *hintApplier) topic(name string) *Topic {
	if t, ok := a.changed[name]; ok {
		return t
	}
	return a.v.tab.get(name)
}

// apply applies one hint: takes it under the rule of ApplyHints, or marks
// the partition for refresh on an invalid-metadata error.
func (a *hintApplier) apply(h Hint) {
	name := h.Topic
	if name == "" {
		n, ok := a.v.ids[h.TopicID]
		if !ok {
			a.rep.Invalid++
			return
		}
		name = n
	}
	t := a.topic(name)
	if t == nil {
		return
	}
	if h.TopicID != record.ZeroUUID && t.id != record.ZeroUUID && h.TopicID != t.id {
		return // an answer about another incarnation
	}
	cur, ok := t.Partition(h.Partition)
	if !ok {
		return
	}
	p := *cur
	took := a.take(&p, h, name)
	if !took && epoch.InvalidMetadata(h.ErrorCode) {
		p.flags |= NeedsRefresh
	}
	if p.sameScalars(cur) {
		return
	}
	nt, ok := a.changed[name]
	if !ok {
		nt = t.clone()
		a.changed[name] = nt
	}
	nt.parts[h.Partition] = p
}

// take moves p's leader to the hint's (Metadata.updatePartitionLeadership)
// when the hint names a leader and an epoch above any seen and the leader's
// node is known, and reports whether it did.
func (a *hintApplier) take(p *Partition, h Hint, topic string) bool {
	if h.LeaderID < 0 || h.LeaderEpoch < 0 || (p.seenEpoch >= 0 && h.LeaderEpoch <= p.seenEpoch) {
		return false
	}
	node, known := findNode(a.nodes, h.LeaderID)
	if !known {
		node, known = a.v.Broker(h.LeaderID)
	}
	if !known {
		return false
	}
	if h.LeaderID != p.leader {
		a.rep.Events = append(a.rep.Events, Event{Kind: LeaderMoved, Topic: topic, Partition: p.id,
			Before: p.leader, After: h.LeaderID, Epoch: h.LeaderEpoch})
	}
	p.leader, p.leaderEpoch, p.seenEpoch = h.LeaderID, h.LeaderEpoch, h.LeaderEpoch
	p.flags &^= NoLeader | EpochUnknown | Stale | Suspect | NeedsRefresh | Missing
	p.setStreak(streak{})
	p.errorCode = 0
	a.rep.Progress = true
	if _, dup := findNode(a.used, node.nodeID); !dup {
		a.used = append(a.used, node)
	}
	return true
}

// withNodes returns a copy of brokers (sorted by id) with nodes put in,
// replacing brokers of the same id.
func withNodes(brokers, nodes []Broker) []Broker {
	bs := append([]Broker(nil), brokers...)
	for _, n := range nodes {
		i := sort.Search(len(bs), func(i int) bool { return bs[i].nodeID >= n.nodeID })
		if i < len(bs) && bs[i].nodeID == n.nodeID {
			bs[i] = n
		} else {
			bs = append(bs, Broker{})
			copy(bs[i+1:], bs[i:])
			bs[i] = n
		}
	}
	return bs
}

func findNode(nodes []Broker, id int32) (Broker, bool) {
	for _, n := range nodes {
		if n.nodeID == id {
			return n, true
		}
	}
	return Broker{}, false
}

// MarkRefresh returns the view with partitions of topic marked NeedsRefresh
// (for errors the embedder saw outside a Produce or Fetch answer, such as a
// broker it cannot reach). Unknown topics and partitions are ignored.
func (v *View) MarkRefresh(topic string, partitions ...int32) *View {
	t, slot := v.tab.find(topic)
	if t == nil {
		return v
	}
	var nt *Topic
	for _, id := range partitions {
		p, ok := t.Partition(id)
		if !ok || p.flags&NeedsRefresh != 0 {
			continue
		}
		if nt == nil {
			nt = t.clone()
		}
		nt.parts[id].flags |= NeedsRefresh
	}
	if nt == nil {
		return v
	}
	nt.recount()
	next := *v
	next.updates++
	w := tableWriter{base: &v.tab}
	w.set(topic, t, nt, slot)
	next.tab = w.finish()
	if !t.NeedsRefresh() && nt.NeedsRefresh() {
		next.refreshing++
	}
	return &next
}
