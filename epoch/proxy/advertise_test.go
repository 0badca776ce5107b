package proxy

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func strp(s string) *string { return &s }

// seq allocates 127.0.0.1:20000+n for the n-th new broker id, and counts
// calls.
type seq struct {
	n    int32
	fail map[int32]bool
}

func (s *seq) Allocate(id int32) (Endpoint, error) {
	if s.fail[id] {
		return Endpoint{}, errors.New("no port")
	}
	s.n++
	return Endpoint{Host: "127.0.0.1", Port: 20000 + s.n}, nil
}

func TestMapStablePortAcrossHostChange(t *testing.T) {
	a := &seq{}
	m := NewMap(a)
	e1, err := m.Observe(1, Endpoint{"b1.old", 9092}, strp("r1"))
	require.NoError(t, err)
	e2, err := m.Observe(2, Endpoint{"b2", 9092}, nil)
	require.NoError(t, err)
	require.NotEqual(t, e1, e2)
	// The cloud replaces broker 1's host but reuses its id (kafka-proxy#191).
	e1b, err := m.Observe(1, Endpoint{"b1.new", 9093}, strp("r1"))
	require.NoError(t, err)
	require.Equal(t, e1, e1b, "the advertised endpoint of an id survives its host change")
	got, ok := m.Lookup(1)
	require.True(t, ok)
	require.Equal(t, Endpoint{"b1.new", 9093}, got.Upstream)
	require.Equal(t, int32(2), a.n, "one allocation per id")
	id, ok := m.ByPort(e2.Port)
	require.True(t, ok)
	require.Equal(t, int32(2), id)
}

func TestMapErrors(t *testing.T) {
	m := NewMap(nil)
	_, err := m.Observe(1, Endpoint{"h", 1}, nil)
	require.ErrorIs(t, err, ErrNoAllocator)
	require.NoError(t, m.Set(1, Endpoint{"p", 30001}))
	require.NoError(t, m.Set(1, Endpoint{"p", 30001}))
	require.Error(t, m.Set(1, Endpoint{"p", 30002}))
	require.Error(t, m.Set(2, Endpoint{"p", 30001}), "two ids on one port")
	e, err := m.Observe(1, Endpoint{"h", 1}, nil)
	require.NoError(t, err)
	require.Equal(t, Endpoint{"p", 30001}, e)

	_, err = PortOffset{Host: "x", Base: 65530}.Allocate(6)
	require.Error(t, err)
	e, err = PortOffset{Host: "x", Base: 19000}.Allocate(3)
	require.NoError(t, err)
	require.Equal(t, Endpoint{"x", 19003}, e)

	// An allocator handing out a port already in use is refused.
	m = NewMap(AllocatorFunc(func(int32) (Endpoint, error) { return Endpoint{"p", 1}, nil }))
	_, err = m.Observe(1, Endpoint{"h", 1}, nil)
	require.NoError(t, err)
	_, err = m.Observe(2, Endpoint{"h", 2}, nil)
	require.Error(t, err)

	_, err = ParseEndpoint("nope")
	require.Error(t, err)
	ep, err := ParseEndpoint("127.0.0.1:9092")
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:9092", ep.String())
}

func newRewriter() (*Rewriter, *seq) {
	a := &seq{fail: map[int32]bool{9: true}}
	return &Rewriter{Map: NewMap(a)}, a
}

