package proxy

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/answer"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// threeBrokers makes the fake upstream a cluster of brokers 1, 2 and 3
// (2 and 3 at addresses nobody listens on: the view only names them),
// with __consumer_offsets of 5 partitions and __transaction_state of 3,
// partition p led by broker p%3+1, and offers FindCoordinator v0-6,
// DescribeCluster v0-2 and DescribeTopicPartitions v0.
func threeBrokers(u *fakeUpstream, md *kmsg.MetadataResponse, av *kmsg.ApiVersionsResponse) {
	for _, id := range []int32{2, 3} {
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID, b.Host, b.Port = id, "127.0.0.2", 9000+id
		md.Brokers = append(md.Brokers, b)
	}
	for _, it := range []struct {
		name string
		n    int32
	}{{answer.GroupTopic, 5}, {answer.TransactionTopic, 3}} {
		mt := kmsg.NewMetadataResponseTopic()
		name := it.name
		mt.Topic, mt.TopicID, mt.IsInternal = &name, [16]byte{byte(it.n)}, true
		for p := range it.n {
			mp := kmsg.NewMetadataResponseTopicPartition()
			leader := p%3 + 1
			mp.Partition, mp.Leader, mp.LeaderEpoch, mp.Replicas, mp.ISR = p, leader, 4, []int32{leader}, []int32{leader}
			mt.Partitions = append(mt.Partitions, mp)
		}
		md.Topics = append(md.Topics, mt)
	}
	offer(av, 10, 6)
	offer(av, 60, 2)
	offer(av, 75, 0)
}

// offer sets key at versions 0-max in an ApiVersions answer.
func offer(av *kmsg.ApiVersionsResponse, key, max int16) {
	for i := range av.ApiKeys {
		if av.ApiKeys[i].ApiKey == key {
			av.ApiKeys[i].MaxVersion = max
			return
		}
	}
	k := kmsg.NewApiVersionsResponseApiKey()
	k.ApiKey, k.MaxVersion = key, max
	av.ApiKeys = append(av.ApiKeys, k)
}

// fwdRoundTrip sends req on conn and decodes its answer (response header
// v1 where the version is flexible, as roundTrip does).
func fwdRoundTrip(t *testing.T, conn net.Conn, req kmsg.Request, corr int32) kmsg.Response {
	t.Helper()
	resp := req.ResponseKind()
	require.NoError(t, roundTrip(conn, req, resp, corr))
	return resp
}

