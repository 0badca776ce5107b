package clientview

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

func produceAnswer(topic string, p int32, code int16, leader, epoch int32, nodes ...int32) *kmsg.ProduceResponse {
	r := kmsg.NewPtrProduceResponse()
	r.Version = 10
	t := kmsg.NewProduceResponseTopic()
	t.Topic = topic
	pp := kmsg.NewProduceResponseTopicPartition()
	pp.Partition, pp.ErrorCode = p, code
	pp.CurrentLeader.LeaderID, pp.CurrentLeader.LeaderEpoch = leader, epoch
	t.Partitions = append(t.Partitions, pp)
	r.Topics = append(r.Topics, t)
	for _, n := range nodes {
		b := kmsg.NewProduceResponseBroker()
		b.NodeID, b.Host, b.Port = n, "new-host", 9093
		r.Brokers = append(r.Brokers, b)
	}
	return r
}

// TestKIP951Hints: Metadata.updatePartitionLeadership's rule.
func TestKIP951Hints(t *testing.T) {
	base, _ := NewView(ViewConfig{}).Merge(answer(12, topicAnswer("t", 1, part(0, 1, 5))), MergeOptions{})
	cases := []struct {
		name         string
		resp         *kmsg.ProduceResponse
		leader, ep   int32
		needsRefresh bool
		broker       int32 // a node that must be listed after, 0 = none
	}{
		{"newer epoch with its node is taken", produceAnswer("t", 0, kafkaerr.NotLeaderOrFollower.Int16(), 7, 6, 7), 7, 6, false, 7},
		{"newer epoch with a known node is taken", produceAnswer("t", 0, kafkaerr.NotLeaderOrFollower.Int16(), 2, 6), 2, 6, false, 0},
		{"equal epoch is not taken (strictly greater)", produceAnswer("t", 0, kafkaerr.NotLeaderOrFollower.Int16(), 2, 5), 1, 5, true, 0},
		{"older epoch is not taken", produceAnswer("t", 0, kafkaerr.NotLeaderOrFollower.Int16(), 2, 4), 1, 5, true, 0},
		{"unknown node is not taken", produceAnswer("t", 0, kafkaerr.NotLeaderOrFollower.Int16(), 9, 6), 1, 5, true, 0},
		{"no hint (-1/-1) marks refresh", produceAnswer("t", 0, kafkaerr.NotLeaderOrFollower.Int16(), -1, -1), 1, 5, true, 0},
		{"unknown partition is ignored", produceAnswer("t", 3, kafkaerr.NotLeaderOrFollower.Int16(), 2, 9), 1, 5, false, 0},
		{"non-metadata error does not refresh", produceAnswer("t", 0, 87 /* INVALID_RECORD */, -1, -1), 1, 5, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, _ := base.ApplyProduce(c.resp)
			p := mustPart(t, v, "t", 0)
			if p.leader != c.leader || p.leaderEpoch != c.ep {
				t.Fatalf("leader %d/%d, want %d/%d", p.leader, p.leaderEpoch, c.leader, c.ep)
			}
			if got := p.flags&NeedsRefresh != 0; got != c.needsRefresh {
				t.Fatalf("needs refresh %v, want %v", got, c.needsRefresh)
			}
			if p.leader != 1 && (p.nRep != 3 || p.nISR != 3) {
				t.Fatal("hint replaced replicas or ISR")
			}
			if c.broker != 0 {
				if b, ok := v.Broker(c.broker); !ok || b.Host() != "new-host" {
					t.Fatal("hint node not merged into the broker list")
				}
			}
		})
	}
	// A later stale Metadata answer does not undo a hint.
	v, _ := base.ApplyProduce(produceAnswer("t", 0, kafkaerr.NotLeaderOrFollower.Int16(), 2, 6))
	v, _ = v.Merge(answer(12, topicAnswer("t", 1, part(0, 1, 5))), MergeOptions{})
	if p := mustPart(t, v, "t", 0); p.leader != 2 || p.flags&Stale == 0 {
		t.Fatalf("stale answer after a hint: %+v", *p)
	}
}

func TestKIP951FetchHints(t *testing.T) {
	base, _ := NewView(ViewConfig{}).Merge(answer(12, topicAnswer("t", 1, part(0, 1, 5))), MergeOptions{})
	r := kmsg.NewPtrFetchResponse()
	r.Version = 16
	ft := kmsg.NewFetchResponseTopic()
	ft.TopicID = tid(1) // v13+: by id
	fp := kmsg.NewFetchResponseTopicPartition()
	fp.Partition, fp.ErrorCode = 0, kafkaerr.FencedLeaderEpoch.Int16()
	fp.CurrentLeader.LeaderID, fp.CurrentLeader.LeaderEpoch = 3, 8
	ft.Partitions = append(ft.Partitions, fp)
	r.Topics = append(r.Topics, ft)
	v, rep := base.ApplyFetch(r)
	if l, e, ok := v.Leader("t", 0); !ok || l != 3 || e != 8 || !rep.Progress {
		t.Fatalf("fetch hint by topic id: %d/%d/%v", l, e, ok)
	}
}
