package config_test

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/config"
)

func authzContext() authz.Context { return authz.Context{Principal: "User:admin"} }

// exampleImage is an image with a cluster-wide dynamic default, broker 1's
// own config and topic "orders" with one override.
func exampleImage() *image.Image {
	b := image.NewBuilder(nil)
	b.PutConfigs(map[image.ConfigResource][]image.ConfigEntry{
		{Type: image.ConfigBroker, Name: ""}: {
			{Name: "log.retention.hours", Value: "2"}, // not dynamic: Kafka drops it
			{Name: "log.retention.ms", Value: "3600000"},
		},
		{Type: image.ConfigBroker, Name: "1"}:     {{Name: "log.retention.ms", Value: "7200000"}},
		{Type: image.ConfigTopic, Name: "orders"}: {{Name: "cleanup.policy", Value: "compact"}},
	})
	t := image.NewTopicBuilder("orders", [16]byte{1})
	if err := b.PutTopics(nil, []image.Topic{t.Topic()}); err != nil {
		panic(err)
	}
	return b.Image(image.Provenance{})
}

// A broker resolves the config of a log it opens: its static config, the
// image's dynamic broker configs in Kafka's order (the per-broker value
// above the cluster default) and the topic's own.
func ExampleBroker_Topic() {
	broker, err := config.NewBroker(map[string]string{
		"process.roles": "broker", "node.id": "1", "controller.listener.names": "CONTROLLER",
		"controller.quorum.bootstrap.servers": "localhost:9093", "listeners": "PLAINTEXT://:9092",
		"compression.type": "zstd",
	})
	if err != nil {
		panic(err)
	}
	img := exampleImage()
	broker = broker.Apply(img)
	vals, err := broker.Topic(img, "orders")
	if err != nil {
		panic(err)
	}
	for _, v := range vals {
		switch v.Name {
		case "cleanup.policy", "compression.type", "retention.ms", "segment.bytes":
			fmt.Printf("%s=%s source=%d synonym=%s\n", v.Name, v.Value, v.Source, v.Synonym)
		}
	}
	for _, e := range broker.Ignored() {
		fmt.Println(e)
	}
	// Output:
	// cleanup.policy=compact source=1 synonym=cleanup.policy
	// compression.type=zstd source=4 synonym=compression.type
	// retention.ms=7200000 source=2 synonym=log.retention.ms
	// segment.bytes=1073741824 source=5 synonym=log.segment.bytes
	// dynamic default cluster config log.retention.hours ignored: not a dynamic config
}

// DescribeConfigs answers as ConfigHelper does; here one topic config with
// its synonyms, the topic's own value first.
func ExampleBroker_DescribeConfigs() {
	broker, _ := config.NewBroker(map[string]string{
		"process.roles": "broker", "node.id": "1", "controller.listener.names": "CONTROLLER",
		"controller.quorum.bootstrap.servers": "localhost:9093", "listeners": "PLAINTEXT://:9092",
	})
	img := exampleImage()
	broker = broker.Apply(img)
	req := kmsg.NewPtrDescribeConfigsRequest()
	req.Version, req.IncludeSynonyms = 4, true
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName, r.ConfigNames = kmsg.ConfigResourceTypeTopic, "orders", []string{"retention.ms"}
	req.Resources = append(req.Resources, r)
	resp := broker.DescribeConfigs(img, req, nil, authzContext())
	for _, c := range resp.Resources[0].Configs {
		fmt.Println(c.Name, *c.Value, c.Source)
		for _, s := range c.ConfigSynonyms {
			fmt.Println(" ", s.Name, *s.Value, s.Source)
		}
	}
	// Output:
	// retention.ms 7200000 DYNAMIC_BROKER_CONFIG
	//   log.retention.ms 7200000 DYNAMIC_BROKER_CONFIG
	//   log.retention.ms 3600000 DYNAMIC_DEFAULT_BROKER_CONFIG
	//   log.retention.hours 168 DEFAULT_CONFIG
}

// Lookup gives Kafka's definition of a config.
func ExampleLookup() {
	d, _ := config.Lookup(config.BrokerSet, "log.retention.hours")
	fmt.Println(d.Type, d.Default, d.Mode)
	d, _ = config.Lookup(config.TopicSet, "retention.ms")
	fmt.Println(d.Synonyms)
	v, err := d.Parse(" 0100 ")
	fmt.Println(v, err)
	// Output:
	// INT 168 read-only
	// [{log.retention.ms 1} {log.retention.minutes 60000} {log.retention.hours 3600000}]
	// 100 <nil>
}

// Parse checks a value as Kafka's ConfigDef does, naming what is wrong.
func ExampleParse() {
	fmt.Println(config.Parse(config.TopicSet, "cleanup.policy", "compact, delete"))
	fmt.Println(config.Parse(config.TopicSet, "min.insync.replicas", "0"))
	fmt.Println(config.Parse(config.TopicSet, "retention.hours", "1"))
	// Output:
	// compact,delete <nil>
	//  Invalid value 0 for configuration min.insync.replicas: Value must be at least 1
	//  config: topic has no config retention.hours
}