func dialT(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestForwardFindCoordinatorFromView: FindCoordinator is answered from the
// view as KafkaApis.getCoordinator finds a coordinator, the leader of
// partition Utils.abs(key.hashCode) % partitionCount of __consumer_offsets
// (GroupCoordinatorService.partitionFor) or __transaction_state
// (TransactionStateManager.partitionFor), at that broker's proxy port,
// for the single key (v3) and batched keys (v4+, KIP-699), without
// reaching upstream; a key the view cannot place (a share key that does
// not parse) sends the request upstream, whose answer is rewritten.
func TestForwardFindCoordinatorFromView(t *testing.T) {
	u := newFakeUpstreamWith(t, 0, func(u *fakeUpstream, md *kmsg.MetadataResponse, av *kmsg.ApiVersionsResponse) {
		threeBrokers(u, md, av)
		fc := kmsg.NewPtrFindCoordinatorResponse()
		fc.Version = 6
		co := kmsg.NewFindCoordinatorResponseCoordinator()
		co.Key, co.NodeID, co.Host, co.Port = "g:bad", 3, "127.0.0.2", 9003
		fc.Coordinators = append(fc.Coordinators, co)
		u.answers[10] = fc.AppendTo(nil)
	})
	f, addr := benchForwarder(t, u)
	conn := dialT(t, addr)
	ports := f.ports.Addrs()
	want := func(topicParts int32, key string) (int32, string) {
		id := answer.CoordinatorPartition(key, topicParts)%3 + 1
		return id, ports[id]
	}
	local, fwd := f.stats.Local.Load(), f.stats.Forwarded.Load()

	req := kmsg.NewPtrFindCoordinatorRequest()
	req.Version, req.CoordinatorKey = 3, "orders-consumers"
	r3 := fwdRoundTrip(t, conn, req, 1).(*kmsg.FindCoordinatorResponse)
	id, at := want(5, req.CoordinatorKey)
	require.Equal(t, int16(0), r3.ErrorCode)
	require.Equal(t, "NONE", *r3.ErrorMessage)
	require.Equal(t, id, r3.NodeID)
	require.Equal(t, at, net.JoinHostPort(r3.Host, itoa(r3.Port)))

	keys := []string{"a", "group-7", "payments", "x-y-z", "\u00e9t\u00e9"}
	for _, ct := range []struct {
		typ   int8
		parts int32
	}{{answer.CoordinatorGroup, 5}, {answer.CoordinatorTransaction, 3}} {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.Version, req.CoordinatorType, req.CoordinatorKeys = 6, ct.typ, keys
		r := fwdRoundTrip(t, conn, req, 2).(*kmsg.FindCoordinatorResponse)
		require.Len(t, r.Coordinators, len(keys))
		seen := map[int32]bool{}
		for i, co := range r.Coordinators {
			id, at := want(ct.parts, keys[i])
			require.Equal(t, keys[i], co.Key, "in request order")
			require.Equal(t, int16(0), co.ErrorCode)
			require.Equal(t, id, co.NodeID, "key %q type %d", keys[i], ct.typ)
			require.Equal(t, at, net.JoinHostPort(co.Host, itoa(co.Port)))
			seen[co.NodeID] = true
		}
		require.Greater(t, len(seen), 1, "the keys spread over brokers: the hash decides")
	}
	require.Equal(t, local+3, f.stats.Local.Load())
	require.Equal(t, fwd, f.stats.Forwarded.Load(), "nothing reached upstream")

	share := kmsg.NewPtrFindCoordinatorRequest()
	share.Version, share.CoordinatorType, share.CoordinatorKeys = 6, answer.CoordinatorShare, []string{"g:bad"}
	rs := fwdRoundTrip(t, conn, share, 3).(*kmsg.FindCoordinatorResponse)
	require.Equal(t, fwd+1, f.stats.Forwarded.Load(), "a key the view cannot place is upstream's")
	require.Len(t, rs.Coordinators, 1)
	require.Equal(t, ports[3], net.JoinHostPort(rs.Coordinators[0].Host, itoa(rs.Coordinators[0].Port)), "upstream's coordinator, rewritten")
}

// TestForwardFindCoordinatorWithoutOffsetsTopic: a view without
// __consumer_offsets (a cluster that has not created it yet) cannot place
// a group: the request is forwarded, and upstream answers.
func TestForwardFindCoordinatorWithoutOffsetsTopic(t *testing.T) {
	u := newFakeUpstreamWith(t, 0, func(u *fakeUpstream, md *kmsg.MetadataResponse, av *kmsg.ApiVersionsResponse) {
		offer(av, 10, 6)
		fc := kmsg.NewPtrFindCoordinatorResponse()
		fc.Version = 6
		co := kmsg.NewFindCoordinatorResponseCoordinator()
		co.Key, co.ErrorCode, co.NodeID, co.Port = "g", int16(kafkaerr.CoordinatorNotAvailable), -1, -1
		fc.Coordinators = append(fc.Coordinators, co)
		u.answers[10] = fc.AppendTo(nil)
	})
	f, addr := benchForwarder(t, u)
	conn := dialT(t, addr)
	fwd := f.stats.Forwarded.Load()
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.Version, req.CoordinatorKeys = 6, []string{"g"}
	r := fwdRoundTrip(t, conn, req, 1).(*kmsg.FindCoordinatorResponse)
	require.Equal(t, fwd+1, f.stats.Forwarded.Load())
	require.Equal(t, int16(kafkaerr.CoordinatorNotAvailable), r.Coordinators[0].ErrorCode)
}

// TestForwardDescribeTopicPartitionsFromView: DescribeTopicPartitions is
// answered from the view as DescribeTopicPartitionsRequestHandler pages
// it: topics by name, a partition budget (ResponsePartitionLimit) that ends
// a page with NextCursor, the cursor's topic from its partition, unknown
// requested topics UNKNOWN_TOPIC_OR_PARTITION, empty ELR lists and
// authorized operations omitted; with eligible.leader.replicas.version
// finalized upstream the ELR is not in the view and the request is
// forwarded.
func TestForwardDescribeTopicPartitionsFromView(t *testing.T) {
	u := newFakeUpstreamWith(t, 0, threeBrokers)
	f, addr := benchForwarder(t, u)
	conn := dialT(t, addr)
	local, fwd := f.stats.Local.Load(), f.stats.Forwarded.Load()

	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	req.ResponsePartitionLimit = 6
	r := fwdRoundTrip(t, conn, req, 1).(*kmsg.DescribeTopicPartitionsResponse)
	require.Len(t, r.Topics, 2)
	require.Equal(t, answer.GroupTopic, *r.Topics[0].Topic, "by name")
	require.Len(t, r.Topics[0].Partitions, 5)
	require.Equal(t, answer.TransactionTopic, *r.Topics[1].Topic)
	require.Len(t, r.Topics[1].Partitions, 1, "the budget of 6 ends inside the second topic")
	require.NotNil(t, r.NextCursor)
	require.Equal(t, answer.TransactionTopic, r.NextCursor.Topic)
	require.Equal(t, int32(1), r.NextCursor.Partition)
	p := r.Topics[0].Partitions[4]
	require.Equal(t, int32(4%3+1), p.LeaderID)
	require.Equal(t, int32(4), p.LeaderEpoch)
	require.Equal(t, []int32{2}, p.Replicas)
	require.Equal(t, []int32{}, p.EligibleLeaderReplicas)
	require.Equal(t, int32(-2147483648), r.Topics[0].AuthorizedOperations)
	require.True(t, r.Topics[0].IsInternal)

	next := kmsg.NewPtrDescribeTopicPartitionsRequest()
	next.ResponsePartitionLimit = 100
	for _, n := range []string{"nope", answer.TransactionTopic, "Bench", "bench"} {
		rt := kmsg.NewDescribeTopicPartitionsRequestTopic()
		rt.Topic = n
		next.Topics = append(next.Topics, rt)
	}
	c := kmsg.NewDescribeTopicPartitionsRequestCursor()
	c.Topic, c.Partition = answer.TransactionTopic, 1
	next.Cursor = &c
	r = fwdRoundTrip(t, conn, next, 2).(*kmsg.DescribeTopicPartitionsResponse)
	require.Len(t, r.Topics, 3, "Bench sorts before the cursor's topic and is not answered")
	require.Equal(t, answer.TransactionTopic, *r.Topics[0].Topic)
	require.Len(t, r.Topics[0].Partitions, 2, "partitions 1 and 2")
	require.Equal(t, int32(1), r.Topics[0].Partitions[0].Partition)
	require.Equal(t, "bench", *r.Topics[1].Topic)
	require.Len(t, r.Topics[1].Partitions, 3)
	require.Equal(t, "nope", *r.Topics[2].Topic)
	require.Equal(t, int16(kafkaerr.UnknownTopicOrPartition), r.Topics[2].ErrorCode)
	require.Nil(t, r.NextCursor)
	require.Equal(t, local+2, f.stats.Local.Load())
	require.Equal(t, fwd, f.stats.Forwarded.Load())

	elr := newFakeUpstreamWith(t, 0, func(u *fakeUpstream, md *kmsg.MetadataResponse, av *kmsg.ApiVersionsResponse) {
		threeBrokers(u, md, av)
		ff := kmsg.NewApiVersionsResponseFinalizedFeature()
		ff.Name, ff.MinVersionLevel, ff.MaxVersionLevel = elrFeature, 1, 1
		av.FinalizedFeatures = append(av.FinalizedFeatures, ff)
		u.answers[75] = kmsg.NewPtrDescribeTopicPartitionsResponse().AppendTo(nil)
	})
	f, addr = benchForwarder(t, elr)
	conn = dialT(t, addr)
	fwdRoundTrip(t, conn, req, 3)
	require.Equal(t, int64(1), f.stats.Forwarded.Load(), "with ELR on, upstream answers")
}

// TestForwardDescribeCluster: brokers (EndpointType 1) are answered from
// the view at the proxy's ports; a request for controllers (EndpointType
// 2, KIP-919) is forwarded, since a broker answers it with
// MISMATCHED_ENDPOINT_TYPE and a controller lists controller listeners,
// which the proxy does not advertise: the answer keeps upstream's error
// and lists no controller, and no upstream address.
func TestForwardDescribeCluster(t *testing.T) {
	u := newFakeUpstreamWith(t, 0, func(u *fakeUpstream, md *kmsg.MetadataResponse, av *kmsg.ApiVersionsResponse) {
		threeBrokers(u, md, av)
		dc := kmsg.NewPtrDescribeClusterResponse()
		dc.Version, dc.EndpointType, dc.ControllerID = 2, 2, 3000
		b := kmsg.NewDescribeClusterResponseBroker()
		b.NodeID, b.Host, b.Port = 3000, "127.0.0.3", 9093
		dc.Brokers = append(dc.Brokers, b)
		u.answers[60] = dc.AppendTo(nil)
	})
	f, addr := benchForwarder(t, u)
	conn := dialT(t, addr)
	ports := f.ports.Addrs()
	local, fwd := f.stats.Local.Load(), f.stats.Forwarded.Load()

	req := kmsg.NewPtrDescribeClusterRequest()
	req.Version, req.EndpointType = 2, 1
	r := fwdRoundTrip(t, conn, req, 1).(*kmsg.DescribeClusterResponse)
	require.Len(t, r.Brokers, 3)
	for _, b := range r.Brokers {
		require.Equal(t, ports[b.NodeID], net.JoinHostPort(b.Host, itoa(b.Port)))
	}
	require.Equal(t, "bench", r.ClusterID)
	require.Equal(t, local+1, f.stats.Local.Load())

	req.EndpointType = 2
	r = fwdRoundTrip(t, conn, req, 2).(*kmsg.DescribeClusterResponse)
	require.Equal(t, fwd+1, f.stats.Forwarded.Load(), "controllers are upstream's answer")
	require.Equal(t, int8(2), r.EndpointType)
	require.Empty(t, r.Brokers, "no controller listener leaves the proxy")
}

// TestForwardApiVersionsChecks: the forwarder answers ApiVersions as
// KafkaApis.handleApiVersionsRequest does (ApiVersionsRequest.isValid:
// INVALID_REQUEST; KIP-1242 from v5: REBOOTSTRAP_REQUIRED for another
// cluster id, or a node id other than the broker of the port the client
// dialled; on the bootstrap port any broker of the view), else upstream's
// APIs narrowed to what the proxy rewrites.
func TestForwardApiVersionsChecks(t *testing.T) {
	u := newFakeUpstreamWith(t, 0, threeBrokers)
	f, addr := benchForwarder(t, u)
	boot, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { boot.Close() })
	go f.serveBroker(boot, -1)
	cases := []struct {
		name   string
		addr   string
		v      int16
		setup  func(r *kmsg.ApiVersionsRequest)
		code   int16
		hasAPI bool
	}{
		{"v3", addr, 3, nil, 0, true},
		{"v5 without ids", addr, 5, nil, 0, true},
		{"v5 this broker", addr, 5, func(r *kmsg.ApiVersionsRequest) { r.ClusterID, r.NodeID = strp("bench"), 1 }, 0, true},
		{"v5 another broker on this port", addr, 5, func(r *kmsg.ApiVersionsRequest) { r.ClusterID, r.NodeID = strp("bench"), 2 }, kafkaerr.RebootstrapRequired.Int16(), false},
		{"v5 another cluster", addr, 5, func(r *kmsg.ApiVersionsRequest) { r.ClusterID, r.NodeID = strp("other"), 1 }, kafkaerr.RebootstrapRequired.Int16(), false},
		{"v5 cluster without node", addr, 5, func(r *kmsg.ApiVersionsRequest) { r.ClusterID = strp("bench") }, kafkaerr.InvalidRequest.Int16(), false},
		{"v3 bad software name", addr, 3, func(r *kmsg.ApiVersionsRequest) { r.ClientSoftwareName = "-x" }, kafkaerr.InvalidRequest.Int16(), false},
		{"v5 bootstrap, a broker of the view", boot.Addr().String(), 5, func(r *kmsg.ApiVersionsRequest) { r.ClusterID, r.NodeID = strp("bench"), 3 }, 0, true},
		{"v5 bootstrap, an unknown broker", boot.Addr().String(), 5, func(r *kmsg.ApiVersionsRequest) { r.ClusterID, r.NodeID = strp("bench"), 99 }, kafkaerr.RebootstrapRequired.Int16(), false},
		{"v6 unsupported", addr, 6, nil, kafkaerr.UnsupportedVersion.Int16(), true},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := kmsg.NewPtrApiVersionsRequest()
			req.Version = c.v
			req.ClientSoftwareName, req.ClientSoftwareVersion = "kmeta-test", "1.0"
			if c.setup != nil {
				c.setup(req)
			}
			r := kmsg.NewPtrApiVersionsResponse()
			r.Version = min(c.v, 5)
			if c.v > 5 {
				r.Version = 0 // Kafka answers an unknown version at v0
			}
			require.NoError(t, roundTrip(dialT(t, c.addr), req, r, int32(i)))
			require.Equal(t, c.code, r.ErrorCode)
			require.Equal(t, c.hasAPI, len(r.ApiKeys) > 0)
			if c.code == kafkaerr.UnsupportedVersion.Int16() {
				require.Len(t, r.ApiKeys, 1, "ApiVersions' own range only (KIP-511)")
				require.Equal(t, int16(3), r.ApiKeys[0].MaxVersion, "as offered: upstream's 3 within the proxy's 5")
				return
			}
			if c.hasAPI {
				require.Equal(t, f.versions.Load().ApiKeys, r.ApiKeys)
				require.Equal(t, int16(11), r.ApiKeys[0].MaxVersion, "Produce: upstream's 11 within the rewriter's 13")
			}
		})
	}
}

