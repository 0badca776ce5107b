package answer

import (
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/config"
)

// TopicConfig resolves topic's effective configuration on broker as a Kafka
// 4.4 broker's LogConfig sees it (package config: DynamicBrokerConfig, then
// LogConfig.fromProps). Each topic config comes from, in Kafka's order:
//
//  1. the topic's own dynamic config in img (TOPIC_CONFIG);
//  2. else the broker's effective value of its broker synonym
//     (ServerTopicConfigSynonyms, hours and minutes converted to ms), which
//     is the per-broker dynamic config (broker resource "<id>",
//     DYNAMIC_BROKER_CONFIG), else the cluster-wide dynamic default (broker
//     resource "", DYNAMIC_DEFAULT_BROKER_CONFIG), else broker's static
//     config (STATIC_BROKER_CONFIG), else Kafka's broker default; dynamic
//     keys that cannot be dynamic (log.retention.hours, log.roll.hours) are
//     dropped, as DynamicBrokerConfig drops them;
//  3. else Kafka's topic default (DEFAULT_CONFIG).
//
// broker is the broker's static config (config.NewBroker); the image's
// dynamic broker configs are applied to it here. A broker resolving many
// topics applies them once (broker.Apply(img)) and calls Topic itself. The
// result is sorted by name; a topic config Kafka rejects is a
// *config.TopicError.
func TopicConfig(img *image.Image, broker *config.Broker, topic string) ([]config.Value, error) {
	return broker.Apply(img).Topic(img, topic)
}
