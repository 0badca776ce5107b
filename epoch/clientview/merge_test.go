package clientview

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// Builders for hand-written answers.

func answer(version int16, topics ...kmsg.MetadataResponseTopic) *kmsg.MetadataResponse {
	r := kmsg.NewPtrMetadataResponse()
	r.Version = version
	r.ControllerID = 1
	for id := int32(1); id <= 3; id++ {
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID, b.Host, b.Port = id, fmt.Sprintf("b%d", id), 9092
		r.Brokers = append(r.Brokers, b)
	}
	r.Topics = topics
	return r
}

func tid(b byte) [16]byte { return [16]byte{15: b} }

func topicAnswer(name string, id byte, parts ...kmsg.MetadataResponseTopicPartition) kmsg.MetadataResponseTopic {
	t := kmsg.NewMetadataResponseTopic()
	t.Topic = &name
	t.TopicID = tid(id)
	t.Partitions = parts
	return t
}

func part(p, leader, epoch int32) kmsg.MetadataResponseTopicPartition {
	x := kmsg.NewMetadataResponseTopicPartition()
	x.Partition, x.Leader, x.LeaderEpoch = p, leader, epoch
	x.Replicas = []int32{1, 2, 3}
	x.ISR = []int32{1, 2, 3}
	if leader < 0 {
		x.ErrorCode = kafkaerr.LeaderNotAvailable.Int16()
	}
	return x
}

func withErr(p kmsg.MetadataResponseTopicPartition, code int16) kmsg.MetadataResponseTopicPartition {
	p.ErrorCode = code
	return p
}

type step struct {
	resp *kmsg.MetadataResponse
	opts MergeOptions
}

func st(r *kmsg.MetadataResponse) step { return step{resp: r} }

func from(node int32, r *kmsg.MetadataResponse) step {
	return step{resp: r, opts: MergeOptions{Node: node, HasNode: true}}
}

func run(t *testing.T, cfg ViewConfig, steps []step) (*View, []Report) {
	t.Helper()
	v := NewView(cfg)
	var reps []Report
	for _, s := range steps {
		var rep Report
		v, rep = v.Merge(s.resp, s.opts)
		reps = append(reps, rep)
	}
	return v, reps
}

func mustPart(t *testing.T, v *View, topic string, p int32) *Partition {
	t.Helper()
	tp, ok := v.Topic(topic)
	if !ok {
		t.Fatalf("topic %s missing", topic)
	}
	x, ok := tp.Partition(p)
	if !ok {
		t.Fatalf("partition %s/%d missing", topic, p)
	}
	return x
}

func hasEvent(reps []Report, k EventKind) bool {
	for _, r := range reps {
		for _, e := range r.Events {
			if e.Kind == k {
				return true
			}
		}
	}
	return false
}

// TestMergeRules runs the table of every merge rule (mergeRules), each case
// named after the failure it guards against.
func TestMergeRules(t *testing.T) {
	for _, c := range mergeRules {
		t.Run(c.name, func(t *testing.T) {
			v, reps := run(t, c.cfg, c.steps)
			p := mustPart(t, v, c.topic, c.p)
			if p.leader != c.want.leader || p.leaderEpoch != c.want.epoch || p.seenEpoch != c.want.seen {
				t.Fatalf("leader/epoch/seen = %d/%d/%d, want %d/%d/%d (flags %06b)", p.leader, p.leaderEpoch, p.seenEpoch,
					c.want.leader, c.want.epoch, c.want.seen, p.flags)
			}
			if p.flags&c.want.flags != c.want.flags {
				t.Fatalf("flags %06b, want %06b set", p.flags, c.want.flags)
			}
			if p.flags&c.want.clear != 0 {
				t.Fatalf("flags %06b, want %06b clear", p.flags, c.want.clear)
			}
			for _, k := range c.events {
				if !hasEvent(reps, k) {
					t.Fatalf("no %v event", k)
				}
			}
			if c.check != nil {
				c.check(t, v, reps)
			}
		})
	}
}

func TestMergeIdenticalAnswerReturnsSameView(t *testing.T) {
	r := answer(12, topicAnswer("t", 1, part(0, 1, 1), part(1, 2, 3)))
	v, _ := NewView(ViewConfig{}).Merge(r, MergeOptions{})
	v2, rep := v.Merge(r, MergeOptions{})
	if v2 != v || rep.Changed || rep.Progress {
		t.Fatalf("identical answer changed the view: %+v", rep)
	}
	if n := testing.AllocsPerRun(100, func() { v.Merge(r, MergeOptions{}) }); n != 0 {
		t.Fatalf("identical merge allocates %v times", n)
	}
}

