package proxy

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// Rewriter rewrites the broker addresses of Kafka responses through a Map.
// Its methods modify the response in place; they are safe for concurrent use
// on different responses.
type Rewriter struct {
	// Map gives the advertised endpoint of each broker id (required).
	Map *Map
	// Controllers gives the endpoints of controllers, for DescribeCluster
	// answers to EndpointType 2 (KIP-919). Nil: such answers list no
	// controller, since a proxy for brokers cannot reach them.
	Controllers *Map
	// Shaper gives each client its own view of broker lists (nil: none).
	Shaper Shaper
}

// Response rewrites any response kind that can carry a broker address and
// reports whether it knows the kind: false means the response was left as it
// is and must not be sent to a client if it may carry an address (see
// Rewritable). Kinds that carry broker ids only (DescribeTopicPartitions)
// are known and left unchanged.
func (r *Rewriter) Response(resp kmsg.Response, c *Client) bool {
	switch v := resp.(type) {
	case *kmsg.MetadataResponse:
		r.Metadata(v, c)
	case *kmsg.DescribeClusterResponse:
		r.DescribeCluster(v, c)
	case *kmsg.FindCoordinatorResponse:
		r.FindCoordinator(v, c)
	case *kmsg.ProduceResponse:
		r.Produce(v, c)
	case *kmsg.FetchResponse:
		r.Fetch(v, c)
	case *kmsg.ShareFetchResponse:
		r.ShareFetch(v, c)
	case *kmsg.ShareAcknowledgeResponse:
		r.ShareAcknowledge(v, c)
	case *kmsg.DescribeTopicPartitionsResponse:
	default:
		max, ok := Rewritable(resp.Key())
		return ok && !carriesAddress(resp.Key()) && resp.GetVersion() <= max
	}
	return true
}

// advertised returns the endpoint for broker id seen upstream at host:port.
func advertised(m *Map, id int32, host string, port int32, rack *string) (Endpoint, bool) {
	if m == nil {
		return Endpoint{}, false
	}
	e, err := m.Observe(id, Endpoint{Host: host, Port: port}, rack)
	return e, err == nil
}

// shapeOne applies the shaper's host and port change for one broker a
// client must reach.
func (r *Rewriter) shapeOne(c *Client, b Broker) Broker {
	if r.Shaper == nil {
		return b
	}
	one := []Broker{b}
	for _, s := range r.Shaper.Shape(c, one) {
		if s.NodeID == b.NodeID {
			b.Host, b.Port = s.Host, s.Port
			break
		}
	}
	return b
}

// list rewrites and shapes a broker list given as a length and accessors,
// and returns the brokers to answer with.
func (r *Rewriter) list(m *Map, c *Client, n int, at func(int) Broker) []Broker {
	out := make([]Broker, 0, n)
	for i := range n {
		b := at(i)
		e, ok := advertised(m, b.NodeID, b.Host, b.Port, b.Rack)
		if !ok {
			continue // never answer an address the map cannot advertise
		}
		b.Host, b.Port = e.Host, e.Port
		out = append(out, b)
	}
	if r.Shaper != nil {
		out = r.Shaper.Shape(c, out)
	}
	return out
}

// Metadata rewrites the broker list of a Metadata answer. Brokers whose id
// the Map cannot advertise are dropped.
func (r *Rewriter) Metadata(resp *kmsg.MetadataResponse, c *Client) {
	bs := r.list(r.Map, c, len(resp.Brokers), func(i int) Broker {
		b := &resp.Brokers[i]
		return Broker{NodeID: b.NodeID, Host: b.Host, Port: b.Port, Rack: b.Rack}
	})
	out := resp.Brokers[:0]
	if len(bs) > len(resp.Brokers) {
		out = make([]kmsg.MetadataResponseBroker, 0, len(bs))
	}
	for _, b := range bs {
		mb := kmsg.NewMetadataResponseBroker()
		mb.NodeID, mb.Host, mb.Port, mb.Rack = b.NodeID, b.Host, b.Port, b.Rack
		out = append(out, mb)
	}
	resp.Brokers = out
}

