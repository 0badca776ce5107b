package config

import "testing"

// TestBrokerTopicDefaults: numBrokerTopicDefaults counts the topic configs
// with a broker synonym (the keys of KafkaConfig.extractLogConfigMap).
func TestBrokerTopicDefaults(t *testing.T) {
	n := 0
	for _, d := range Defs(TopicSet) {
		if len(d.Synonyms) > 0 {
			n++
		}
	}
	if n != numBrokerTopicDefaults {
		t.Fatalf("%d topic configs have broker synonyms, numBrokerTopicDefaults is %d", n, numBrokerTopicDefaults)
	}
}