func TestRewriteMetadata(t *testing.T) {
	r, _ := newRewriter()
	resp := kmsg.NewPtrMetadataResponse()
	resp.Version = 12
	for _, id := range []int32{3, 1, 9, 2} {
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID, b.Host, b.Port, b.Rack = id, fmt.Sprintf("upstream-%d", id), 9092, strp("r1")
		resp.Brokers = append(resp.Brokers, b)
	}
	r.Response(resp, nil)
	require.Len(t, resp.Brokers, 3, "broker 9 has no endpoint and is dropped")
	for _, b := range resp.Brokers {
		e, ok := r.Map.Lookup(b.NodeID)
		require.True(t, ok)
		require.Equal(t, e.Advertised, Endpoint{b.Host, b.Port})
		require.Equal(t, fmt.Sprintf("upstream-%d", b.NodeID), e.Upstream.Host)
		require.Equal(t, "r1", *b.Rack)
	}
	// Encoded and decoded, no upstream host is left.
	dec := kmsg.NewPtrMetadataResponse()
	dec.Version = 12
	require.NoError(t, dec.ReadFrom(resp.AppendTo(nil)))
	for _, b := range dec.Brokers {
		require.Equal(t, "127.0.0.1", b.Host)
	}
}

func TestRewriteDescribeClusterBrokersAndControllers(t *testing.T) {
	r, _ := newRewriter()
	resp := kmsg.NewPtrDescribeClusterResponse()
	resp.Version = 2
	resp.EndpointType = 1
	for _, id := range []int32{1, 2} {
		b := kmsg.NewDescribeClusterResponseBroker()
		b.NodeID, b.Host, b.Port = id, "real", 9092+id
		resp.Brokers = append(resp.Brokers, b)
	}
	require.True(t, r.Response(resp, nil))
	require.Len(t, resp.Brokers, 2)
	for _, b := range resp.Brokers {
		require.Equal(t, "127.0.0.1", b.Host)
	}

	// Controllers (KIP-919) without a controller map: none listed.
	ctl := kmsg.NewPtrDescribeClusterResponse()
	ctl.Version, ctl.EndpointType = 2, 2
	cb := kmsg.NewDescribeClusterResponseBroker()
	cb.NodeID, cb.Host, cb.Port = 1, "controller", 9093
	ctl.Brokers = append(ctl.Brokers, cb)
	r.DescribeCluster(ctl, nil)
	require.Empty(t, ctl.Brokers)

	// With one, through it (not through the broker map: ids overlap in
	// combined mode).
	r.Controllers = NewMap(PortOffset{Host: "ctl.proxy", Base: 31000})
	ctl.Brokers = append(ctl.Brokers, cb)
	r.DescribeCluster(ctl, nil)
	require.Equal(t, []kmsg.DescribeClusterResponseBroker{{NodeID: 1, Host: "ctl.proxy", Port: 31001}}, ctl.Brokers)
}

func TestRewriteFindCoordinator(t *testing.T) {
	r, _ := newRewriter()
	// v3: the single coordinator.
	one := kmsg.NewPtrFindCoordinatorResponse()
	one.Version, one.NodeID, one.Host, one.Port = 3, 2, "real", 9092
	r.Response(one, nil)
	e, _ := r.Map.Lookup(2)
	require.Equal(t, e.Advertised, Endpoint{one.Host, one.Port})

	// v4+: batched (KIP-699), with an error entry left alone and an
	// unknown coordinator turned into COORDINATOR_NOT_AVAILABLE.
	many := kmsg.NewPtrFindCoordinatorResponse()
	many.Version = 4
	for _, c := range []struct {
		id   int32
		code int16
	}{{1, 0}, {9, 0}, {-1, 15}} {
		co := kmsg.NewFindCoordinatorResponseCoordinator()
		co.Key, co.NodeID, co.Host, co.Port, co.ErrorCode = fmt.Sprint("g", c.id), c.id, "real", 9092, c.code
		many.Coordinators = append(many.Coordinators, co)
	}
	r.Response(many, nil)
	e, _ = r.Map.Lookup(1)
	require.Equal(t, e.Advertised, Endpoint{many.Coordinators[0].Host, many.Coordinators[0].Port})
	require.Equal(t, int16(15), many.Coordinators[1].ErrorCode)
	require.Equal(t, int32(-1), many.Coordinators[1].NodeID)
	require.Empty(t, many.Coordinators[1].Host)
	require.Equal(t, "real", many.Coordinators[2].Host, "an error entry is not a coordinator")

	// A coordinator answer, which carries no rack, keeps the rack a
	// Metadata answer gave the broker.
	rack := "r1"
	_, err := r.Map.Observe(5, Endpoint{"real5", 9092}, &rack)
	require.NoError(t, err)
	five := kmsg.NewPtrFindCoordinatorResponse()
	five.Version, five.NodeID, five.Host, five.Port = 3, 5, "real5", 9092
	r.Response(five, nil)
	e, _ = r.Map.Lookup(5)
	require.NotNil(t, e.Rack)
	require.Equal(t, "r1", *e.Rack)
}

