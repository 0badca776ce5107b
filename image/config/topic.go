package config

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
	"strconv"
	"strings"

	"github.com/kmeta-go/kmeta/image"
)

// Config sources (DescribeConfigsResponse.ConfigSource).
const (
	SourceUnknown                    int8 = 0
	SourceTopicConfig                int8 = 1 // TOPIC_CONFIG: the topic's own dynamic config
	SourceDynamicBrokerConfig        int8 = 2 // DYNAMIC_BROKER_CONFIG: broker resource "<id>"
	SourceDynamicDefaultBrokerConfig int8 = 3 // DYNAMIC_DEFAULT_BROKER_CONFIG: broker resource ""
	SourceStaticBrokerConfig         int8 = 4 // STATIC_BROKER_CONFIG: the static config
	SourceDefaultConfig              int8 = 5 // DEFAULT_CONFIG: Kafka's default
	SourceDynamicBrokerLoggerConfig  int8 = 6 // DYNAMIC_BROKER_LOGGER_CONFIG
	SourceClientMetricsConfig        int8 = 7 // CLIENT_METRICS_CONFIG
	SourceGroupConfig                int8 = 8 // GROUP_CONFIG
)

// Value is one resolved config: its name, its value in Kafka's canonical
// form (Null for a null value) and where it came from.
type Value struct {
	Name  string
	Value string
	Null  bool
	// Source is where the value was set (a Source* constant): the topic's
	// own config, else the broker layer that set the broker synonym it came
	// from, else DEFAULT_CONFIG.
	Source int8
	// Synonym is the config the value was set under: Name for a topic
	// config, the broker config ("log.retention.hours") else, "" for a
	// default.
	Synonym string
}

// TopicError is a topic whose dynamic config LogConfig rejects (a value of
// the wrong type or outside its range).
type TopicError struct {
	Topic string
	Err   error
}

// Error names the topic and the bad value.
func (e *TopicError) Error() string { return "topic " + e.Topic + ": " + e.Err.Error() }

// Unwrap returns the ValueError.
func (e *TopicError) Unwrap() error { return e.Err }

// logDefault is the value of topic config d that the broker supplies
// (KafkaConfig.extractLogConfigMap): its first broker synonym that is not
// null, times its factor, with a negative retention.ms made -1
// (logRetentionTimeMillis); ok is false when the broker supplies none.
func (b *Broker) logDefault(d *Def) (nullable, bool) {
	if len(d.Synonyms) == 0 {
		return nullable{}, false
	}
	for _, s := range d.Synonyms {
		v, ok := b.current.get(s.Name)
		if !ok {
			continue
		}
		if s.Factor != 1 {
			x, _ := strconv.ParseInt(v, 10, 64)
			v = strconv.FormatInt(x*s.Factor, 10)
		}
		if d.Name == "retention.ms" && strings.HasPrefix(v, "-") {
			v = "-1"
		}
		return nullable{v, true}, true
	}
	// Every synonym null: the last one is what Kafka reads (a null value).
	return nullable{}, true
}

// topicBase is what a broker gives every topic: for each topic config
// (by topicDefs index) its value without a topic override, or the error
// LogConfig raises for it, and the non-internal configs' indexes by name.
type topicBase struct {
	vals  []Value
	errs  []error
	order []int
	// sorted are the values of order, bad the positions in it whose
	// broker value LogConfig rejects.
	sorted []Value
	bad    []int
	// syns are the broker-side synonyms DescribeConfigs lists for each
	// topic config (ConfigHelper.configSynonyms of its broker synonym).
	syns [][]kmsg.DescribeConfigsResponseResourceConfigConfigSynonym
}

// newTopicBase resolves the broker's side of every topic config once.
func (b *Broker) newTopicBase() *topicBase {
	tb := &topicBase{vals: make([]Value, len(topicDefs)), errs: make([]error, len(topicDefs)),
		syns: make([][]kmsg.DescribeConfigsResponseResourceConfigConfigSynonym, len(topicDefs))}
	ds := describer{b: b}
	for i := range topicDefs {
		d := &topicDefs[i]
		tb.vals[i], tb.errs[i] = b.brokerTopicValue(d)
		if len(d.Synonyms) > 0 {
			start := len(ds.syns)
			l := brokerConfigSynonyms(d.Synonyms[0].Name, true)
			ds.configSynonyms(d.Synonyms[0].Name, l.names(), d.Type == Password)
			tb.syns[i] = ds.synsFrom(start)
		}
		if !d.Internal {
			tb.order = append(tb.order, i)
		}
	}
	slices.SortFunc(tb.order, func(x, y int) int { return strings.Compare(topicDefs[x].Name, topicDefs[y].Name) })
	for k, i := range tb.order {
		tb.sorted = append(tb.sorted, tb.vals[i])
		if tb.errs[i] != nil {
			tb.bad = append(tb.bad, k)
		}
	}
	return tb
}

