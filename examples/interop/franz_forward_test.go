package interop

import (
	"testing"
	"time"

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
	const topic = "fwd-franz"
	f := newFranzThrough(t, p, topic, kgo.ProducerLinger(5*time.Millisecond))
	if _, err := f.adm.CreateTopic(f.ctx, 3, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	msgs := workload(fwdMessages, fwdKeys)
	steps := chaosSteps(t, u, topic, func(total int) error {
		_, err := f.adm.UpdatePartitions(f.ctx, total, topic)
		return err
	})
	produceWithChaos(t, msgs, steps, f.produce)
	start := time.Now()
	got := f.consumeAll(topic, len(msgs))
	t.Logf("consumed %d in %v", len(got), time.Since(start).Round(time.Millisecond))
	checkConsumed(t, "franz-go", msgs, got)
	f.cl.Close()
	// kfake answers NOT_LEADER_OR_FOLLOWER with KIP-951 CurrentLeader and
	// NodeEndpoints: those answers must have been rewritten.
	if rewritten := p.stop(u); rewritten == 0 {
		t.Error("no forwarded answer was rewritten: the KIP-951 NodeEndpoints path did not run")
	}
	if len(f.rec.dials) == 0 {
		t.Fatal("the client dialled nothing")
	}
	t.Logf("franz-go dialled %d times, all proxy ports; proxy brokers %v", len(f.rec.dials), p.brokers)
}
