package proxy

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/publisher"
)

// vectorRequest is the request a client sends for one decision row of the
// authorizer's vectors (operation on a resource), or nil where no request
// of a client is authorized by that operation on that resource alone.
func vectorRequest(op, rt, name string) kmsg.Request {
	switch rt + " " + op {
	case "TOPIC WRITE":
		r := kmsg.NewPtrProduceRequest()
		r.Version, r.Acks = 9, -1
		t := kmsg.NewProduceRequestTopic()
		t.Topic = name
		t.Partitions = []kmsg.ProduceRequestTopicPartition{kmsg.NewProduceRequestTopicPartition()}
		r.Topics = append(r.Topics, t)
		return r
	case "TOPIC READ":
		r := kmsg.NewPtrFetchRequest()
		r.Version = 12
		t := kmsg.NewFetchRequestTopic()
		t.Topic = name
		t.Partitions = []kmsg.FetchRequestTopicPartition{kmsg.NewFetchRequestTopicPartition()}
		r.Topics = append(r.Topics, t)
		return r
	case "TOPIC DESCRIBE":
		r := kmsg.NewPtrListOffsetsRequest()
		r.Version = 7
		t := kmsg.NewListOffsetsRequestTopic()
		t.Topic = name
		t.Partitions = []kmsg.ListOffsetsRequestTopicPartition{kmsg.NewListOffsetsRequestTopicPartition()}
		r.Topics = append(r.Topics, t)
		return r
	case "TOPIC DELETE":
		r := kmsg.NewPtrDeleteTopicsRequest()
		r.Version = 4
		r.TopicNames = []string{name}
		return r
	case "TOPIC ALTER":
		r := kmsg.NewPtrCreatePartitionsRequest()
		r.Version = 2
		t := kmsg.NewCreatePartitionsRequestTopic()
		t.Topic, t.Count = name, 10
		r.Topics = append(r.Topics, t)
		return r
	case "TOPIC DESCRIBE_CONFIGS", "TOPIC ALTER_CONFIGS":
		r := kmsg.NewPtrDescribeConfigsRequest()
		r.Version = 4
		res := kmsg.NewDescribeConfigsRequestResource()
		res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeTopic, name
		r.Resources = append(r.Resources, res)
		if op == "ALTER_CONFIGS" {
			a := kmsg.NewPtrIncrementalAlterConfigsRequest()
			a.Version = 1
			ar := kmsg.NewIncrementalAlterConfigsRequestResource()
			ar.ResourceType, ar.ResourceName = kmsg.ConfigResourceTypeTopic, name
			a.Resources = append(a.Resources, ar)
			return a
		}
		return r
	}
	return otherVectorRequest(op, rt, name)
}

// otherVectorRequest is vectorRequest for groups, transactional ids and
// the cluster.
func otherVectorRequest(op, rt, name string) kmsg.Request {
	switch rt + " " + op {
	case "GROUP READ":
		r := kmsg.NewPtrHeartbeatRequest()
		r.Version, r.Group = 4, name
		return r
	case "GROUP DESCRIBE":
		r := kmsg.NewPtrDescribeGroupsRequest()
		r.Version, r.Groups = 5, []string{name}
		return r
	case "GROUP DELETE":
		r := kmsg.NewPtrDeleteGroupsRequest()
		r.Version, r.Groups = 2, []string{name}
		return r
	case "TRANSACTIONAL_ID WRITE":
		r := kmsg.NewPtrEndTxnRequest()
		r.Version, r.TransactionalID = 3, name
		return r
	case "TRANSACTIONAL_ID DESCRIBE":
		r := kmsg.NewPtrDescribeTransactionsRequest()
		r.TransactionalIDs = []string{name}
		return r
	}
	if rt != "CLUSTER" || name != clusterName {
		return nil
	}
	switch op {
	case "ALTER":
		r := kmsg.NewPtrCreateACLsRequest()
		r.Version = 2
		return r
	case "DESCRIBE":
		r := kmsg.NewPtrDescribeACLsRequest()
		r.Version = 2
		return r
	case "DESCRIBE_CONFIGS":
		r := kmsg.NewPtrDescribeClientQuotasRequest()
		r.Version = 1
		return r
	case "ALTER_CONFIGS":
		r := kmsg.NewPtrAlterClientQuotasRequest()
		r.Version = 1
		return r
	case "CLUSTER_ACTION":
		r := kmsg.NewPtrFetchRequest()
		r.Version, r.ReplicaID = 12, 1
		return r
	}
	return nil
}

