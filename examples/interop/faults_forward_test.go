package interop

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// franzThrough is a franz-go producer and admin client through the proxy
// (acks=all, idempotent), with every dial checked.
type franzThrough struct {
	t    *testing.T
	p    *fwdProxy
	rec  *dialRecorder
	cl   *kgo.Client
	adm  *kadm.Client
	ctx  context.Context
	stop context.CancelFunc
}

func newFranzThrough(t *testing.T, p *fwdProxy, topic string, opts ...kgo.Opt) *franzThrough {
	rec := &dialRecorder{t: t, p: p}
	base := []kgo.Opt{kgo.SeedBrokers(p.bootstrap), kgo.Dialer(rec.DialContext), kgo.DefaultProduceTopic(topic),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.MetadataMinAge(50 * time.Millisecond), kgo.RecordRetries(1000),
		kgo.RequestTimeoutOverhead(5 * time.Second)}
	cl, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	f := &franzThrough{t: t, p: p, rec: rec, cl: cl, adm: kadm.NewClient(cl), ctx: ctx, stop: cancel}
	t.Cleanup(func() { cl.Close(); cancel() })
	return f
}

func (f *franzThrough) produce(batch []msg) error {
	rs := make([]*kgo.Record, len(batch))
	for i, m := range batch {
		rs[i] = &kgo.Record{Key: []byte(m.Key), Value: []byte(m.value())}
	}
	return f.cl.ProduceSync(f.ctx, rs...).FirstErr()
}

// consumeAll reads topic from the start through the proxy until want
// records or a minute.
func (f *franzThrough) consumeAll(topic string, want int) []consumed {
	cons, err := kgo.NewClient(kgo.SeedBrokers(f.p.bootstrap), kgo.Dialer(f.rec.DialContext), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.MetadataMinAge(50*time.Millisecond))
	if err != nil {
		f.t.Fatal(err)
	}
	defer cons.Close()
	var got []consumed
	deadline := time.Now().Add(time.Minute)
	for len(got) < want && time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(f.ctx, 3*time.Second)
		fs := cons.PollFetches(ctx)
		cancel()
		fs.EachRecord(func(r *kgo.Record) {
			got = append(got, consumed{Partition: r.Partition, Offset: r.Offset, Key: string(r.Key), Value: string(r.Value)})
		})
		for _, e := range fs.Errors() {
			if !errors.Is(e.Err, context.DeadlineExceeded) {
				f.t.Logf("fetch error (retried): %s/%d: %v", e.Topic, e.Partition, e.Err)
			}
		}
	}
	return got
}

// notLeaderNoHint answers the next n Produce requests with
// NOT_LEADER_OR_FOLLOWER for every partition and no KIP-951 hint (leader
// -1, epoch -1, no NodeEndpoints), as a broker that has not yet learned the
// new leader answers.
func notLeaderNoHint(u *upstream, n int32) *atomic.Int32 {
	var seen atomic.Int32
	u.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if seen.Add(1) > n {
			return nil, nil, false
		}
		u.KeepControl()
		pr := req.(*kmsg.ProduceRequest)
		resp := pr.ResponseKind().(*kmsg.ProduceResponse)
		resp.Version = pr.Version
		for _, rt := range pr.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition, sp.ErrorCode = rp.Partition, 6
				sp.CurrentLeader.LeaderID, sp.CurrentLeader.LeaderEpoch = -1, -1
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	return &seen
}