func TestRewriteDescribeTopicPartitionsKeepsIDs(t *testing.T) {
	r, _ := newRewriter()
	resp := kmsg.NewPtrDescribeTopicPartitionsResponse()
	tp := kmsg.NewDescribeTopicPartitionsResponseTopic()
	p := kmsg.NewDescribeTopicPartitionsResponseTopicPartition()
	p.LeaderID, p.Replicas, p.ISR = 2, []int32{2, 1}, []int32{2}
	tp.Partitions = append(tp.Partitions, p)
	resp.Topics = append(resp.Topics, tp)
	before := resp.AppendTo(nil)
	require.True(t, r.Response(resp, nil))
	require.Equal(t, before, resp.AppendTo(nil))
	require.Zero(t, r.Map.Len())
}

func TestRewriteProduceNodeEndpoints(t *testing.T) {
	for _, v := range []int16{10, 11, 12, 13} {
		t.Run(fmt.Sprint("v", v), func(t *testing.T) {
			r, _ := newRewriter()
			resp := kmsg.NewPtrProduceResponse()
			resp.Version = v
			tp := kmsg.NewProduceResponseTopic()
			tp.Topic = "orders"
			for i, leader := range []int32{2, 9} {
				p := kmsg.NewProduceResponseTopicPartition()
				p.Partition, p.ErrorCode = int32(i), 6 // NOT_LEADER_OR_FOLLOWER
				p.CurrentLeader.LeaderID, p.CurrentLeader.LeaderEpoch = leader, 7
				tp.Partitions = append(tp.Partitions, p)
			}
			resp.Topics = append(resp.Topics, tp)
			for _, id := range []int32{2, 9} {
				b := kmsg.NewProduceResponseBroker()
				b.NodeID, b.Host, b.Port = id, "real", 9092
				resp.Brokers = append(resp.Brokers, b)
			}
			wire := resp.AppendTo(nil)
			sum, err := ScanProduce(v, wire)
			require.NoError(t, err)
			require.Equal(t, Summary{Errors: 2, NodeEndpoints: true}, sum)

			dec := kmsg.NewPtrProduceResponse()
			dec.Version = v
			require.NoError(t, dec.ReadFrom(wire))
			r.Response(dec, nil)
			e, _ := r.Map.Lookup(2)
			require.Equal(t, []kmsg.ProduceResponseBroker{{NodeID: 2, Host: e.Advertised.Host, Port: e.Advertised.Port}}, dec.Brokers)
			ps := dec.Topics[0].Partitions
			require.Equal(t, int32(2), ps[0].CurrentLeader.LeaderID)
			require.Equal(t, int32(-1), ps[1].CurrentLeader.LeaderID, "a hint whose node cannot be advertised is cleared")
			require.Equal(t, int32(-1), ps[1].CurrentLeader.LeaderEpoch)
		})
	}
}

