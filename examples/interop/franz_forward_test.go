package interop

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	fwdMessages = 1400
	fwdKeys     = 20
)

// TestForwardFranz produces keyed messages with franz-go (acks=all,
// idempotent) through examples/proxy -upstream to a 3-node kfake cluster
// while the cluster moves leaders, loses and regains a node and grows the
// topic, then consumes them through the proxy: no loss, no duplicate,
// per-key order within each partition, every dial to a proxy port, every
// connection the cluster accepted from the proxy, and no upstream address
// in any answer the proxy sent (-verify).
func TestForwardFranz(t *testing.T) {
	u := startUpstream(t, 3)
	p := startForwarder(t, u)
	rec := &dialRecorder{t: t, p: p}
	const topic = "fwd-franz"
	adm, err := kgo.NewClient(kgo.SeedBrokers(p.bootstrap), kgo.Dialer(rec.DialContext))
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	ka := kadm.NewClient(adm)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	if _, err := ka.CreateTopic(ctx, 3, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	t.Logf("topic created")
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(p.bootstrap),
		kgo.Dialer(rec.DialContext),
		kgo.DefaultProduceTopic(topic),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.MetadataMinAge(50*time.Millisecond),
		kgo.RecordRetries(1000),
		kgo.ProducerLinger(5*time.Millisecond),
	)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	msgs := workload(fwdMessages, fwdKeys)
	steps := chaosSteps(t, u, topic, func(total int) error {
		_, err := ka.UpdatePartitions(ctx, total, topic)
		return err
	})
	produceWithChaos(t, msgs, steps, func(batch []msg) error {
		rs := make([]*kgo.Record, len(batch))
		for i, m := range batch {
			rs[i] = &kgo.Record{Key: []byte(m.Key), Value: []byte(m.value())}
		}
		return cl.ProduceSync(ctx, rs...).FirstErr()
	})

	cons, err := kgo.NewClient(
		kgo.SeedBrokers(p.bootstrap),
		kgo.Dialer(rec.DialContext),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.MetadataMinAge(50*time.Millisecond),
	)
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	var got []consumed
	deadline := time.Now().Add(time.Minute)
	for len(got) < len(msgs) && time.Now().Before(deadline) {
		pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
		fs := cons.PollFetches(pctx)
		pcancel()
		fs.EachRecord(func(r *kgo.Record) {
			got = append(got, consumed{Partition: r.Partition, Offset: r.Offset, Key: string(r.Key), Value: string(r.Value)})
		})
		for _, e := range fs.Errors() {
			if e.Err != context.DeadlineExceeded {
				t.Logf("fetch error (retried): %s/%d: %v", e.Topic, e.Partition, e.Err)
			}
		}
	}
	t.Logf("consumed %d in %v", len(got), time.Since(deadline.Add(-time.Minute)).Round(time.Millisecond))
	checkConsumed(t, "franz-go", msgs, got)
	cons.Close()
	cl.Close()
	adm.Close()
	stopStart := time.Now()
	// kfake answers NOT_LEADER_OR_FOLLOWER with KIP-951 CurrentLeader and
	// NodeEndpoints: those answers must have been rewritten.
	if rewritten := p.stop(u); rewritten == 0 {
		t.Error("no forwarded answer was rewritten: the KIP-951 NodeEndpoints path did not run")
	}
	t.Logf("proxy stopped in %v", time.Since(stopStart).Round(time.Millisecond))
	if len(rec.dials) == 0 {
		t.Fatal("the client dialled nothing")
	}
	t.Logf("franz-go dialled %d times, all proxy ports; proxy brokers %v", len(rec.dials), p.brokers)
}
