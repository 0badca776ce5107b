package answer

import (
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

func configImage(t *testing.T) *image.Image {
	dl := delta.New(image.Empty())
	must := func(r record.Record) {
		t.Helper()
		if err := dl.Replay(r); err != nil {
			t.Fatal(err)
		}
	}
	cfg := func(rt int8, res, name, value string) {
		r := record.NewConfigRecord()
		r.ResourceType, r.ResourceName, r.Name, r.Value = rt, res, name, &value
		must(r)
	}
	cfg(int8(image.ConfigTopic), "orders", "retention.ms", "1000")
	cfg(int8(image.ConfigBroker), "", "log.retention.hours", "2")
	cfg(int8(image.ConfigBroker), "", "log.segment.bytes", "1024")
	cfg(int8(image.ConfigBroker), "", "log.roll.hours", "3")
	cfg(int8(image.ConfigBroker), "", "log.roll.ms", "500")
	cfg(int8(image.ConfigBroker), "7", "log.cleanup.policy", "compact") // one broker's: not cluster-wide
	quota := func(key string, v float64, parts ...string) {
		r := record.NewClientQuotaRecord()
		for i := 0; i < len(parts); i += 2 {
			e := record.EntityData{EntityType: parts[i]}
			if parts[i+1] != "<default>" {
				n := parts[i+1]
				e.EntityName = &n
			}
			r.Entity = append(r.Entity, e)
		}
		r.Key, r.Value = key, v
		must(r)
	}
	quota("producer_byte_rate", 1, "user", "alice", "client-id", "app")
	quota("producer_byte_rate", 2, "user", "alice")
	quota("consumer_byte_rate", 3, "user", "<default>", "client-id", "<default>")
	quota("request_percentage", 4, "client-id", "app")
	quota("request_percentage", 5, "client-id", "<default>")
	quota("producer_byte_rate", 6, "user", "<default>")
	quota("connection_creation_rate", 7, "ip", "<default>")
	quota("connection_creation_rate", 8, "ip", "10.0.0.1")
	img, err := dl.Apply(image.EmptyProvenance)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestTopicConfig: topic config, then the cluster default under the broker
// synonyms in ServerTopicConfigSynonyms order (converted from hours), then
// the caller's defaults.
func TestTopicConfig(t *testing.T) {
	img := configImage(t)
	got := TopicConfig(img, "orders", []ConfigValue{{Name: "cleanup.policy", Value: "delete", Source: SourceDefaultConfig}, {Name: "retention.ms", Value: "604800000", Source: SourceDefaultConfig}})
	want := []ConfigValue{
		{"cleanup.policy", "delete", SourceDefaultConfig, "cleanup.policy"},
		{"retention.ms", "1000", SourceTopicConfig, "retention.ms"},
		{"segment.bytes", "1024", SourceDynamicDefaultBrokerConfig, "log.segment.bytes"},
		{"segment.ms", "500", SourceDynamicDefaultBrokerConfig, "log.roll.ms"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	other := TopicConfig(img, "payments", nil)
	for _, c := range other {
		if c.Name == "retention.ms" && (c.Value != "7200000" || c.Synonym != "log.retention.hours") {
			t.Errorf("retention.ms from log.retention.hours=2: %+v", c)
		}
	}
}

// TestClientQuota: ClientQuotaManager's precedence, first entity with the key
// wins.
func TestClientQuota(t *testing.T) {
	img := configImage(t)
	rows := []struct {
		user, client, key string
		want              float64
		ok                bool
	}{
		{"alice", "app", "producer_byte_rate", 1, true},        // user=U, client-id=C
		{"alice", "other", "producer_byte_rate", 2, true},      // user=U
		{"bob", "app", "producer_byte_rate", 6, true},          // user=<default>
		{"bob", "app", "consumer_byte_rate", 3, true},          // user=<default>, client-id=<default>
		{"bob", "app", "request_percentage", 4, true},          // client-id=C
		{"bob", "other", "request_percentage", 5, true},        // client-id=<default>
		{"bob", "other", "controller_mutation_rate", 0, false}, // none
	}
	for _, r := range rows {
		got, ok := ClientQuota(img, r.user, r.client, r.key)
		if ok != r.ok || got.Value != r.want {
			t.Errorf("%s/%s %s: got %+v %t, want %v", r.user, r.client, r.key, got, ok, r.want)
		}
	}
	if v, _ := IPQuota(img, "10.0.0.1", "connection_creation_rate"); v.Value != 8 {
		t.Errorf("ip: %+v", v)
	}
	if v, _ := IPQuota(img, "10.0.0.2", "connection_creation_rate"); v.Value != 7 {
		t.Errorf("ip default: %+v", v)
	}
}
