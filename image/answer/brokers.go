package answer

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
)

// brokerInfo is what an answer needs to know about a registered broker.
type brokerInfo struct {
	b      *image.Broker
	ep     image.Endpoint
	hasEP  bool // has the request's listener
	fenced bool
	rack   string
	racked bool
}

// brokers is the table of the registered brokers of one cluster as seen on
// one listener, so that the per-replica lookups of a large answer are slice
// indexing rather than persistent-map lookups. A table is read-only once
// built and is shared by every answer on that cluster and listener
// (Responder.brokersFor).
type brokers struct {
	cluster  *image.Cluster
	listener string
	dense    []brokerInfo // by id when ids are small; b == nil: not registered
	sparse   map[int32]*brokerInfo
	order    []*brokerInfo // the registered brokers by id
	answered int           // how many are alive with the listener (Metadata's Brokers)
	alive    []int32       // the unfenced broker ids, ascending (ControllerId)
}

const denseLimit = 1 << 12

func newBrokers(c *image.Cluster, listener string) *brokers {
	t := &brokers{cluster: c, listener: listener}
	maxID := int32(-1)
	small := true
	for b := range c.Brokers() {
		if b.ID() < 0 || b.ID() >= denseLimit {
			small = false
		}
		maxID = max(maxID, b.ID())
	}
	if small {
		t.dense = make([]brokerInfo, maxID+1)
	} else {
		t.sparse = make(map[int32]*brokerInfo, c.NumBrokers())
	}
	t.order = make([]*brokerInfo, 0, c.NumBrokers())
	for b := range c.Brokers() {
		var bi *brokerInfo
		if small {
			bi = &t.dense[b.ID()]
		} else {
			bi = new(brokerInfo)
			t.sparse[b.ID()] = bi
		}
		*bi = brokerInfo{b: b, fenced: b.Fenced()}
		bi.ep, bi.hasEP = b.Listener(listener)
		bi.rack, bi.racked = b.Rack()
		t.order = append(t.order, bi)
		if bi.hasEP && !bi.fenced {
			t.answered++
		}
		if !bi.fenced {
			t.alive = append(t.alive, b.ID())
		}
	}
	return t
}

// get returns the registration of id, or nil.
func (t *brokers) get(id int32) *brokerInfo {
	if t.sparse == nil {
		if id < 0 || int(id) >= len(t.dense) || t.dense[id].b == nil {
			return nil
		}
		return &t.dense[id]
	}
	return t.sparse[id]
}

// aliveNode is KRaftMetadataCache.getAliveBrokerNode: registered, not
// fenced, with the listener.
func (t *brokers) aliveNode(id int32) *brokerInfo {
	bi := t.get(id)
	if bi == nil || bi.fenced || !bi.hasEP {
		return nil
	}
	return bi
}

// metadataBrokers is Metadata's Brokers: the alive brokers with the
// listener, by id, each with its own copy of the rack.
func (t *brokers) metadataBrokers() []kmsg.MetadataResponseBroker {
	out := make([]kmsg.MetadataResponseBroker, 0, t.answered)
	for _, bi := range t.order {
		if bi.fenced || !bi.hasEP {
			continue
		}
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID = bi.b.ID()
		b.Host = bi.ep.Host
		b.Port = int32(bi.ep.Port)
		if bi.racked {
			r := bi.rack
			b.Rack = &r
		}
		out = append(out, b)
	}
	return out
}

// keepAlive keeps, in place and in order, the ids of l that are alive
// nodes (v0's errorUnavailableEndpoints).
func (t *brokers) keepAlive(l []int32) []int32 {
	out := l[:0]
	for _, r := range l {
		if t.aliveNode(r) != nil {
			out = append(out, r)
		}
	}
	return out
}

// appendOffline appends the offline replicas of p in replica order
// (KRaftMetadataCache.getOfflineReplicas): not registered, fenced, without
// the listener, or whose assigned directory is not online for the broker.
func (t *brokers) appendOffline(dst []int32, p image.Partition) []int32 {
	migrating := p.AllDirectoriesMigrating()
	n := p.NumReplicas()
	for i := 0; i < n; i++ {
		r := p.Replica(i)
		bi := t.get(r)
		if bi == nil || !bi.hasEP || bi.fenced || (!migrating && !bi.b.HasOnlineDir(p.Directory(i))) {
			dst = append(dst, r)
		}
	}
	return dst
}
