package broker_test

import (
	"maps"
	"testing"

	"github.com/kmeta-go/kmeta/broker"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
)

type featuresVector struct {
	Kind             string              `json:"kind"`
	Unstable         bool                `json:"unstable"`
	Supported        map[string][2]int16 `json:"supported"`
	DefaultFinalized map[string]int16    `json:"defaultFinalized"`
	Finalized        map[string]int16    `json:"finalized"`
	Incompatible     any                 `json:"incompatible"`
}

func ranges(m map[string][2]int16) []image.VersionRange {
	var out []image.VersionRange
	for name, r := range m {
		out = append(out, image.VersionRange{Name: name, Min: r[0], Max: r[1]})
	}
	return out
}

// TestKafkaBrokerFeatures: BrokerFeatures.defaultSupportedFeatures and
// defaultFinalizedFeatures with and without unstable versions, and
// incompatibleFeatures (hasIncompatibleFeatures) of seeded finalized maps
// (unknown features, levels out of range, negative levels) against the
// default and seeded supported ranges, equal Kafka 4.4's (broker-features
// vectors).
func TestKafkaBrokerFeatures(t *testing.T) {
	checked := 0
	kafkaoracle.Decode(t, "broker-features", func(n int, v *featuresVector) {
		checked++
		switch v.Kind {
		case "default":
			got := broker.DefaultSupportedFeatures(v.Unstable)
			want := ranges(v.Supported)
			if len(got) != len(want) {
				t.Fatalf("line %d: supported %v, Kafka %v", n, got, v.Supported)
			}
			for _, r := range got {
				if w, ok := v.Supported[r.Name]; !ok || w != [2]int16{r.Min, r.Max} {
					t.Errorf("line %d: supported %v, Kafka %v", n, r, w)
				}
			}
			if fin := broker.DefaultFinalizedFeatures(got); !maps.Equal(fin, v.DefaultFinalized) {
				t.Errorf("line %d: default finalized %v, Kafka %v", n, fin, v.DefaultFinalized)
			}
		case "incompatible":
			supported := broker.DefaultSupportedFeatures(v.Unstable)
			if v.Supported != nil {
				supported = ranges(v.Supported)
			}
			got := broker.IncompatibleFeatures(supported, v.Finalized)
			switch w := v.Incompatible.(type) {
			case bool:
				if (len(got) > 0) != w {
					t.Errorf("line %d: incompatible %v, Kafka hasIncompatibleFeatures %v", n, got, w)
				}
			case map[string]any:
				want := map[string]int16{}
				for k, x := range w {
					want[k] = int16(x.(float64))
				}
				if !maps.Equal(got, want) {
					t.Errorf("line %d: incompatible %v, Kafka %v", n, got, want)
				}
			}
		}
	})
	if checked == 0 {
		t.Fatal("no vector")
	}
}

type autoTopicVector struct {
	Config map[string]string `json:"config"`
	Error  *string           `json:"error"`
	Topics map[string]struct {
		NumPartitions     int32             `json:"numPartitions"`
		ReplicationFactor int16             `json:"replicationFactor"`
		Configs           map[string]string `json:"configs"`
	} `json:"topics"`
}

// TestKafkaAutoCreatedTopics: DefaultAutoTopicCreationManager.creatableTopic
// for the coordinator topics and ordinary ones, over seeded broker
// configurations (defaults, overrides, num.partitions and
// default.replication.factor set or not, invalid values Kafka refuses),
// equals Kafka 4.4's (broker-autotopics vectors).
func TestKafkaAutoCreatedTopics(t *testing.T) {
	var ok, refused int
	kafkaoracle.Decode(t, "broker-autotopics", func(n int, v *autoTopicVector) {
		c, err := broker.ParseAutoTopicConfig(v.Config)
		if v.Error != nil {
			refused++
			if err == nil {
				t.Errorf("line %d: %v accepted; Kafka: %s", n, v.Config, *v.Error)
			}
			return
		}
		if err != nil {
			t.Errorf("line %d: %v: %v; Kafka accepts it", n, v.Config, err)
			return
		}
		for name, want := range v.Topics {
			ok++
			got := c.CreatableTopic(name)
			cfg := map[string]string{}
			for i, e := range got.Configs {
				cfg[e.Name] = e.Value
				if i > 0 && got.Configs[i-1].Name >= e.Name {
					t.Errorf("line %d: %s: configs not sorted: %v", n, name, got.Configs)
				}
			}
			if got.Name != name || got.NumPartitions != want.NumPartitions || got.ReplicationFactor != want.ReplicationFactor || !maps.Equal(cfg, want.Configs) {
				t.Errorf("line %d: %v: %s: %+v, Kafka %+v", n, v.Config, name, got, want)
			}
		}
	})
	if ok == 0 || refused == 0 {
		t.Fatalf("%d topics, %d refused configurations", ok, refused)
	}
}
