package answer_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/answer"
	"github.com/kmeta-go/kmeta/image/config"
)

// A broker opening a log resolves its topic's config: the topic's own
// value first, then the broker's dynamic and static configs in Kafka's
// order (the cluster-wide log.retention.hours is not dynamic: dropped).
func ExampleTopicConfig() {
	b := image.NewBuilder(nil)
	b.PutConfigs(map[image.ConfigResource][]image.ConfigEntry{
		{Type: image.ConfigBroker, Name: ""}:      {{Name: "log.retention.hours", Value: "2"}, {Name: "min.insync.replicas", Value: "2"}},
		{Type: image.ConfigTopic, Name: "orders"}: {{Name: "cleanup.policy", Value: "compact"}},
	})
	img := b.Image(image.Provenance{})
	broker, err := config.NewBroker(map[string]string{
		"process.roles": "broker", "node.id": "1", "controller.listener.names": "CONTROLLER",
		"controller.quorum.bootstrap.servers": "localhost:9093", "listeners": "PLAINTEXT://:9092",
	})
	if err != nil {
		panic(err)
	}
	vals, err := answer.TopicConfig(img, broker, "orders")
	if err != nil {
		panic(err)
	}
	for _, v := range vals {
		switch v.Name {
		case "cleanup.policy", "min.insync.replicas", "retention.ms":
			fmt.Println(v.Name, v.Value, v.Source)
		}
	}
	// Output:
	// cleanup.policy compact 1
	// min.insync.replicas 2 3
	// retention.ms 604800000 5
}