// authzFconn is a client connection of a forwarder authorizing with a, as
// principal from host.
func authzFconn(a authz.Authorizer, principal, host string) *fconn {
	f := newForwarder(nil, 0, nil)
	f.passThrough, f.authz = false, a
	return &fconn{f: f, sess: &session{principal: principal, host: host}}
}

// TestAuthorizationAsKafkaVectors replays the decision rows of Kafka's
// StandardAuthorizer vectors (../shared/vectors/authz, every case) as the
// requests a client sends for them (vectorRequest: Produce for WRITE on a
// topic, Fetch for READ, ListOffsets for DESCRIBE, ...; rows no client
// request checks alone are skipped) through the forwarder's
// authorization: a request is forwarded exactly where Kafka's authorizer
// ALLOWED the row, and answered with an authorization error (decodable at
// its version) where it DENIED it; none is forwarded that Kafka denies.
func TestAuthorizationAsKafkaVectors(t *testing.T) {
	for _, d := range []struct {
		dir string
		mv  image.MetadataVersion
	}{{"authz", image.MV4_2_IV1}, {"authz-4.4", image.MV4_4_IV2}} {
		t.Run(d.dir, func(t *testing.T) { replayAuthzVectors(t, d.dir, d.mv) })
	}
}

// replayAuthzVectors is TestAuthorizationAsKafkaVectors for one folder of
// vectors, the authorizer at metadata.version mv (as image/authz's own
// replay sets it).
func replayAuthzVectors(t *testing.T, dir string, mv image.MetadataVersion) {
	root := sharedtest.Path(t, "vectors", dir)
	index, err := os.ReadFile(filepath.Join(root, "INDEX.tsv"))
	require.NoError(t, err)
	replayed := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(index)), "\n")[1:] {
		f := strings.Split(line, "\t")
		acls, err := LoadACLFile(filepath.Join(root, f[0]+".acls.jsonl"))
		require.NoError(t, err)
		cfg := authz.Config{AllowIfNoACLFound: f[4] == "true", MetadataVersion: mv}
		if f[3] != "" {
			cfg.SuperUsers = strings.Split(f[3], ",")
		}
		a := authz.New(acls, cfg)
		rows, err := os.ReadFile(filepath.Join(root, f[0]+".decisions.tsv"))
		require.NoError(t, err)
		for n, row := range strings.Split(strings.TrimSpace(string(rows)), "\n")[1:] {
			r := strings.Split(row, "\t")
			req := vectorRequest(r[2], r[3], r[4])
			if req == nil {
				continue
			}
			c := authzFconn(a, r[0], r[1])
			frame := requestFrame(req, int32(n))[4:]
			h, err := ParseHeader(frame)
			require.NoError(t, err)
			d, err := c.authorizeRequest(h, frame)
			require.NoError(t, err, "%s row %d", f[0], n+2)
			op, rt := vectorEnums(t, r[2], r[3])
			want := a.Authorize(authz.Context{Principal: r[0], Host: r[1]}, op, rt, r[4])
			require.Equal(t, want, d.forward, "%s row %d: %s %s on %s %q from %s: the authorizer says %v", f[0], n+2, r[0], r[2], r[3], r[4], r[1], want)
			require.False(t, d.forward && r[5] != "ALLOWED", "%s row %d: forwarded what Kafka denies", f[0], n+2)
			if !d.forward {
				resp := req.ResponseKind()
				resp.SetVersion(req.GetVersion())
				hs, err := responseHeaderSize(req.Key(), req.GetVersion(), d.out[4:])
				require.NoError(t, err)
				require.NoError(t, resp.ReadFrom(d.out[4+hs:]), "%s row %d: the denial does not decode", f[0], n+2)
			}
			replayed[fmt.Sprintf("%T", req)]++
		}
	}
	t.Logf("rows replayed by request kind: %v", replayed)
	require.GreaterOrEqual(t, len(replayed), 10)
}

