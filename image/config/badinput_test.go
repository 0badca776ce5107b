package config

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

func baseStatic() map[string]string {
	return map[string]string{
		"process.roles": "broker", "node.id": "1", "controller.listener.names": "CONTROLLER",
		"controller.quorum.bootstrap.servers": "localhost:9093", "listeners": "PLAINTEXT://:9092",
	}
}

// TestNewBrokerBadStatic: a static config of the wrong type, outside its
// range or missing a required config is a *ValueError naming the config
// (KafkaConfig's ConfigDef.parse); without node.id it is ErrNoNodeID.
func TestNewBrokerBadStatic(t *testing.T) {
	for _, c := range []struct{ key, value, name string }{
		{"num.io.threads", "eight", "num.io.threads"},
		{"num.io.threads", "0", "num.io.threads"},
		{"log.cleaner.min.cleanable.ratio", "1.5", "log.cleaner.min.cleanable.ratio"},
		{"auto.create.topics.enable", "yes", "auto.create.topics.enable"},
		{"process.roles", "", "process.roles"},
		{"principal.builder.class", "not a class", "principal.builder.class"},
	} {
		s := baseStatic()
		s[c.key] = c.value
		_, err := NewBroker(s)
		var ve *ValueError
		if !errors.As(err, &ve) || ve.Name != c.name {
			t.Errorf("%s=%q: err %v, want a ValueError for %s", c.key, c.value, err, c.name)
		}
	}
	s := baseStatic()
	delete(s, "controller.listener.names")
	if _, err := NewBroker(s); err == nil {
		t.Error("a missing required config is accepted")
	}
	s = baseStatic()
	delete(s, "node.id")
	if _, err := NewBroker(s); err == nil {
		t.Error("no node.id is accepted")
	}
	s["x.custom.key"] = "anything" // unknown keys are custom configs, as in Kafka
	s["node.id"] = "1"
	if _, err := NewBroker(s); err != nil {
		t.Errorf("a custom static key: %v", err)
	}
}

// TestDynamicBadInput: dynamic broker configs of the wrong type, not
// dynamic or per-broker at the cluster level are IgnoredErrors with their
// reason, and leave the effective config alone.
func TestDynamicBadInput(t *testing.T) {
	b, err := NewBroker(baseStatic())
	if err != nil {
		t.Fatal(err)
	}
	ib := image.NewBuilder(nil)
	ib.PutConfigs(map[image.ConfigResource][]image.ConfigEntry{
		{Type: image.ConfigBroker, Name: ""}: {
			{Name: "listener.name.plaintext.ssl.keystore.type", Value: "PKCS12"},
			{Name: "log.retention.hours", Value: "2"},
			{Name: "log.retention.ms", Value: "soon"},
			{Name: "ssl.keystore.type", Value: "PKCS12"},
		},
	})
	b = b.Apply(ib.Image(image.Provenance{}))
	want := map[string]string{
		"listener.name.plaintext.ssl.keystore.type": IgnoredPerBroker,
		"log.retention.hours":                       IgnoredNonDynamic,
		"log.retention.ms":                          IgnoredInvalid,
		"ssl.keystore.type":                         IgnoredSecurity,
	}
	for _, e := range b.Ignored() {
		var ie *IgnoredError
		if !errors.As(e, &ie) || want[ie.Name] != ie.Reason {
			t.Errorf("%v: want reason %q", e, want[ie.Name])
		}
		delete(want, ie.Name)
	}
	if len(want) != 0 {
		t.Errorf("not ignored: %v", want)
	}
	var ve *ValueError
	for _, e := range b.Ignored() {
		if errors.As(e, &ve) && ve.Name != "log.retention.ms" {
			t.Errorf("ValueError for %s", ve.Name)
		}
	}
	if v, _ := b.Value("log.retention.hours"); v != "168" {
		t.Errorf("log.retention.hours = %s, want the default 168", v)
	}
}

// TestTopicBadInput: a topic config of the wrong type is a TopicError
// wrapping a ValueError, and DescribeConfigs answers it as Kafka does
// (UNKNOWN_SERVER_ERROR, no message).
func TestTopicBadInput(t *testing.T) {
	b, _ := NewBroker(baseStatic())
	ib := image.NewBuilder(nil)
	ib.PutConfigs(map[image.ConfigResource][]image.ConfigEntry{
		{Type: image.ConfigTopic, Name: "orders"}: {{Name: "retention.ms", Value: "a week"}},
	})
	putTopics(t, ib, []string{"orders"})
	img := ib.Image(image.Provenance{})
	_, err := b.Topic(img, "orders")
	var te *TopicError
	var ve *ValueError
	if !errors.As(err, &te) || !errors.As(err, &ve) || ve.Name != "retention.ms" {
		t.Fatalf("err %v", err)
	}
	req := kmsg.NewPtrDescribeConfigsRequest()
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, "orders"
	req.Resources = append(req.Resources, r)
	resp := b.DescribeConfigs(img, req, nil, authzCtx)
	if got := resp.Resources[0]; got.ErrorCode != int16(kafkaerr.UnknownServerError) || got.ErrorMessage != nil {
		t.Errorf("answer %d %v", got.ErrorCode, got.ErrorMessage)
	}
}

// TestLookupUnknown: an unknown config name has no definition in any set.
func TestLookupUnknown(t *testing.T) {
	for s := BrokerSet; s <= ClientMetricsSet; s++ {
		if _, ok := Lookup(s, "no.such.config"); ok {
			t.Errorf("set %d defines no.such.config", s)
		}
	}
	var ue *UnknownConfigError
	if _, err := Parse(TopicSet, "retention.hours", "1"); !errors.As(err, &ue) || ue.Name != "retention.hours" {
		t.Errorf("Parse of an unknown topic config: %v", err)
	}
	var ve *ValueError
	if _, err := Parse(TopicSet, "retention.ms", "1h"); !errors.As(err, &ve) {
		t.Errorf("Parse of a bad retention.ms: %v", err)
	}
	if Defs(Set(42)) != nil {
		t.Error("an unknown set has definitions")
	}
}
