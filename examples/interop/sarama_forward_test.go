package interop

import (
	"testing"
	"time"

	"github.com/IBM/sarama"
)

// TestForwardSarama is TestForwardFranz with sarama: an idempotent
// SyncProducer with acks=all (WaitForAll, one request in flight per broker,
// as sarama's idempotence requires), then a partition consumer per
// partition from the oldest offset.
func TestForwardSarama(t *testing.T) {
	u := startUpstream(t, 3)
	p := startForwarder(t, u)
	rec := &dialRecorder{t: t, p: p}
	const topic = "fwd-sarama"
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_0_0_0
	cfg.ClientID = "sarama-through-kmeta"
	cfg.Net.Proxy.Enable = true
	cfg.Net.Proxy.Dialer = rec
	cfg.Producer.Idempotent = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Return.Successes = true
	cfg.Producer.Retry.Max = 100
	cfg.Producer.Retry.Backoff = 50 * time.Millisecond
	cfg.Net.MaxOpenRequests = 1
	cfg.Metadata.Retry.Backoff = 50 * time.Millisecond
	cfg.Consumer.Return.Errors = true
	client, err := sarama.NewClient([]string{p.bootstrap}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	admin, err := sarama.NewClusterAdminFromClient(client)
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 3, ReplicationFactor: 1}, false); err != nil {
		t.Fatal(err)
	}
	prod, err := sarama.NewSyncProducerFromClient(client)
	if err != nil {
		t.Fatal(err)
	}
	msgs := workload(fwdMessages, fwdKeys)
	steps := chaosSteps(t, u, topic, func(total int) error {
		return admin.CreatePartitions(topic, int32(total), nil, false)
	})
	produceWithChaos(t, msgs, steps, func(batch []msg) error {
		pms := make([]*sarama.ProducerMessage, len(batch))
		for i, m := range batch {
			pms[i] = &sarama.ProducerMessage{Topic: topic, Key: sarama.StringEncoder(m.Key), Value: sarama.StringEncoder(m.value())}
		}
		return prod.SendMessages(pms)
	})
	if err := prod.Close(); err != nil {
		t.Fatal(err)
	}

	checkConsumed(t, "sarama", msgs, saramaConsumeAll(t, client, topic, 5))
	admin.Close()
	p.stop(u)
	t.Logf("sarama dialled %d times, all proxy ports", len(rec.dials))
}

// saramaConsumeAll waits until sarama sees the topic's parts partitions,
// then reads each from its oldest offset to its high watermark with a
// partition consumer.
func saramaConsumeAll(t *testing.T, client sarama.Client, topic string, nparts int) []consumed {
	t.Helper()
	var parts []int32
	var err error
	for end := time.Now().Add(10 * time.Second); len(parts) != nparts && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if err := client.RefreshMetadata(topic); err != nil {
			t.Fatal(err)
		}
		if parts, err = client.Partitions(topic); err != nil {
			t.Fatal(err)
		}
	}
	if len(parts) != nparts {
		t.Fatalf("sarama sees %d partitions, want %d", len(parts), nparts)
	}
	cons, err := sarama.NewConsumerFromClient(client)
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	var got []consumed
	for _, part := range parts {
		hwm, err := client.GetOffset(topic, part, sarama.OffsetNewest)
		if err != nil {
			t.Fatal(err)
		}
		if hwm > 0 {
			got = append(got, saramaConsumePartition(t, cons, topic, part, hwm)...)
		}
	}
	return got
}

// saramaConsumePartition reads one partition up to hwm, for at most a
// minute.
func saramaConsumePartition(t *testing.T, cons sarama.Consumer, topic string, part int32, hwm int64) []consumed {
	t.Helper()
	pc, err := cons.ConsumePartition(topic, part, sarama.OffsetOldest)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	var got []consumed
	timeout := time.After(time.Minute)
	for {
		select {
		case m := <-pc.Messages():
			got = append(got, consumed{Partition: m.Partition, Offset: m.Offset, Key: string(m.Key), Value: string(m.Value)})
			if m.Offset+1 >= hwm {
				return got
			}
		case e := <-pc.Errors():
			t.Logf("sarama consumer error (retried): %v", e)
		case <-timeout:
			t.Errorf("partition %d: consumed %d of %d in a minute", part, len(got), hwm)
			return got
		}
	}
}
