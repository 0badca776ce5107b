package answer

import (
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/record"
)

// edgeImage is a small cluster holding every case the answers distinguish:
//
//	broker 1: PLAINTEXT and INTERNAL, rack r1
//	broker 2: PLAINTEXT only (lacks INTERNAL)
//	broker 3: PLAINTEXT and INTERNAL, fenced
//	broker 4: PLAINTEXT and INTERNAL, log dir A online (B is not)
//	broker 5: not registered
//
//	alpha-0 leader 1, replicas 1 2 3, ISR 1 2     (3 fenced: offline)
//	alpha-1 leader 3 (fenced leader), replicas 3 1
//	alpha-2 no leader (-1), replicas 1 2, ISR empty
//	beta-0  leader 2 (lacks INTERNAL), replicas 2 5 (5 unregistered)
//	beta-1  leader 5 (unregistered), replicas 5 1
//	gamma-0 leader 4, replicas 4 1, 4's directory B not online
//	__consumer_offsets-0..2 leaders 1, 2, 3 (3 fenced)
//	__transaction_state-0..1 leaders 1, 4
//	secret-data-0 leader 1
//
// ACLs (for User:alice unless said): ALLOW DESCRIBE topic alpha (literal);
// ALLOW READ topics prefixed "ga" (implies DESCRIBE); ALLOW DESCRIBE topic
// "*" for User:bob; DENY DESCRIBE topic secret-data for User:*; ALLOW ALL
// group "*"; DENY DESCRIBE group blocked-group; ALLOW DESCRIBE
// transactional ids prefixed "tx-"; ALLOW CREATE topic new-topic.
func edgeImage(t testing.TB) *image.Image {
	t.Helper()
	dl := delta.New(image.Empty())
	replay := func(r record.Record) {
		t.Helper()
		if err := dl.Replay(r); err != nil {
			t.Fatalf("%T: %v", r, err)
		}
	}
	fl := record.NewFeatureLevelRecord()
	fl.Name, fl.FeatureLevel = image.MetadataVersionFeature, int16(image.MV3_7_IV2)
	replay(fl)
	edgeBrokers(replay)
	edgeTopics(replay)
	edgeACLs(replay)
	img, err := dl.Apply(image.Provenance{LastContainedOffset: 100, LastContainedEpoch: 1, BatchAligned: true})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// The log directories of edgeImage: broker 4 has A online; B is nobody's.
var (
	edgeDirA = record.UUID{1: 0xa}
	edgeDirB = record.UUID{1: 0xb}
)

// edgeBrokers registers edgeImage's brokers 1-4.
func edgeBrokers(replay func(record.Record)) {
	broker := func(id int32, listeners []string, fenced bool, rack string, dirs ...record.UUID) {
		r := record.NewRegisterBrokerRecord()
		r.BrokerID, r.BrokerEpoch, r.Fenced = id, int64(100+id), fenced
		r.IncarnationID = record.UUID{0: byte(id)}
		for i, l := range listeners {
			r.EndPoints = append(r.EndPoints, record.BrokerEndpoint{Name: l, Host: "b" + string(rune('0'+id)) + ".example", Port: uint16(9092 + i)})
		}
		r.Rack = nil
		if rack != "" {
			r.Rack = &rack
		}
		r.LogDirs = dirs
		replay(r)
	}
	broker(1, []string{"PLAINTEXT", "INTERNAL"}, false, "r1")
	broker(2, []string{"PLAINTEXT"}, false, "")
	broker(3, []string{"PLAINTEXT", "INTERNAL"}, true, "")
	broker(4, []string{"PLAINTEXT", "INTERNAL"}, false, "", edgeDirA)
}

// edgeTopics creates edgeImage's topics and partitions (ids 1-6).
func edgeTopics(replay func(record.Record)) {
	n := byte(0)
	topic := func(name string) record.UUID {
		n++
		id := record.UUID{15: n, 14: 0x77}
		r := record.NewTopicRecord()
		r.Name, r.TopicID = name, id
		replay(r)
		return id
	}
	part := func(tid record.UUID, p, leader int32, replicas, isr []int32, dirs ...record.UUID) {
		r := record.NewPartitionRecord()
		r.TopicID, r.PartitionID, r.Leader, r.Replicas, r.ISR = tid, p, leader, replicas, isr
		r.LeaderEpoch, r.PartitionEpoch = 3+p, 5
		r.Directories = dirs
		replay(r)
	}
	a := topic("alpha")
	part(a, 0, 1, []int32{1, 2, 3}, []int32{1, 2})
	part(a, 1, 3, []int32{3, 1}, []int32{3, 1})
	part(a, 2, -1, []int32{1, 2}, []int32{})
	b := topic("beta")
	part(b, 0, 2, []int32{2, 5}, []int32{2, 5})
	part(b, 1, 5, []int32{5, 1}, []int32{5})
	g := topic("gamma")
	part(g, 0, 4, []int32{4, 1}, []int32{4, 1}, edgeDirB, record.DirectoryMigrating)
	co := topic(GroupTopic)
	part(co, 0, 1, []int32{1, 2}, []int32{1, 2})
	part(co, 1, 2, []int32{2, 1}, []int32{2, 1})
	part(co, 2, 3, []int32{3, 1}, []int32{3})
	ts := topic(TransactionTopic)
	part(ts, 0, 1, []int32{1}, []int32{1})
	part(ts, 1, 4, []int32{4}, []int32{4}, edgeDirA)
	s := topic("secret-data")
	part(s, 0, 1, []int32{1}, []int32{1})
}

// edgeACLs creates edgeImage's ACLs (ids after the topics': 7-14).
func edgeACLs(replay func(record.Record)) {
	n := byte(6)
	acl := func(rt authz.ResourceType, name string, pt authz.PatternType, principal string, op authz.Operation, perm authz.PermissionType) {
		n++
		r := record.NewAccessControlEntryRecord()
		r.ID = record.UUID{0: 0xac, 15: n}
		r.ResourceType, r.ResourceName, r.PatternType = int8(rt), name, int8(pt)
		r.Principal, r.Host, r.Operation, r.PermissionType = principal, "*", int8(op), int8(perm)
		replay(r)
	}
	acl(authz.ResourceTopic, "alpha", authz.PatternLiteral, "User:alice", authz.OpDescribe, authz.PermissionAllow)
	acl(authz.ResourceTopic, "ga", authz.PatternPrefixed, "User:alice", authz.OpRead, authz.PermissionAllow)
	acl(authz.ResourceTopic, "*", authz.PatternLiteral, "User:bob", authz.OpDescribe, authz.PermissionAllow)
	acl(authz.ResourceTopic, "secret-data", authz.PatternLiteral, "User:*", authz.OpDescribe, authz.PermissionDeny)
	acl(authz.ResourceGroup, "*", authz.PatternLiteral, "User:alice", authz.OpAll, authz.PermissionAllow)
	acl(authz.ResourceGroup, "blocked-group", authz.PatternLiteral, "User:alice", authz.OpDescribe, authz.PermissionDeny)
	acl(authz.ResourceTransactionalID, "tx-", authz.PatternPrefixed, "User:alice", authz.OpDescribe, authz.PermissionAllow)
	acl(authz.ResourceTopic, "new-topic", authz.PatternLiteral, "User:alice", authz.OpCreate, authz.PermissionAllow)
}
