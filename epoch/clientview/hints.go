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
	Topic       string
	TopicID     record.UUID // used when Topic is empty (Produce v13+, Fetch v13+)
	Partition   int32
	ErrorCode   int16
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
			hints = append(hints, Hint{Topic: t.Topic, TopicID: t.TopicID, Partition: p.Partition, ErrorCode: p.ErrorCode,
				LeaderID: p.CurrentLeader.LeaderID, LeaderEpoch: p.CurrentLeader.LeaderEpoch})
		}
	}
	if len(hints) == 0 {
		return v, Report{}
	}
	nodes := make([]Broker, 0, len(resp.Brokers))
	for _, b := range resp.Brokers {
		nodes = append(nodes, Broker{NodeID: b.NodeID, Host: b.Host, Port: b.Port, Rack: copyString(b.Rack)})
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
			hints = append(hints, Hint{Topic: t.Topic, TopicID: t.TopicID, Partition: p.Partition, ErrorCode: p.ErrorCode,
				LeaderID: p.CurrentLeader.LeaderID, LeaderEpoch: p.CurrentLeader.LeaderEpoch})
		}
	}
	if len(hints) == 0 {
		return v, Report{}
	}
	nodes := make([]Broker, 0, len(resp.Brokers))
	for _, b := range resp.Brokers {
		nodes = append(nodes, Broker{NodeID: b.NodeID, Host: b.Host, Port: b.Port, Rack: copyString(b.Rack)})
	}
	return v.ApplyHints(hints, nodes)
}

func copyString(s *string) *string {
	if s == nil {
		return nil
	}
	c := *s
	return &c
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
	var rep Report
	changed := map[string]*Topic{}
	var usedNodes []Broker
	get := func(name string) *Topic {
		if t, ok := changed[name]; ok {
			return t
		}
		return v.tab.get(name)
	}
	for _, h := range hints {
		name := h.Topic
		if name == "" {
			n, ok := v.ids[h.TopicID]
			if !ok {
				rep.Invalid++
				continue
			}
			name = n
		}
		t := get(name)
		if t == nil {
			continue
		}
		if h.TopicID != record.ZeroUUID && t.id != record.ZeroUUID && h.TopicID != t.id {
			continue // an answer about another incarnation
		}
		cur, ok := t.Partition(h.Partition)
		if !ok {
			continue
		}
		p := *cur
		took := false
		if h.LeaderID >= 0 && h.LeaderEpoch >= 0 && (p.SeenEpoch < 0 || h.LeaderEpoch > p.SeenEpoch) {
			node, known := findNode(nodes, h.LeaderID)
			if !known {
				node, known = v.Broker(h.LeaderID)
			}
			if known {
				if h.LeaderID != p.Leader {
					rep.Events = append(rep.Events, Event{Kind: LeaderMoved, Topic: name, Partition: p.ID,
						Before: p.Leader, After: h.LeaderID, Epoch: h.LeaderEpoch})
				}
				p.Leader, p.LeaderEpoch, p.SeenEpoch = h.LeaderID, h.LeaderEpoch, h.LeaderEpoch
				p.Flags &^= NoLeader | EpochUnknown | Stale | Suspect | NeedsRefresh | Missing
				p.setStreak(streak{})
				p.ErrorCode = 0
				rep.Progress = true
				took = true
				if _, dup := findNode(usedNodes, node.NodeID); !dup {
					usedNodes = append(usedNodes, node)
				}
			}
		}
		if !took && epoch.InvalidMetadata(kafkaerr.Code(h.ErrorCode)) {
			p.Flags |= NeedsRefresh
		}
		if p.sameScalars(cur) {
			continue
		}
		nt, ok := changed[name]
		if !ok {
			nt = t.clone()
			changed[name] = nt
		}
		nt.parts[h.Partition] = p
	}
	if len(changed) == 0 && len(usedNodes) == 0 {
		return v, rep
	}
	next := *v
	next.updates++
	if len(changed) > 0 {
		w := tableWriter{base: &v.tab}
		for n, nt := range changed {
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
	if len(usedNodes) > 0 {
		bs := append([]Broker(nil), v.brokers...)
		for _, n := range usedNodes {
			i := sort.Search(len(bs), func(i int) bool { return bs[i].NodeID >= n.NodeID })
			if i < len(bs) && bs[i].NodeID == n.NodeID {
				bs[i] = n
			} else {
				bs = append(bs, Broker{})
				copy(bs[i+1:], bs[i:])
				bs[i] = n
			}
		}
		next.brokers = bs
	}
	rep.Changed = true
	return &next, rep
}

func findNode(nodes []Broker, id int32) (Broker, bool) {
	for _, n := range nodes {
		if n.NodeID == id {
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
		if !ok || p.Flags&NeedsRefresh != 0 {
			continue
		}
		if nt == nil {
			nt = t.clone()
		}
		nt.parts[id].Flags |= NeedsRefresh
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