func TestRewriteFetchNodeEndpoints(t *testing.T) {
	for _, v := range []int16{16, 17, 18} {
		t.Run(fmt.Sprint("v", v), func(t *testing.T) {
			r, _ := newRewriter()
			resp := kmsg.NewPtrFetchResponse()
			resp.Version = v
			tp := kmsg.NewFetchResponseTopic()
			tp.TopicID = [16]byte{1}
			p := kmsg.NewFetchResponseTopicPartition()
			p.ErrorCode = 74 // FENCED_LEADER_EPOCH
			p.CurrentLeader.LeaderID, p.CurrentLeader.LeaderEpoch = 3, 9
			tp.Partitions = append(tp.Partitions, p)
			resp.Topics = append(resp.Topics, tp)
			b := kmsg.NewFetchResponseBroker()
			b.NodeID, b.Host, b.Port, b.Rack = 3, "real", 9092, strp("r2")
			resp.Brokers = append(resp.Brokers, b)
			wire := resp.AppendTo(nil)
			sum, err := ScanFetch(v, wire)
			require.NoError(t, err)
			require.Equal(t, Summary{Errors: 1, NodeEndpoints: true}, sum)

			r.Shaper = ClientHosts{{ClientIDPrefix: "internal-", Host: "proxy.internal"}}
			r.Response(resp, &Client{ID: "internal-app"})
			e, _ := r.Map.Lookup(3)
			require.Equal(t, "proxy.internal", resp.Brokers[0].Host, "the client-id host override applies to NodeEndpoints")
			require.Equal(t, e.Advertised.Port, resp.Brokers[0].Port)
			require.Equal(t, int32(3), resp.Topics[0].Partitions[0].CurrentLeader.LeaderID)
		})
	}
}

func TestRewriteShareNodeEndpoints(t *testing.T) {
	r, _ := newRewriter()
	sf := kmsg.NewPtrShareFetchResponse()
	sf.Version = 1
	n := kmsg.NewShareFetchResponseNodeEndpoint()
	n.NodeID, n.Host, n.Port = 9, "real", 9092
	sf.NodeEndpoints = append(sf.NodeEndpoints, n)
	n.NodeID = 1
	sf.NodeEndpoints = append(sf.NodeEndpoints, n)
	tp := kmsg.NewShareFetchResponseTopic()
	p := kmsg.NewShareFetchResponseTopicPartition()
	p.CurrentLeader.LeaderID, p.CurrentLeader.LeaderEpoch = 9, 2
	tp.Partitions = append(tp.Partitions, p)
	sf.Topics = append(sf.Topics, tp)
	r.Response(sf, nil)
	require.Len(t, sf.NodeEndpoints, 1)
	require.Equal(t, int32(1), sf.NodeEndpoints[0].NodeID)
	require.Equal(t, "127.0.0.1", sf.NodeEndpoints[0].Host)
	require.Equal(t, int32(-1), sf.Topics[0].Partitions[0].CurrentLeader.LeaderID)

	sa := kmsg.NewPtrShareAcknowledgeResponse()
	na := kmsg.NewShareAcknowledgeResponseNodeEndpoint()
	na.NodeID, na.Host, na.Port = 1, "real", 9092
	sa.NodeEndpoints = append(sa.NodeEndpoints, na)
	r.Response(sa, nil)
	require.Equal(t, "127.0.0.1", sa.NodeEndpoints[0].Host)
}

func TestResponseUnknownKinds(t *testing.T) {
	r, _ := newRewriter()
	require.True(t, r.Response(kmsg.NewPtrListOffsetsResponse(), nil), "no address, in the table")
	dq := kmsg.NewPtrDescribeQuorumResponse()
	require.False(t, r.Response(dq, nil), "DescribeQuorum lists controller listeners: never let through")
	lo := kmsg.NewPtrListOffsetsResponse()
	lo.Version = 99
	require.False(t, r.Response(lo, nil), "a version newer than the table")
}

