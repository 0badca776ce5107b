package answer

import (
	"github.com/kmeta-go/kmeta/image"
)

// brokerInfo is what one request needs to know about a registered broker.
type brokerInfo struct {
	b      *image.Broker
	ep     image.Endpoint
	hasEP  bool // has the request's listener
	fenced bool
	rack   *string // shared by every entry of one answer
}

// brokers is a per-answer table of the registered brokers, so that the
// per-replica lookups of a large answer are slice indexing rather than
// persistent-map lookups.
type brokers struct {
	dense  []brokerInfo // by id when ids are small; b == nil: not registered
	sparse map[int32]*brokerInfo
}

const denseLimit = 1 << 12

func newBrokers(img *image.Image, listener string) *brokers {
	c := img.Cluster()
	t := &brokers{}
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
	for b := range c.Brokers() {
		bi := brokerInfo{b: b, fenced: b.Fenced()}
		bi.ep, bi.hasEP = b.Listener(listener)
		if r, ok := b.Rack(); ok {
			bi.rack = &r
		}
		if small {
			t.dense[b.ID()] = bi
		} else {
			p := bi
			t.sparse[b.ID()] = &p
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

// each calls fn for each registered broker in id order.
func (t *brokers) each(img *image.Image, fn func(*brokerInfo)) {
	if t.sparse == nil {
		for i := range t.dense {
			if t.dense[i].b != nil {
				fn(&t.dense[i])
			}
		}
		return
	}
	for b := range img.Cluster().Brokers() {
		fn(t.sparse[b.ID()])
	}
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
func (t *brokers) appendOffline(dst []int32, p *image.Partition) []int32 {
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
