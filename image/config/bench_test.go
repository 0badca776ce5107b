package config

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/benchtest"
)

// benchBroker is broker 1 with a static config and dynamic broker configs,
// over an image holding topic "orders" with three overrides.
func benchBroker(b *testing.B) (*Broker, *image.Image) {
	b.Helper()
	static := map[string]string{
		"process.roles": "broker", "node.id": "1", "controller.listener.names": "CONTROLLER",
		"controller.quorum.bootstrap.servers": "localhost:9093", "listeners": "PLAINTEXT://:9092",
		"log.retention.hours": "72", "compression.type": "zstd",
	}
	br, err := NewBroker(static)
	if err != nil {
		b.Fatal(err)
	}
	ib := image.NewBuilder(nil)
	ib.PutConfigs(map[image.ConfigResource][]image.ConfigEntry{
		{Type: image.ConfigBroker, Name: ""}:  {{Name: "log.retention.ms", Value: "3600000"}, {Name: "min.insync.replicas", Value: "2"}},
		{Type: image.ConfigBroker, Name: "1"}: {{Name: "log.segment.bytes", Value: "2097152"}},
		{Type: image.ConfigTopic, Name: "orders"}: {
			{Name: "cleanup.policy", Value: "compact"}, {Name: "max.message.bytes", Value: "2000000"}, {Name: "retention.ms", Value: "1000"},
		},
	})
	putTopics(b, ib, []string{"orders"})
	img := ib.Image(image.Provenance{})
	return br.Apply(img), img
}

// BenchmarkTopicConfig: one topic's effective config on a broker whose
// dynamic configs are applied (LogConfig.fromProps; target <= 2 µs).
func BenchmarkTopicConfig(b *testing.B) {
	br, img := benchBroker(b)
	b.ReportAllocs()
	defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
	for b.Loop() {
		if _, err := br.Topic(img, "orders"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendTopicConfig: BenchmarkTopicConfig into a reused buffer.
func BenchmarkAppendTopicConfig(b *testing.B) {
	br, img := benchBroker(b)
	var buf []Value
	b.ReportAllocs()
	defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
	for b.Loop() {
		var err error
		if buf, err = br.AppendTopic(buf[:0], img, "orders"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDescribeConfigsTopic: DescribeConfigs of one topic with
// synonyms (ConfigHelper; target <= 10 µs).
func BenchmarkDescribeConfigsTopic(b *testing.B) {
	br, img := benchBroker(b)
	req := kmsg.NewPtrDescribeConfigsRequest()
	req.Version = 4
	req.IncludeSynonyms = true
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, "orders"
	req.Resources = append(req.Resources, r)
	b.ReportAllocs()
	defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
	for b.Loop() {
		resp := br.DescribeConfigs(img, req, nil, authzCtx)
		if len(resp.Resources[0].Configs) == 0 {
			b.Fatal("no configs")
		}
	}
}