func TestShapers(t *testing.T) {
	list := func() []Broker {
		return []Broker{{NodeID: 1, Rack: strp("a")}, {NodeID: 2, Rack: strp("b")}, {NodeID: 3}, {NodeID: 4, Rack: strp("b")}}
	}
	ids := func(bs []Broker) (out []int32) {
		for _, b := range bs {
			out = append(out, b.NodeID)
		}
		return out
	}
	require.Equal(t, []int32{2, 4, 1, 3}, ids(RackFirst{}.Shape(&Client{Rack: "b"}, list())))
	require.Equal(t, []int32{1, 2, 3, 4}, ids(RackFirst{}.Shape(&Client{}, list())))
	require.Equal(t, []int32{2, 4}, ids(RackOnly{}.Shape(&Client{Rack: "b"}, list())))
	require.Equal(t, []int32{1, 2, 3, 4}, ids(RackOnly{}.Shape(&Client{Rack: "zz"}, list())), "no broker in the rack: all kept")
	hosts := ClientHosts{{ClientIDPrefix: "", Host: "public"}, {ClientIDPrefix: "svc-", Host: "internal"}}
	require.Equal(t, "internal", hosts.Shape(&Client{ID: "svc-a"}, list())[0].Host)
	require.Equal(t, "public", hosts.Shape(&Client{ID: "other"}, list())[0].Host)
	both := Chain(RackOnly{}, hosts)
	got := both.Shape(&Client{ID: "svc-x", Rack: "a"}, list())
	require.Equal(t, []Broker{{NodeID: 1, Rack: strp("a"), Host: "internal"}}, got)

	// Through a Rewriter, per request.
	r, _ := newRewriter()
	r.Shaper = RackFirst{}
	resp := kmsg.NewPtrMetadataResponse()
	for _, b := range list() {
		mb := kmsg.NewMetadataResponseBroker()
		mb.NodeID, mb.Host, mb.Port, mb.Rack = b.NodeID, "real", 9092, b.Rack
		resp.Brokers = append(resp.Brokers, mb)
	}
	r.Metadata(resp, &Client{Rack: "b"})
	require.Equal(t, int32(2), resp.Brokers[0].NodeID)
	require.Equal(t, int32(4), resp.Brokers[1].NodeID)
}

func TestIntersect(t *testing.T) {
	up := []kmsg.ApiVersionsResponseApiKey{
		{ApiKey: 3, MinVersion: 0, MaxVersion: 13},
		{ApiKey: 0, MinVersion: 3, MaxVersion: 20}, // upstream newer than the table
		{ApiKey: 55, MinVersion: 0, MaxVersion: 2}, // DescribeQuorum: never offered
		{ApiKey: 4, MinVersion: 0, MaxVersion: 7},  // LeaderAndIsr
		{ApiKey: 1, MinVersion: 4, MaxVersion: 17},
	}
	own := func(key int16) (int16, int16, bool) {
		if key == 3 {
			return 1, 12, true // the proxy answers Metadata v1-v12 itself
		}
		return 0, 32767, true
	}
	got := Intersect(up, RewritableVersions, own)
	require.Equal(t, []kmsg.ApiVersionsResponseApiKey{
		{ApiKey: 0, MinVersion: 3, MaxVersion: 13},
		{ApiKey: 1, MinVersion: 4, MaxVersion: 17},
		{ApiKey: 3, MinVersion: 1, MaxVersion: 12},
	}, got)
	require.Empty(t, Intersect([]kmsg.ApiVersionsResponseApiKey{{ApiKey: 3, MinVersion: 13, MaxVersion: 13}}, own))
}

// TestRewritableCoversAddressAPIs checks the table against kmsg: every
// response type with a broker-address field is either rewritten or not
// offered, and no table entry is above what kmsg can parse.
func TestRewritableCoversAddressAPIs(t *testing.T) {
	for i, entry := range rewritable {
		if entry == 0 {
			continue
		}
		key, max := int16(i), entry-1
		req := kmsg.RequestForKey(key)
		require.NotNil(t, req, "key %d", key)
		require.LessOrEqual(t, max, req.MaxVersion(), "key %d", key)
	}
	for _, key := range []int16{0, 1, 3, 10, 60, 78, 79} {
		require.True(t, CarriesAddress(key))
		_, ok := Rewritable(key)
		require.True(t, ok)
	}
	for _, key := range []int16{4, 6, 52, 53, 54, 55, 59, 80, 82} {
		_, ok := Rewritable(key)
		require.False(t, ok, "key %d carries addresses a proxy cannot rewrite", key)
	}
}
