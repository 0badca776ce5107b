package config

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
)

// FuzzDescribeConfigs: any DescribeConfigs request body, decoded at any
// version, is answered without a panic over an image with topic, broker,
// group and client-metrics configs; the answer has one result per resource
// and encodes.
func FuzzDescribeConfigs(f *testing.F) {
	b, err := NewBroker(baseStatic())
	if err != nil {
		f.Fatal(err)
	}
	ib := image.NewBuilder(nil)
	ib.PutConfigs(map[image.ConfigResource][]image.ConfigEntry{
		{Type: image.ConfigBroker, Name: ""}:         {{Name: "log.retention.ms", Value: "1000"}, {Name: "x.custom", Value: "1"}},
		{Type: image.ConfigBroker, Name: "1"}:        {{Name: "listener.name.plaintext.ssl.keystore.password", Value: "secret"}},
		{Type: image.ConfigTopic, Name: "orders"}:    {{Name: "cleanup.policy", Value: "compact"}, {Name: "x.unknown", Value: "1"}},
		{Type: image.ConfigGroup, Name: "g"}:         {{Name: "consumer.session.timeout.ms", Value: "50000"}},
		{Type: image.ConfigClientMetrics, Name: "m"}: {{Name: "interval.ms", Value: "1000"}},
	})
	putTopics(f, ib, []string{"orders"})
	img := ib.Image(image.Provenance{})
	b = b.Apply(img)
	for v := int16(1); v <= 4; v++ {
		req := kmsg.NewPtrDescribeConfigsRequest()
		req.Version, req.IncludeSynonyms = v, true
		for _, r := range []struct {
			t    kmsg.ConfigResourceType
			name string
		}{{2, "orders"}, {2, "bad/name"}, {4, ""}, {4, "1"}, {4, "x"}, {8, "1"}, {16, "m"}, {32, "g"}, {32, ""}, {99, "z"}} {
			x := kmsg.NewDescribeConfigsRequestResource()
			x.ResourceType, x.ResourceName = r.t, r.name
			req.Resources = append(req.Resources, x)
		}
		f.Add(v, req.AppendTo(nil))
	}
	f.Fuzz(func(t *testing.T, version int16, body []byte) {
		req := kmsg.NewPtrDescribeConfigsRequest()
		req.Version = version
		if req.ReadFrom(body) != nil {
			return
		}
		resp := b.DescribeConfigs(img, req, nil, authzCtx)
		if len(resp.Resources) != len(req.Resources) {
			t.Fatalf("%d results for %d resources", len(resp.Resources), len(req.Resources))
		}
		_ = resp.AppendTo(nil)
	})
}
