package answer

import (
	"slices"
	"strconv"

	"github.com/kmeta-go/kmeta/image"
)

// Config sources (DescribeConfigsResponse ConfigSource).
const (
	SourceTopicConfig                int8 = 1 // TOPIC_CONFIG: the topic's own dynamic config
	SourceDynamicDefaultBrokerConfig int8 = 3 // DYNAMIC_DEFAULT_BROKER_CONFIG: broker resource ""
	SourceStaticBrokerConfig         int8 = 4 // STATIC_BROKER_CONFIG: given by the caller
	SourceDefaultConfig              int8 = 5 // DEFAULT_CONFIG: given by the caller
)

// ConfigValue is one resolved config: its value and where it came from.
type ConfigValue struct {
	Name   string
	Value  string
	Source int8
	// Synonym is the config the value was taken from when that is a broker
	// config ("log.retention.hours" for "retention.ms"), else Name.
	Synonym string
}

// synonym is one broker config that supplies a topic config's value, with the
// factor its value is multiplied by (ConfigSynonym's converter).
type synonym struct {
	name   string
	factor int64
}

// topicSynonyms is ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS: for
// each topic config, the broker configs whose cluster-wide value it takes,
// in priority order.
var topicSynonyms = [...]topicSynonym{
	{"segment.bytes", [3]synonym{{"log.segment.bytes", 1}}},
	{"segment.ms", [3]synonym{{"log.roll.ms", 1}, {"log.roll.hours", 3600000}}},
	{"segment.jitter.ms", [3]synonym{{"log.roll.jitter.ms", 1}, {"log.roll.jitter.hours", 3600000}}},
	{"segment.index.bytes", [3]synonym{{"log.index.size.max.bytes", 1}}},
	{"flush.messages", [3]synonym{{"log.flush.interval.messages", 1}}},
	{"flush.ms", [3]synonym{{"log.flush.interval.ms", 1}, {"log.flush.scheduler.interval.ms", 1}}},
	{"retention.bytes", [3]synonym{{"log.retention.bytes", 1}}},
	{"retention.ms", [3]synonym{{"log.retention.ms", 1}, {"log.retention.minutes", 60000}, {"log.retention.hours", 3600000}}},
	{"max.message.bytes", [3]synonym{{"message.max.bytes", 1}}},
	{"index.interval.bytes", [3]synonym{{"log.index.interval.bytes", 1}}},
	{"delete.retention.ms", [3]synonym{{"log.cleaner.delete.retention.ms", 1}}},
	{"min.compaction.lag.ms", [3]synonym{{"log.cleaner.min.compaction.lag.ms", 1}}},
	{"max.compaction.lag.ms", [3]synonym{{"log.cleaner.max.compaction.lag.ms", 1}}},
	{"file.delete.delay.ms", [3]synonym{{"log.segment.delete.delay.ms", 1}}},
	{"min.cleanable.dirty.ratio", [3]synonym{{"log.cleaner.min.cleanable.ratio", 1}}},
	{"cleanup.policy", [3]synonym{{"log.cleanup.policy", 1}}},
	{"unclean.leader.election.enable", [3]synonym{{"unclean.leader.election.enable", 1}}},
	{"min.insync.replicas", [3]synonym{{"min.insync.replicas", 1}}},
	{"compression.type", [3]synonym{{"compression.type", 1}}},
	{"preallocate", [3]synonym{{"log.preallocate", 1}}},
	{"message.format.version", [3]synonym{{"log.message.format.version", 1}}},
	{"message.timestamp.type", [3]synonym{{"log.message.timestamp.type", 1}}},
	{"message.timestamp.difference.max.ms", [3]synonym{{"log.message.timestamp.difference.max.ms", 1}}},
	{"message.timestamp.before.max.ms", [3]synonym{{"log.message.timestamp.before.max.ms", 1}}},
	{"message.timestamp.after.max.ms", [3]synonym{{"log.message.timestamp.after.max.ms", 1}}},
	{"message.downconversion.enable", [3]synonym{{"log.message.downconversion.enable", 1}}},
	{"local.retention.ms", [3]synonym{{"log.local.retention.ms", 1}}},
	{"local.retention.bytes", [3]synonym{{"log.local.retention.bytes", 1}}},
}

// topicSynonym is one topic config and its broker synonyms (unused slots
// have no name).
type topicSynonym struct {
	topic string
	syns  [3]synonym
}

// synonymsOf is the broker synonyms of topic config name, in priority order.
func synonymsOf(name string) []synonym {
	for i := range topicSynonyms {
		if topicSynonyms[i].topic == name {
			return topicSynonyms[i].used()
		}
	}
	return nil
}

func (t *topicSynonym) used() []synonym {
	n := 0
	for n < len(t.syns) && t.syns[n].name != "" {
		n++
	}
	return t.syns[:n:n]
}

// TopicConfigSynonyms returns the broker configs that supply topic config
// name's value, in priority order (ServerTopicConfigSynonyms).
func TopicConfigSynonyms(name string) []string {
	var out []string
	for _, s := range synonymsOf(name) {
		out = append(out, s.name)
	}
	return out
}

// TopicConfig resolves the effective configuration of topic as a broker's
// LogConfig sees it: each key from the topic's dynamic config
// (TOPIC_CONFIG); else from the cluster-wide dynamic broker default (broker
// resource "") under the key's broker synonyms, in priority order, converted
// from hours or minutes to milliseconds where Kafka converts
// (DYNAMIC_DEFAULT_BROKER_CONFIG); else from defaults, which the caller
// supplies (the broker's static config and Kafka's defaults, with source
// STATIC_BROKER_CONFIG or DEFAULT_CONFIG as the caller labels them). Keys
// that appear in none are absent. The result is sorted by name.
//
// Per-broker dynamic configs (broker resource "<id>") are the embedder's to
// layer: pass them in defaults if they apply.
func TopicConfig(img *image.Image, topic string, defaults []ConfigValue) []ConfigValue {
	cfgs := img.Configs()
	names := map[string]struct{}{}
	for _, d := range defaults {
		names[d.Name] = struct{}{}
	}
	for _, e := range cfgs.Entries(image.ConfigResource{Type: image.ConfigTopic, Name: topic}) {
		names[e.Name] = struct{}{}
	}
	clusterDefault := image.ConfigResource{Type: image.ConfigBroker, Name: ""}
	for i := range topicSynonyms {
		for _, s := range topicSynonyms[i].used() {
			if _, ok := cfgs.Get(clusterDefault, s.name); ok {
				names[topicSynonyms[i].topic] = struct{}{}
			}
		}
	}
	out := make([]ConfigValue, 0, len(names))
	for n := range names {
		if v, ok := cfgs.Get(image.ConfigResource{Type: image.ConfigTopic, Name: topic}, n); ok {
			out = append(out, ConfigValue{Name: n, Value: v, Source: SourceTopicConfig, Synonym: n})
			continue
		}
		found := false
		for _, s := range synonymsOf(n) {
			if v, ok := cfgs.Get(clusterDefault, s.name); ok {
				if s.factor != 1 {
					if x, err := strconv.ParseInt(v, 10, 64); err == nil {
						v = strconv.FormatInt(x*s.factor, 10)
					}
				}
				out = append(out, ConfigValue{Name: n, Value: v, Source: SourceDynamicDefaultBrokerConfig, Synonym: s.name})
				found = true
				break
			}
		}
		if found {
			continue
		}
		for _, d := range defaults {
			if d.Name == n {
				if d.Synonym == "" {
					d.Synonym = n
				}
				out = append(out, d)
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b ConfigValue) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return out
}