// DescribeCluster rewrites the brokers of a DescribeCluster answer, through
// Controllers when the answer lists controllers (EndpointType 2, v1+).
func (r *Rewriter) DescribeCluster(resp *kmsg.DescribeClusterResponse, c *Client) {
	m := r.Map
	if resp.Version >= 1 && resp.EndpointType == 2 {
		m = r.Controllers
	}
	bs := r.list(m, c, len(resp.Brokers), func(i int) Broker {
		b := &resp.Brokers[i]
		return Broker{NodeID: b.NodeID, Host: b.Host, Port: b.Port, Rack: b.Rack}
	})
	old := resp.Brokers
	out := old[:0]
	if len(bs) > len(old) {
		out = make([]kmsg.DescribeClusterResponseBroker, 0, len(bs))
	}
	for _, b := range bs {
		db := kmsg.NewDescribeClusterResponseBroker()
		db.NodeID, db.Host, db.Port, db.Rack = b.NodeID, b.Host, b.Port, b.Rack
		out = append(out, db)
	}
	resp.Brokers = out
}

// FindCoordinator rewrites the coordinator of a FindCoordinator answer:
// NodeID/Host/Port before v4, each of Coordinators from v4 (KIP-699). A
// coordinator the Map cannot advertise becomes COORDINATOR_NOT_AVAILABLE
// (node -1, host "", port -1), which clients retry.
func (r *Rewriter) FindCoordinator(resp *kmsg.FindCoordinatorResponse, c *Client) {
	fix := func(code *int16, msg **string, id *int32, host *string, port *int32) {
		if *code != 0 || *id < 0 {
			return
		}
		// FindCoordinator carries no rack: keep the one the map holds,
		// or Observe would record the broker as rackless (and copy the
		// map) on every answer.
		var rack *string
		if known, ok := r.Map.Lookup(*id); ok && known.Upstream == (Endpoint{*host, *port}) {
			rack = known.Rack
		}
		e, ok := advertised(r.Map, *id, *host, *port, rack)
		if !ok {
			*code, *id, *host, *port = kafkaerr.CoordinatorNotAvailable.Int16(), -1, "", -1
			m := "the proxy has no endpoint for the coordinator"
			*msg = &m
			return
		}
		b := r.shapeOne(c, Broker{NodeID: *id, Host: e.Host, Port: e.Port})
		*host, *port = b.Host, b.Port
	}
	if resp.Version < 4 {
		fix(&resp.ErrorCode, &resp.ErrorMessage, &resp.NodeID, &resp.Host, &resp.Port)
		return
	}
	for i := range resp.Coordinators {
		co := &resp.Coordinators[i]
		fix(&co.ErrorCode, &co.ErrorMessage, &co.NodeID, &co.Host, &co.Port)
	}
}