// vectorEnums parses the vectors' operation and resource type names.
func vectorEnums(t *testing.T, op, rt string) (authz.Operation, authz.ResourceType) {
	ops := map[string]authz.Operation{"READ": authz.OpRead, "WRITE": authz.OpWrite, "CREATE": authz.OpCreate, "DELETE": authz.OpDelete, "ALTER": authz.OpAlter, "DESCRIBE": authz.OpDescribe, "CLUSTER_ACTION": authz.OpClusterAction, "DESCRIBE_CONFIGS": authz.OpDescribeConfigs, "ALTER_CONFIGS": authz.OpAlterConfigs}
	rts := map[string]authz.ResourceType{"TOPIC": authz.ResourceTopic, "GROUP": authz.ResourceGroup, "CLUSTER": authz.ResourceCluster, "TRANSACTIONAL_ID": authz.ResourceTransactionalID}
	o, ok1 := ops[op]
	r, ok2 := rts[rt]
	require.True(t, ok1 && ok2, "%s %s", op, rt)
	return o, r
}

// TestJavaHostAddress: the session's host is InetAddress.getHostAddress's
// form, which the vectors' hosts and ACLs use.
func TestJavaHostAddress(t *testing.T) {
	for in, want := range map[string]string{"127.0.0.1": "127.0.0.1", "::1": "0:0:0:0:0:0:0:1", "::ffff:10.0.0.1": "10.0.0.1", "2001:db8::12": "2001:db8:0:0:0:0:0:12"} {
		require.Equal(t, want, javaHostAddress(netip.MustParseAddr(in)))
	}
}

// benchACLs10k is 10 002 ACLs: per team (3 334) a PREFIXED topic WRITE
// ALLOW, a LITERAL group READ ALLOW and a topic DENY from one host.
func benchACLs10k() *image.ACLs {
	var list []image.ACL
	for i := range 3334 {
		p := fmt.Sprintf("User:team-%d", i)
		list = append(list,
			image.ACL{ResourceType: int8(authz.ResourceTopic), ResourceName: fmt.Sprintf("team-%d-", i), PatternType: int8(authz.PatternPrefixed), Principal: p, Host: "*", Operation: int8(authz.OpWrite), PermissionType: int8(authz.PermissionAllow)},
			image.ACL{ResourceType: int8(authz.ResourceGroup), ResourceName: fmt.Sprintf("team-%d-app", i), PatternType: int8(authz.PatternLiteral), Principal: p, Host: "*", Operation: int8(authz.OpRead), PermissionType: int8(authz.PermissionAllow)},
			image.ACL{ResourceType: int8(authz.ResourceTopic), ResourceName: fmt.Sprintf("team-%d-secret", i), PatternType: int8(authz.PatternLiteral), Principal: p, Host: "10.0.0.9", Operation: int8(authz.OpWrite), PermissionType: int8(authz.PermissionDeny)})
	}
	for i := range list {
		n := i + 1
		list[i].ID[12], list[i].ID[13], list[i].ID[14], list[i].ID[15] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	}
	b := image.NewBuilder(nil)
	b.PutACLs(list, nil)
	return b.Image(image.EmptyProvenance).ACLs()
}

