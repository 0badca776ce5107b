package epoch

import (
	"github.com/kmeta-go/kmeta/internal/benchtest"
	"strconv"
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/record"
)

// testImage: brokers 1 (PLAINTEXT), 2 (PLAINTEXT, fenced), 3 (INTERNAL
// only); topic "orders" (id 7): p0 leader 1 epoch 5 replicas 1 2; p1
// leader 2 (fenced) epoch 9 replicas 2 1; p2 no leader epoch 3 replicas 3 1.
func testImage(t testing.TB) *image.Image {
	dl := delta.New(image.Empty())
	must := func(r record.Record) {
		if err := dl.Replay(r); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range []struct {
		id       int32
		listener string
		fenced   bool
	}{{1, "PLAINTEXT", false}, {2, "PLAINTEXT", true}, {3, "INTERNAL", false}} {
		r := record.NewRegisterBrokerRecord()
		r.BrokerID, r.Fenced, r.Rack = b.id, b.fenced, nil
		r.EndPoints = []record.BrokerEndpoint{{Name: b.listener, Host: "h", Port: uint16(9000 + b.id)}}
		must(r)
	}
	tr := record.NewTopicRecord()
	tr.Name, tr.TopicID = "orders", record.UUID{15: 7}
	must(tr)
	for _, p := range []struct {
		id, leader, epoch int32
		replicas          []int32
	}{{0, 1, 5, []int32{1, 2}}, {1, 2, 9, []int32{2, 1}}, {2, -1, 3, []int32{3, 1}}} {
		r := record.NewPartitionRecord()
		r.TopicID, r.PartitionID, r.Leader, r.LeaderEpoch, r.Replicas, r.ISR = tr.TopicID, p.id, p.leader, p.epoch, p.replicas, p.replicas
		must(r)
	}
	img, err := dl.Apply(image.EmptyProvenance)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestCheck: each row cites the Kafka rule.
func TestCheck(t *testing.T) {
	img := testImage(t)
	rows := []struct {
		rule       string
		topic      string
		p, epoch   int32
		local      int32
		needLeader bool
		want       Result
	}{
		{"getPartitionOrError: topic not in the cache -> UNKNOWN_TOPIC_OR_PARTITION", "nope", 0, 5, 1, true, Result{kafkaerr.UnknownTopicOrPartition, -1, -1}},
		{"getPartitionOrError: partition not in the cache -> UNKNOWN_TOPIC_OR_PARTITION", "orders", 9, 5, 1, true, Result{kafkaerr.UnknownTopicOrPartition, -1, -1}},
		{"getPartitionOrError: not hosted but known -> NOT_LEADER_OR_FOLLOWER (before any epoch check)", "orders", 0, 1, 3, false, Result{kafkaerr.NotLeaderOrFollower, 1, 5}},
		{"checkCurrentLeaderEpoch: absent epoch -> no check", "orders", 0, NoEpoch, 1, true, Result{kafkaerr.None, 1, 5}},
		{"checkCurrentLeaderEpoch: equal epoch, leader -> NONE", "orders", 0, 5, 1, true, Result{kafkaerr.None, 1, 5}},
		{"checkCurrentLeaderEpoch: local > request -> FENCED_LEADER_EPOCH", "orders", 0, 4, 1, true, Result{kafkaerr.FencedLeaderEpoch, 1, 5}},
		{"checkCurrentLeaderEpoch: local < request -> UNKNOWN_LEADER_EPOCH", "orders", 0, 6, 1, true, Result{kafkaerr.UnknownLeaderEpoch, 1, 5}},
		{"getLocalLog: requireLeader on a follower -> NOT_LEADER_OR_FOLLOWER", "orders", 0, 5, 2, true, Result{kafkaerr.NotLeaderOrFollower, 1, 5}},
		{"getLocalLog: follower fetch allowed (KIP-392) -> NONE", "orders", 0, 5, 2, false, Result{kafkaerr.None, 1, 5}},
		{"checkCurrentLeaderEpoch before leadership: fenced epoch on a follower -> FENCED_LEADER_EPOCH", "orders", 0, 4, 2, true, Result{kafkaerr.FencedLeaderEpoch, 1, 5}},
		{"no leader: requireLeader -> NOT_LEADER_OR_FOLLOWER with leader -1", "orders", 2, 3, 1, true, Result{kafkaerr.NotLeaderOrFollower, -1, 3}},
	}
	for _, r := range rows {
		t.Run(r.rule, func(t *testing.T) {
			if got := CheckName(img, r.topic, r.p, r.epoch, r.local, r.needLeader); got != r.want {
				t.Errorf("got %+v, want %+v", got, r.want)
			}
		})
	}
	if got := CheckID(img, record.UUID{15: 7}, 0, 4, 1, true); got.ErrorCode != kafkaerr.FencedLeaderEpoch {
		t.Errorf("CheckID: %+v", got)
	}
}

// TestCheckIDUnknownTopicID: KafkaApis.handleFetchRequest and
// handleProduceRequest (v13+) answer UNKNOWN_TOPIC_ID for a topic id the
// metadata cache does not know (the zero id too), with no leader hint; a
// known id whose partition does not exist stays UNKNOWN_TOPIC_OR_PARTITION.
func TestCheckIDUnknownTopicID(t *testing.T) {
	img := testImage(t)
	for _, id := range []record.UUID{{15: 99}, {}} {
		got := CheckID(img, id, 0, NoEpoch, 1, true)
		if got != (Result{kafkaerr.UnknownTopicID, -1, -1}) || got.HasLeaderHint() {
			t.Errorf("CheckID(%v): %+v, want UNKNOWN_TOPIC_ID", id, got)
		}
	}
	if got := CheckID(img, record.UUID{15: 7}, 9, NoEpoch, 1, true); got.ErrorCode != kafkaerr.UnknownTopicOrPartition {
		t.Errorf("CheckID of a missing partition: %+v", got)
	}
	orders, _ := img.Topic("orders")
	if got := CheckProduce(orders, 0, 2); got.ErrorCode != kafkaerr.NotLeaderOrFollower || !got.HasLeaderHint() {
		t.Errorf("produce on a follower: %+v", got)
	}
	if got := CheckProduce(orders, 0, 1); got.ErrorCode != kafkaerr.None || got.HasLeaderHint() {
		t.Errorf("produce on the leader: %+v", got)
	}
}

// TestLeaderHints: NodeEndpoints get the leader only when it is alive with the
// listener, once per node (KIP-951).
func TestLeaderHints(t *testing.T) {
	img := testImage(t)
	nodes := AppendFetchNode(nil, img, 1, "PLAINTEXT")
	nodes = AppendFetchNode(nodes, img, 1, "PLAINTEXT")
	nodes = AppendFetchNode(nodes, img, 2, "PLAINTEXT") // fenced
	nodes = AppendFetchNode(nodes, img, 3, "PLAINTEXT") // lacks the listener
	nodes = AppendFetchNode(nodes, img, 9, "PLAINTEXT") // unregistered
	if len(nodes) != 1 || nodes[0].NodeID != 1 || nodes[0].Port != 9001 || nodes[0].Rack != nil {
		t.Errorf("fetch nodes %+v", nodes)
	}
	pn := AppendProduceNode(nil, img, 3, "INTERNAL")
	if len(pn) != 1 || pn[0].NodeID != 3 || pn[0].Port != 9003 {
		t.Errorf("produce nodes %+v", pn)
	}
}

func BenchmarkCheck(b *testing.B) {
	img := testImage(b)
	t, _ := img.Topic("orders")
	b.Run("topic", func(b *testing.B) {
		b.ReportAllocs()
		defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
		for b.Loop() {
			if Check(t, 0, 5, 1, true).ErrorCode != 0 {
				b.Fatal()
			}
		}
	})
	b.Run("name", func(b *testing.B) {
		b.ReportAllocs()
		defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
		for b.Loop() {
			if CheckName(img, "orders", 0, 5, 1, true).ErrorCode != 0 {
				b.Fatal()
			}
		}
	})
}

// BenchmarkCheckFetchRequest is the documented request path, as Kafka's
// fetch handling does it (KafkaApis.handleFetch resolves each requested
// topic once, then ReplicaManager checks every partition against its
// Partition): a fetch for 4 topics × 10 partitions by name, in an image of
// 5 000 topics × 10 partitions (replicas 1, 2, 3, leader 1, epoch 5),
// served by broker 1. Each topic is looked up once per request and each
// partition checked against it; partition-ns/op is the cost of one
// partition's check, the topic lookups included (goal ≤ 50 ns, 0 allocs).
func BenchmarkCheckFetchRequest(b *testing.B) {
	var ts []image.Topic
	for n := range 5000 {
		id := record.UUID{0: byte(n >> 8), 1: byte(n), 15: 9}
		parts := make([]image.PartitionRegistration, 10)
		for p := range parts {
			r := record.NewPartitionRecord()
			r.TopicID, r.PartitionID, r.Leader, r.LeaderEpoch = id, int32(p), 1, 5
			r.Replicas, r.ISR = []int32{1, 2, 3}, []int32{1, 2, 3}
			var err error
			if parts[p], err = image.NewPartition(r); err != nil {
				b.Fatal(err)
			}
		}
		tb := image.NewTopicBuilder("topic-"+strconv.Itoa(n), id)
		for _, p := range parts {
			tb.Put(p)
		}
		ts = append(ts, tb.Topic())
	}
	bld := image.NewBuilder(nil)
	if err := bld.PutTopics(nil, ts); err != nil {
		b.Fatal(err)
	}
	img := bld.Image(image.EmptyProvenance)
	type fetchTopic struct {
		name       string
		partitions []int32
	}
	req := []fetchTopic{{"topic-17", nil}, {"topic-1234", nil}, {"topic-2500", nil}, {"topic-4999", nil}}
	for i := range req {
		for p := range int32(10) {
			req[i].partitions = append(req[i].partitions, p)
		}
	}
	b.ReportAllocs()
	defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
	checked := 0
	for b.Loop() {
		checked = 0
		for _, ft := range req {
			t, _ := img.Topic(ft.name) // once per requested topic
			for _, p := range ft.partitions {
				if Check(t, p, 5, 1, true).ErrorCode != kafkaerr.None {
					b.Fatal(ft.name, p)
				}
				checked++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(checked), "partition-ns/op")
}
