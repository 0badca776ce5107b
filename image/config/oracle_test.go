package config

import (
	"encoding/json"
	"errors"
	"maps"
	"sort"
	"strconv"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
)

// resolveVector is one line of config-resolve.jsonl.gz (the harness's
// ConfigResolve generator: DynamicBrokerConfig, LogConfig.fromProps and
// ConfigHelper run by Kafka 4.4's classes).
type resolveVector struct {
	Name           string                     `json:"name"`
	Static         map[string]string          `json:"static"`
	Configs        [][4]string                `json:"configs"`
	Topics         []string                   `json:"topics"`
	DynamicDefault map[string]string          `json:"dynamicDefault"`
	DynamicBroker  map[string]string          `json:"dynamicBroker"`
	IgnoredDefault map[string]string          `json:"ignoredDefault"`
	IgnoredBroker  map[string]string          `json:"ignoredBroker"`
	Failed         bool                       `json:"failed"`
	Effective      map[string]string          `json:"effective"`
	TopicConfigs   map[string]json.RawMessage `json:"topicConfigs"`
	Denied         []string                   `json:"denied"`
	Requests       []describeVector           `json:"requests"`
}

// vectorImage is an image holding v's configs.
func vectorImage(t testing.TB, v *resolveVector) *image.Image {
	t.Helper()
	kv := map[image.ConfigResource]map[string]string{}
	for _, c := range v.Configs { // a later value of a key replaces an earlier one
		typ, err := strconv.Atoi(c[0])
		if err != nil {
			t.Fatal(err)
		}
		r := image.ConfigResource{Type: image.ConfigTypeForID(int8(typ)), Name: c[1]}
		if kv[r] == nil {
			kv[r] = map[string]string{}
		}
		kv[r][c[2]] = c[3]
	}
	changes := map[image.ConfigResource][]image.ConfigEntry{}
	for r, m := range kv {
		for k, x := range m {
			changes[r] = append(changes[r], image.ConfigEntry{Name: k, Value: x})
		}
		sort.Slice(changes[r], func(i, j int) bool { return changes[r][i].Name < changes[r][j].Name })
	}
	b := image.NewBuilder(nil)
	b.PutConfigs(changes)
	putTopics(t, b, v.Topics)
	return b.Image(image.Provenance{})
}

// TestOracleEffectiveBrokerConfig: DynamicBrokerConfig's kept dynamic
// configs, the keys it ignored and the effective config (KafkaConfig's
// originals), for every vector, equal Kafka's.
func TestOracleEffectiveBrokerConfig(t *testing.T) {
	kafkaoracle.Decode(t, "config-resolve", func(n int, v *resolveVector) {
		t.Run(kafkaoracle.Name("config-resolve", n)+"/"+v.Name, func(t *testing.T) {
			b, err := NewBroker(v.Static)
			if err != nil {
				t.Fatalf("NewBroker: %v", err)
			}
			b = b.Apply(vectorImage(t, v))
			eq(t, "dynamic default", b.DynamicDefault(), v.DynamicDefault)
			eq(t, "dynamic broker", b.DynamicBroker(), v.DynamicBroker)
			eq(t, "effective", b.Effective(), v.Effective)
			var gotDef, gotBroker []string
			for _, e := range b.Ignored() {
				var ie *IgnoredError
				if !errors.As(e, &ie) {
					t.Fatalf("ignored %T %v", e, e)
				}
				if ie.Resource == "" {
					gotDef = append(gotDef, ie.Name)
				} else {
					gotBroker = append(gotBroker, ie.Name)
				}
			}
			eqKeys(t, "ignored default", gotDef, v.IgnoredDefault)
			eqKeys(t, "ignored broker", gotBroker, v.IgnoredBroker)
			if (b.Failed() != nil) != v.Failed {
				t.Errorf("failed = %v, Kafka failed = %v", b.Failed(), v.Failed)
			}
		})
	})
}

// TestOracleTopicConfig: each topic's effective config (LogConfig.fromProps
// over the broker's effective config) equals Kafka's LogConfig values.
func TestOracleTopicConfig(t *testing.T) {
	kafkaoracle.Decode(t, "config-resolve", func(n int, v *resolveVector) {
		t.Run(kafkaoracle.Name("config-resolve", n)+"/"+v.Name, func(t *testing.T) {
			b, err := NewBroker(v.Static)
			if err != nil {
				t.Fatalf("NewBroker: %v", err)
			}
			img := vectorImage(t, v)
			b = b.Apply(img)
			for _, topic := range v.Topics {
				want, isErr := topicWant(t, v.TopicConfigs[topic])
				got, err := b.Topic(img, topic)
				if isErr {
					var te *TopicError
					if !errors.As(err, &te) {
						t.Errorf("topic %s: Kafka's LogConfig fails, got %v", topic, err)
					}
					continue
				}
				if err != nil {
					t.Errorf("topic %s: %v", topic, err)
					continue
				}
				m := map[string]*string{}
				for _, x := range got {
					if x.Null {
						m[x.Name] = nil
					} else {
						m[x.Name] = &x.Value
					}
				}
				for k, w := range want {
					g, ok := m[k]
					if !ok || (g == nil) != (w == nil) || g != nil && *g != *w {
						t.Errorf("topic %s %s = %s, Kafka %s", topic, k, str(g, ok), str(w, true))
					}
				}
				if len(m) != len(want) {
					t.Errorf("topic %s: %d configs, Kafka %d", topic, len(m), len(want))
				}
			}
		})
	})
}

func str(s *string, ok bool) string {
	switch {
	case !ok:
		return "(absent)"
	case s == nil:
		return "null"
	}
	return strconv.Quote(*s)
}

func eq(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if want == nil {
		want = map[string]string{}
	}
	if !maps.Equal(got, want) {
		for k, w := range want {
			if g, ok := got[k]; !ok || g != w {
				t.Errorf("%s %s = %q (%v), Kafka %q", what, k, g, ok, w)
			}
		}
		for k, g := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s %s = %q, Kafka has none", what, k, g)
			}
		}
	}
}

func eqKeys(t *testing.T, what string, got []string, want map[string]string) {
	t.Helper()
	sort.Strings(got)
	var w []string
	for k := range want {
		w = append(w, k)
	}
	sort.Strings(w)
	if len(got) != len(w) {
		t.Errorf("%s = %v, Kafka %v", what, got, w)
		return
	}
	for i := range got {
		if got[i] != w[i] {
			t.Errorf("%s = %v, Kafka %v", what, got, w)
			return
		}
	}
}
