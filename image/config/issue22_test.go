package config

import (
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
)

// TestIssue22Vectors: the harness's fixed cases of what the old
// answer.TopicConfig got wrong are among the vectors, and kmeta now gives
// Kafka's result for each: a dynamic cluster-wide log.retention.hours is
// dropped (not dynamic), compression.*.level and log.remote.copy.lag.*
// are synonyms while the three keys Kafka 4.0 removed are not, and the
// per-broker value ranks above the cluster default.
func TestIssue22Vectors(t *testing.T) {
	want := map[string]map[string]string{
		"issue22:dynamic-log.retention.hours": {"retention.ms": "604800000"},
		"issue22:synonyms": {"compression.gzip.level": "5", "compression.lz4.level": "5", "compression.zstd.level": "5",
			"remote.copy.lag.ms": "12345", "remote.copy.lag.bytes": "67890"},
		"issue22:per-broker-above-default": {"retention.ms": "2000"},
		// log.message.format.version, log.message.timestamp.difference.max.ms and
		// log.message.downconversion.enable set: no topic config takes them.
		"issue22:removed-synonyms": {"retention.ms": "604800000"},
	}
	seen := 0
	kafkaoracle.Decode(t, "config-resolve", func(n int, v *resolveVector) {
		w, ok := want[v.Name]
		if !ok {
			return
		}
		seen++
		kafka, _ := topicWant(t, v.TopicConfigs["orders"])
		b, err := NewBroker(v.Static)
		if err != nil {
			t.Fatal(err)
		}
		img := vectorImage(t, v)
		b = b.Apply(img)
		got, err := b.Topic(img, "orders")
		if err != nil {
			t.Fatal(err)
		}
		for k, x := range w {
			if kafka[k] == nil || *kafka[k] != x {
				t.Errorf("%s: Kafka's %s = %s, the case expects %s", v.Name, k, str(kafka[k], true), x)
			}
			for _, g := range got {
				if g.Name == k && g.Value != x {
					t.Errorf("%s: %s = %s, Kafka %s", v.Name, k, g.Value, x)
				}
			}
		}
		for _, g := range got {
			if strings.Contains(g.Name, "format.version") || strings.Contains(g.Name, "downconversion") || strings.Contains(g.Name, "difference.max") {
				t.Errorf("%s: a key Kafka 4.0 removed is a topic config: %s", v.Name, g.Name)
			}
		}
	})
	if seen != len(want) {
		t.Fatalf("%d of the %d issue 22 cases are in the vectors", seen, len(want))
	}
}