func TestMergeTopicErrors(t *testing.T) {
	v, _ := NewView(ViewConfig{}).Merge(answer(12, topicAnswer("t", 1, part(0, 1, 1))), MergeOptions{})
	unknown := topicAnswer("t", 0)
	unknown.ErrorCode = kafkaerr.UnknownTopicOrPartition.Int16()
	// A lagging broker that does not know the topic yet: kept, refreshed.
	v2, _ := v.Merge(answer(12, unknown), MergeOptions{})
	if tp, ok := v2.Topic("t"); !ok || !tp.NeedsRefresh() || tp.NumPartitions() != 1 {
		t.Fatal("topic unknown to one broker was dropped or not refreshed")
	}
	// Consecutive answers agreeing it is gone delete it (sarama#2680: a
	// deleted topic must not be refreshed forever).
	v3 := v2
	for range DefaultRewindAfter - 1 {
		v3, _ = v3.Merge(answer(12, unknown), MergeOptions{})
	}
	if _, ok := v3.Topic("t"); ok {
		t.Fatal("topic still present after consecutive unknown answers")
	}
	if v3.NeedsRefresh() {
		t.Fatal("deleted topic still needs refresh")
	}
	auth := topicAnswer("secret", 0)
	auth.ErrorCode = kafkaerr.TopicAuthorizationFailed.Int16()
	v4, _ := v.Merge(answer(12, auth), MergeOptions{})
	if tp, ok := v4.Topic("secret"); !ok || tp.ErrorCode() != kafkaerr.TopicAuthorizationFailed.Int16() || tp.NeedsRefresh() {
		t.Fatal("authorization error not surfaced or refreshed")
	}
}

func TestMergeAllTopicsAbsent(t *testing.T) {
	v, _ := NewView(ViewConfig{}).Merge(answer(12, topicAnswer("a", 1, part(0, 1, 1)), topicAnswer("b", 2, part(0, 1, 1))), MergeOptions{AllTopics: true})
	only := answer(12, topicAnswer("a", 1, part(0, 1, 1)))
	v2, _ := v.Merge(only, MergeOptions{AllTopics: true})
	if tp, ok := v2.Topic("b"); !ok || !tp.NeedsRefresh() {
		t.Fatal("topic absent from one full answer dropped or not refreshed")
	}
	for range DefaultRewindAfter - 1 {
		v2, _ = v2.Merge(only, MergeOptions{AllTopics: true})
	}
	if _, ok := v2.Topic("b"); ok {
		t.Fatal("topic absent from consecutive full answers kept")
	}
}

func TestMergeBrokersReplacedPerAnswer(t *testing.T) {
	r := answer(12, topicAnswer("t", 1, part(0, 1, 1)))
	v, _ := NewView(ViewConfig{}).Merge(r, MergeOptions{})
	r2 := answer(12, topicAnswer("t", 1, part(0, 1, 1)))
	r2.Brokers = r2.Brokers[1:]
	v2, rep := v.Merge(r2, MergeOptions{})
	if len(v2.Brokers()) != 2 || !rep.Changed || rep.Progress {
		t.Fatalf("broker list not replaced: %v", v2.Brokers())
	}
	if _, ok := v2.Broker(1); ok {
		t.Fatal("broker 1 still listed")
	}
	// Partition leaders are not touched by the broker list (KAFKA-9261).
	if l, _, ok := v2.Leader("t", 0); !ok || l != 1 {
		t.Fatal("leader lost with its broker entry")
	}
}

func TestMergeBadInput(t *testing.T) {
	bad := topicAnswer("t", 1, part(-1, 1, 1), part(1<<30, 1, 1), part(0, 1, 1))
	noName := kmsg.NewMetadataResponseTopic()
	v, rep := NewView(ViewConfig{}).Merge(answer(12, bad, noName), MergeOptions{})
	tp, ok := v.Topic("t")
	if !ok || tp.NumPartitions() != 1 || rep.Invalid != 3 {
		t.Fatalf("bad input: ok %v partitions %d invalid %d", ok, tp.NumPartitions(), rep.Invalid)
	}
	top := answer(13)
	top.ErrorCode = kafkaerr.RebootstrapRequired.Int16()
	v2, rep := v.Merge(top, MergeOptions{})
	if v2 != v || rep.ErrorCode != kafkaerr.RebootstrapRequired {
		t.Fatal("REBOOTSTRAP_REQUIRED answer merged")
	}
}

// TestPartitionSize guards the 48-byte partition layout the merge speed
// relies on (BENCHMARKS.md, "Client view").
func TestPartitionSize(t *testing.T) {
	if n := unsafe.Sizeof(Partition{}); n != 48 {
		t.Fatalf("Partition is %d bytes, want 48", n)
	}
}