// TestForwardClientHosts: -client-host PREFIX=HOST (ClientHosts,
// Bufstream-style host overrides by client id) gives clients whose
// client.id starts with PREFIX the proxy's ports under HOST, the longest
// prefix winning, in Metadata brokers and FindCoordinator coordinators;
// other clients keep the listen host; a malformed rule is a flag error.
func TestForwardClientHosts(t *testing.T) {
	var hosts ClientHosts
	for _, v := range []string{"internal-=proxy.internal", "internal-batch-=batch.internal"} {
		r, err := ParseHostRule(v)
		require.NoError(t, err)
		hosts = append(hosts, r)
	}
	_, err := ParseHostRule("no-equals-sign")
	require.Error(t, err)

	u := newFakeUpstreamWith(t, 0, threeBrokers)
	f, addr := benchForwarderWith(t, u, func(f *Forwarder) { f.rw.Shaper = hosts })
	conn := dialT(t, addr)
	_, port1, _ := net.SplitHostPort(addr)
	for i, c := range []struct{ clientID, host string }{
		{"internal-app", "proxy.internal"},
		{"internal-batch-7", "batch.internal"},
		{"outside", "127.0.0.1"},
	} {
		md := kmsg.NewPtrMetadataRequest()
		md.Version = 12
		r := kmsg.NewPtrMetadataResponse()
		r.Version = 12
		require.NoError(t, roundTripAs(conn, md, r, int32(i), c.clientID))
		require.Len(t, r.Brokers, 3)
		for _, b := range r.Brokers {
			require.Equal(t, c.host, b.Host, "client %s", c.clientID)
			if b.NodeID == 1 {
				require.Equal(t, port1, itoa(b.Port), "the proxy's port for broker 1")
			}
		}
		fc := kmsg.NewPtrFindCoordinatorRequest()
		fc.Version, fc.CoordinatorKeys = 4, []string{"g"}
		fr := kmsg.NewPtrFindCoordinatorResponse()
		fr.Version = 4
		require.NoError(t, roundTripAs(conn, fc, fr, int32(10+i), c.clientID))
		require.Equal(t, c.host, fr.Coordinators[0].Host)
	}
	require.Equal(t, int64(6), f.stats.Local.Load())
}