func has(ids []int32, id int32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// rewriteNodes rewrites a KIP-951 (or KIP-932) NodeEndpoints list in
// place: each node the Map can advertise gets its advertised endpoint, as
// the client's Shaper re-hosts it; the others are removed and their ids
// returned, so that the CurrentLeader hints naming them can be cleared.
// at gives a node's id, host, port and rack.
func rewriteNodes[N any](r *Rewriter, c *Client, nodes []N, at func(*N) (id int32, host *string, port *int32, rack *string)) ([]N, []int32) {
	out := nodes[:0]
	var dropped []int32
	for i := range nodes {
		n := nodes[i]
		id, host, port, rack := at(&n)
		e, ok := advertised(r.Map, id, *host, *port, rack)
		if !ok {
			dropped = append(dropped, id)
			continue
		}
		s := r.shapeOne(c, Broker{NodeID: id, Host: e.Host, Port: e.Port, Rack: rack})
		*host, *port = s.Host, s.Port
		out = append(out, n)
	}
	return out, dropped
}

// clearHints sets each CurrentLeader hint that names a dropped node to
// leader -1, epoch -1 (no hint): hints calls clear for every hint of the
// answer.
func clearHints(dropped []int32, hints func(clear func(leaderID, leaderEpoch *int32))) {
	if len(dropped) == 0 {
		return
	}
	hints(func(id, epoch *int32) {
		if has(dropped, *id) {
			*id, *epoch = -1, -1
		}
	})
}

// Produce rewrites the KIP-951 NodeEndpoints of a Produce answer (v10+). A
// node the Map cannot advertise is removed, and every CurrentLeader hint
// naming it is cleared (-1, -1): the client then asks Metadata instead.
func (r *Rewriter) Produce(resp *kmsg.ProduceResponse, c *Client) {
	if len(resp.Brokers) == 0 {
		return
	}
	var dropped []int32
	resp.Brokers, dropped = rewriteNodes(r, c, resp.Brokers, func(b *kmsg.ProduceResponseBroker) (int32, *string, *int32, *string) {
		return b.NodeID, &b.Host, &b.Port, b.Rack
	})
	clearHints(dropped, func(clear func(*int32, *int32)) {
		for i := range resp.Topics {
			for j := range resp.Topics[i].Partitions {
				cl := &resp.Topics[i].Partitions[j].CurrentLeader
				clear(&cl.LeaderID, &cl.LeaderEpoch)
			}
		}
	})
}

// Fetch rewrites the KIP-951 NodeEndpoints of a Fetch answer (v16+), as
// Produce does.
func (r *Rewriter) Fetch(resp *kmsg.FetchResponse, c *Client) {
	if len(resp.Brokers) == 0 {
		return
	}
	var dropped []int32
	resp.Brokers, dropped = rewriteNodes(r, c, resp.Brokers, func(b *kmsg.FetchResponseBroker) (int32, *string, *int32, *string) {
		return b.NodeID, &b.Host, &b.Port, b.Rack
	})
	clearHints(dropped, func(clear func(*int32, *int32)) {
		for i := range resp.Topics {
			for j := range resp.Topics[i].Partitions {
				cl := &resp.Topics[i].Partitions[j].CurrentLeader
				clear(&cl.LeaderID, &cl.LeaderEpoch)
			}
		}
	})
}

// ShareFetch rewrites the NodeEndpoints of a ShareFetch answer (KIP-932),
// as Produce does.
func (r *Rewriter) ShareFetch(resp *kmsg.ShareFetchResponse, c *Client) {
	var dropped []int32
	resp.NodeEndpoints, dropped = rewriteNodes(r, c, resp.NodeEndpoints, func(b *kmsg.ShareFetchResponseNodeEndpoint) (int32, *string, *int32, *string) {
		return b.NodeID, &b.Host, &b.Port, b.Rack
	})
	clearHints(dropped, func(clear func(*int32, *int32)) {
		for i := range resp.Topics {
			for j := range resp.Topics[i].Partitions {
				cl := &resp.Topics[i].Partitions[j].CurrentLeader
				clear(&cl.LeaderID, &cl.LeaderEpoch)
			}
		}
	})
}

// ShareAcknowledge rewrites the NodeEndpoints of a ShareAcknowledge answer
// (KIP-932), as Produce does.
func (r *Rewriter) ShareAcknowledge(resp *kmsg.ShareAcknowledgeResponse, c *Client) {
	var dropped []int32
	resp.NodeEndpoints, dropped = rewriteNodes(r, c, resp.NodeEndpoints, func(b *kmsg.ShareAcknowledgeResponseNodeEndpoint) (int32, *string, *int32, *string) {
		return b.NodeID, &b.Host, &b.Port, b.Rack
	})
	clearHints(dropped, func(clear func(*int32, *int32)) {
		for i := range resp.Topics {
			for j := range resp.Topics[i].Partitions {
				cl := &resp.Topics[i].Partitions[j].CurrentLeader
				clear(&cl.LeaderID, &cl.LeaderEpoch)
			}
		}
	})
}