// TestForwardFaults produces and consumes with franz-go through the proxy
// while upstream fails in the ways the proxy must survive: NOT_LEADER
// without a KIP-951 hint (the proxy's view is marked for refresh and the
// client retries), a connection reset in the middle of a request, a broker
// slower than the proxy's upstream timeout (the proxy closes the client's
// connection; the idempotent retry is not written twice), and a topic
// deleted and recreated under the same name with a new id (the view takes
// the new incarnation, never the old one's partitions). No loss, no
// duplicate, no upstream address to a client, in every case.
func TestForwardFaults(t *testing.T) {
	const n = 300
	var noHint *atomic.Int32
	cases := []struct {
		name  string
		extra []string
		fault func(u *upstream, f *franzThrough, topic string) error
	}{
		{"not leader without hints", nil, func(u *upstream, _ *franzThrough, _ string) error {
			noHint = notLeaderNoHint(u, 3)
			return nil
		}},
		{"connection reset mid-request", nil, func(u *upstream, _ *franzThrough, _ string) error {
			u.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
				return nil, errors.New("reset by the test"), true
			})
			return nil
		}},
		{"broker slower than the upstream timeout", []string{"-upstream-timeout", "1s"}, func(u *upstream, _ *franzThrough, _ string) error {
			var once atomic.Bool
			u.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
				u.DropControl() // one request only: an unhandled control stays
				if once.CompareAndSwap(false, true) {
					u.SleepControl(func() { time.Sleep(1500 * time.Millisecond) })
				}
				return nil, nil, false // then answered, after the proxy gave up
			})
			return nil
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := startUpstream(t, 3)
			p := startForwarder(t, u, tc.extra...)
			const topic = "faults"
			f := newFranzThrough(t, p, topic)
			if _, err := f.adm.CreateTopic(f.ctx, 3, 1, nil, topic); err != nil {
				t.Fatal(err)
			}
			msgs := workload(n, 10)
			steps := []chaosStep{{tc.name, func() error { return tc.fault(u, f, topic) }}}
			produceWithChaos(t, msgs, steps, f.produce)
			checkConsumed(t, tc.name, msgs, f.consumeAll(topic, len(msgs)))
			f.cl.Close()
			p.stop(u)
			if noHint != nil && noHint.Load() < 3 {
				t.Errorf("only %d Produce requests were answered NOT_LEADER without a hint", noHint.Load())
			}
			noHint = nil
		})
	}

	t.Run("topic recreated with a new id", testForwardRecreatedTopic)
}

// testForwardRecreatedTopic: a topic deleted and created again under the
// same name with a new id is answered as the new incarnation (its id and
// its partitions), and a new producer writes to it through the proxy.
func testForwardRecreatedTopic(t *testing.T) {
	u := startUpstream(t, 3)
	p := startForwarder(t, u)
	const topic = "recreated"
	f := newFranzThrough(t, p, topic)
	created, err := f.adm.CreateTopic(f.ctx, 3, 1, nil, topic)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.produce(workload(100, 10)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.adm.DeleteTopic(f.ctx, topic); err != nil {
		t.Fatal(err)
	}
	again, err := f.adm.CreateTopic(f.ctx, 2, 1, nil, topic)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID == created.ID {
		t.Fatal("kfake reused the topic id")
	}
	// The proxy's answer names the new incarnation (its id and its 2
	// partitions), not the old one's 3.
	var md kadm.Metadata
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if md, err = f.adm.Metadata(f.ctx, topic); err != nil {
			t.Fatal(err)
		}
		if md.Topics[topic].ID == again.ID {
			break
		}
	}
	td := md.Topics[topic]
	if td.ID != again.ID || len(td.Partitions) != 2 {
		t.Fatalf("through the proxy the topic has id %v and %d partitions, want the new id %v and 2", td.ID, len(td.Partitions), again.ID)
	}
	second := workload(200, 10)
	for i := range second {
		second[i].Key += "-new"
	}
	// A producer that knew the old incarnation would get
	// UNKNOWN_TOPIC_ID from upstream for its cached id (Produce v13);
	// a new one learns the new id from the proxy.
	f.cl.Close()
	f = newFranzThrough(t, p, topic)
	if err := f.produce(second); err != nil {
		t.Fatal(err)
	}
	checkConsumed(t, "after recreation", second, f.consumeAll(topic, len(second)))
	f.cl.Close()
	p.stop(u)
}

var _ = kfake.NumBrokers