// BenchmarkAuthorizeProduce is the authorization of a forwarded Produce
// (v9, one topic, one partition of 1 KiB) on 10 002 ACLs: the request
// walked with the byte reader and WRITE on its topic decided by the
// Standard authorizer; allowed, so forwarded.
func BenchmarkAuthorizeProduce(b *testing.B) {
	a := authz.New(benchACLs10k(), authz.Config{MetadataVersion: image.MV4_4_IV2})
	c := authzFconn(a, "User:team-1700", "10.0.0.7")
	r := kmsg.NewPtrProduceRequest()
	r.Version, r.Acks = 9, -1
	t := kmsg.NewProduceRequestTopic()
	t.Topic = "team-1700-orders"
	p := kmsg.NewProduceRequestTopicPartition()
	p.Records = make([]byte, 1024)
	t.Partitions = []kmsg.ProduceRequestTopicPartition{p}
	r.Topics = append(r.Topics, t)
	frame := requestFrame(r, 1)[4:]
	h, err := ParseHeader(frame)
	if err != nil {
		b.Fatal(err)
	}
	if d, err := c.authorizeRequest(h, frame); err != nil || !d.forward {
		b.Fatal("not allowed", err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c.authorizeRequest(h, frame)
	}
}

// TestMetadataFilteredByDescribe: Metadata answered from the view lists,
// of all topics, only those the principal may DESCRIBE; a named topic it
// may not is TOPIC_AUTHORIZATION_FAILED without partitions; the
// authorized operations asked for are the principal's.
func TestMetadataFilteredByDescribe(t *testing.T) {
	acl := image.ACL{ResourceType: int8(authz.ResourceTopic), ResourceName: "bench", PatternType: int8(authz.PatternLiteral), Principal: "User:ANONYMOUS", Host: "*", Operation: int8(authz.OpRead), PermissionType: int8(authz.PermissionAllow)}
	acl.ID[15] = 1
	b := image.NewBuilder(nil)
	b.PutACLs([]image.ACL{acl}, nil)
	a := authz.New(b.Image(image.EmptyProvenance).ACLs(), authz.Config{})
	u := newFakeUpstream(t, 0)
	_, addr := benchForwarderWith(t, u, func(f *Forwarder) { f.passThrough, f.authz = false, a })
	c := dialT(t, addr)
	all := newMetadataV12Response()
	req := metadataV12()
	req.IncludeTopicAuthorizedOperations = true
	require.NoError(t, roundTrip(c, req, all, 1))
	require.Len(t, all.Topics, 1)
	require.Equal(t, "bench", *all.Topics[0].Topic)
	require.Equal(t, authz.AuthorizedOperations(a, authz.Context{Principal: Anonymous, Host: "127.0.0.1"}, authz.ResourceTopic, "bench"), all.Topics[0].AuthorizedOperations)

	b2 := image.NewBuilder(nil)
	a2 := authz.New(b2.Image(image.EmptyProvenance).ACLs(), authz.Config{})
	u2 := newFakeUpstream(t, 0)
	_, addr2 := benchForwarderWith(t, u2, func(f *Forwarder) { f.passThrough, f.authz = false, a2 })
	c2 := dialT(t, addr2)
	named := metadataV12()
	tp := kmsg.NewMetadataRequestTopic()
	tp.Topic = kmsg.StringPtr("bench")
	named.Topics = append(named.Topics, tp)
	resp := newMetadataV12Response()
	require.NoError(t, roundTrip(c2, named, resp, 1))
	require.Len(t, resp.Topics, 1)
	require.Equal(t, int16(kafkaerr.TopicAuthorizationFailed.Int16()), resp.Topics[0].ErrorCode)
	require.Empty(t, resp.Topics[0].Partitions)
}

// TestServerAuthorization: in image mode with SetAuthorization, the
// image's own ACLs decide what Metadata lists for User:ANONYMOUS: only the
// topic an ACL lets it DESCRIBE.
func TestServerAuthorization(t *testing.T) {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 2, 3)
	sim.MustCreateTopic("payments", 2, 3)
	if _, err := sim.CreateACL(image.ACL{ResourceType: int8(authz.ResourceTopic), ResourceName: "orders", PatternType: int8(authz.PatternLiteral), Principal: Anonymous, Host: "*", Operation: int8(authz.OpDescribe), PermissionType: int8(authz.PermissionAllow)}); err != nil {
		t.Fatal(err)
	}
	loader := publisher.NewLoader(publisher.Config{})
	defer loader.Close()
	require.NoError(t, loader.HandleCommit(sim.Batches()...))
	loader.SetHighWatermark(sim.NextOffset())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	s := NewServer(DefaultListener(loader.Image()), "c", ln.Addr().String())
	s.SetAuthorization(authz.Config{})
	require.NoError(t, loader.Install(s))
	go s.Serve(ln)
	c := dialT(t, ln.Addr().String())
	resp := newMetadataV12Response()
	require.NoError(t, roundTrip(c, metadataV12(), resp, 1))
	require.Len(t, resp.Topics, 1)
	require.Equal(t, "orders", *resp.Topics[0].Topic)
}