// Topic returns topic's effective config as LogConfig.fromProps builds it
// over the broker's effective config: each topic config (internal ones
// left out) from the topic's own dynamic config in img (TOPIC_CONFIG),
// else the broker's effective value of its synonym (ranked per-broker
// dynamic, cluster-wide dynamic default, static, then Kafka's broker
// default), else Kafka's topic default. A topic config of the wrong type
// is a *TopicError. Topic keys that are not topic configs are left out.
// The result is sorted by name.
func (b *Broker) Topic(img *image.Image, topic string) ([]Value, error) {
	return b.AppendTopic(make([]Value, 0, len(b.topics.order)), img, topic)
}

// AppendTopic is Topic appending to dst, for a caller that reuses one
// buffer for many topics. On an error dst is returned as it was.
func (b *Broker) AppendTopic(dst []Value, img *image.Image, topic string) ([]Value, error) {
	es := img.Configs().Entries(image.ConfigResource{Type: image.ConfigTopic, Name: topic})
	n := len(dst)
	out := append(dst, b.topics.sorted...) // the broker's values, then the topic's over them
	k := 0
	for _, e := range es {
		for k < len(b.topics.order) && topicDefs[b.topics.order[k]].Name < e.Name {
			k++
		}
		if k == len(b.topics.order) || topicDefs[b.topics.order[k]].Name != e.Name {
			continue // not a topic config, or an internal one
		}
		d := &topicDefs[b.topics.order[k]]
		v, err := d.Parse(e.Value)
		if err != nil {
			return dst[:n], &TopicError{Topic: topic, Err: err}
		}
		out[n+k] = Value{Name: d.Name, Value: v, Source: SourceTopicConfig, Synonym: d.Name}
	}
	for _, p := range b.topics.bad { // a broker value LogConfig rejects, not overridden
		if out[n+p].Source != SourceTopicConfig {
			return dst[:n], &TopicError{Topic: topic, Err: b.topics.errs[b.topics.order[p]]}
		}
	}
	return out, nil
}

// topicValue resolves one topic config from the topic's entries es.
func (b *Broker) topicValue(i int, es []image.ConfigEntry) (Value, error) {
	d := &topicDefs[i]
	if j, ok := slices.BinarySearchFunc(es, d.Name, func(e image.ConfigEntry, n string) int { return strings.Compare(e.Name, n) }); ok {
		v, err := d.Parse(es[j].Value)
		if err != nil {
			return Value{}, err
		}
		return Value{Name: d.Name, Value: v, Source: SourceTopicConfig, Synonym: d.Name}, nil
	}
	return b.topics.vals[i], b.topics.errs[i]
}

// brokerTopicValue is topic config d's value when the topic does not set
// it: the broker's (validated as LogConfig validates it), else Kafka's.
func (b *Broker) brokerTopicValue(d *Def) (Value, error) {
	if v, ok := b.logDefault(d); ok {
		if v.ok && d.Check != nil { // LogConfig validates the broker's value too
			if err := d.Check.check(d.Name, v.s, v.s, d.Type); err != nil {
				return Value{}, err
			}
		}
		src, syn := b.synonymSource(d.Synonyms[0].Name)
		return Value{Name: d.Name, Value: v.s, Null: !v.ok, Source: src, Synonym: syn}, nil
	}
	return Value{Name: d.Name, Value: d.Default, Null: !d.HasDefault, Source: SourceDefaultConfig}, nil
}

// synonymSource is the source of broker config name's value and the
// synonym that set it, as ConfigHelper.configSynonyms ranks them: per-broker
// dynamic, cluster default, static, Kafka's default.
func (b *Broker) synonymSource(name string) (int8, string) {
	l := brokerConfigSynonyms(name, true)
	syns := l.names()
	for _, layer := range [...]struct {
		m   map[string]string
		src int8
	}{{b.dynBroker, SourceDynamicBrokerConfig}, {b.dynDefault, SourceDynamicDefaultBrokerConfig}, {b.static, SourceStaticBrokerConfig}} {
		for _, s := range syns {
			if _, ok := layer.m[s]; ok {
				return layer.src, s
			}
		}
	}
	for _, s := range syns {
		if d, ok := Lookup(BrokerSet, s); ok && d.HasDefault {
			return SourceDefaultConfig, s
		}
	}
	return SourceDefaultConfig, ""
}
