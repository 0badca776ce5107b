package config

import (
	"maps"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
)

type resourceConfigs = []kmsg.DescribeConfigsResponseResourceConfig

// topic is ConfigHelper's TOPIC branch: the entries of
// LogConfig.fromProps(extractLogConfigMap, topicProps) through
// createTopicConfigEntry, topic keys that are not topic configs first.
func (d *describer) topic(es []image.ConfigEntry) (resourceConfigs, error) {
	out := make(resourceConfigs, 0, len(topicDefsOrder)+len(es))
	d.strs = make([]string, 0, len(topicDefsOrder)+len(es))
	out = d.topicExtras(es, out)
	for _, i := range topicDefsOrder {
		def := &topicDefs[i]
		if !d.wanted(def.Name) {
			continue
		}
		v, err := d.b.topicValue(int(i), es)
		if err != nil {
			return nil, err
		}
		out = append(out, d.topicEntry(int(i), v, es))
	}
	// LogConfig rejects a bad key the caller did not ask for too.
	if len(d.keys) > 0 {
		for i := range topicDefs {
			if !topicDefs[i].Internal && !d.wanted(topicDefs[i].Name) {
				if _, err := d.b.topicValue(i, es); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// topicExtras appends the entries of the topic's keys that are not
// (non-internal) topic configs, in the order of LogConfig's originals: the
// broker's topic defaults (every config with a broker synonym) and the
// topic's keys.
func (d *describer) topicExtras(es []image.ConfigEntry, out resourceConfigs) resourceConfigs {
	var extra []string
	size := numBrokerTopicDefaults
	for _, e := range es {
		def, known := Lookup(TopicSet, e.Name)
		if !known || len(def.Synonyms) == 0 {
			size++
		}
		if !known || def.Internal {
			extra = append(extra, e.Name)
		}
	}
	if len(extra) == 0 {
		return out
	}
	javaOrder(extra, hashCapacity(size))
	for _, k := range extra {
		if !d.wanted(k) {
			continue
		}
		def, known := Lookup(TopicSet, k)
		t := Type(0)
		if known {
			t = def.Type
		}
		raw, _ := entryValue(es, k)
		v := d.hide(raw, !known || t == Password)
		start := len(d.syns)
		d.addSyn(k, v, SourceTopicConfig)
		out = append(out, d.entry(k, v, d.synsFrom(start), !known || t == Password, false, t))
	}
	return out
}

// numBrokerTopicDefaults is the number of topic configs the broker
// supplies (KafkaConfig.extractLogConfigMap): those with a broker synonym.
const numBrokerTopicDefaults = 30

// entryValue is the value of key name among the sorted entries es.
func entryValue(es []image.ConfigEntry, name string) (string, bool) {
	j, ok := slices.BinarySearchFunc(es, name, func(e image.ConfigEntry, n string) int { return strings.Compare(e.Name, n) })
	if !ok {
		return "", false
	}
	return es[j].Value, true
}

// topicEntry is ConfigHelper.createTopicConfigEntry.
func (d *describer) topicEntry(i int, v Value, es []image.ConfigEntry) kmsg.DescribeConfigsResponseResourceConfig {
	def := &topicDefs[i]
	sensitive := def.Type == Password
	var value *string
	if !v.Null && !sensitive {
		value = d.str(v.Value)
	}
	start := len(d.syns)
	if _, ok := entryValue(es, def.Name); ok {
		d.addSyn(def.Name, value, SourceTopicConfig)
	}
	for _, s := range d.b.topics.syns[i] { // a copy: the answer is the caller's
		var v *string
		if s.Value != nil {
			v = d.str(*s.Value)
		}
		d.addSyn(s.Name, v, int8(s.Source))
	}
	return d.entry(def.Name, value, d.synsFrom(start), sensitive, false, def.Type)
}

// brokerType is AbstractKafkaConfig.configType: a broker config's type,
// a broker quota config's, or that of the first synonym that is a broker
// config (a listener-prefixed name's base config).
func brokerType(name string) (Type, bool) {
	if d, ok := Lookup(BrokerSet, name); ok {
		return d.Type, true
	}
	if d, ok := Lookup(BrokerQuotaSet, name); ok {
		return d.Type, true
	}
	l := brokerConfigSynonyms(name, true)
	for _, s := range l.names() {
		if d, ok := Lookup(BrokerSet, s); ok {
			return d.Type, true
		}
	}
	return 0, false
}

// dynamicName reports whether name is in DynamicBrokerConfig.ALL_DYNAMIC_CONFIGS.
func dynamicName(name string) bool {
	_, ok := dynamicDef(name)
	return ok
}

// brokerEntry is ConfigHelper.createBrokerConfigEntry.
func (d *describer) brokerEntry(perBroker bool, name string, value *string) kmsg.DescribeConfigsResponseResourceConfig {
	t, known := brokerType(name)
	sensitive := !known || t == Password
	if sensitive {
		value = nil
	}
	start := len(d.syns)
	l := brokerConfigSynonyms(name, true)
	d.configSynonyms(name, l.names(), sensitive)
	if !perBroker { // the cluster default lists only its own layer
		kept := d.syns[:start]
		for _, s := range d.syns[start:] {
			if s.Source == kmsg.ConfigSource(SourceDynamicDefaultBrokerConfig) {
				kept = append(kept, s)
			}
		}
		d.syns = kept
	}
	return d.entry(name, value, d.synsFrom(start), sensitive, !dynamicName(name), t)
}

// brokerDefault is the BROKER "" branch: the kept cluster-wide dynamic
// configs, in DynamicBrokerConfig's map's order.
func (d *describer) brokerDefault() resourceConfigs {
	out := resourceConfigs{}
	keys := slices.Sorted(maps.Keys(d.b.dynDefault))
	javaOrder(keys, grownCapacity(len(keys)))
	for _, k := range keys {
		if d.wanted(k) {
			out = append(out, d.brokerEntry(false, k, d.str(d.b.dynDefault[k])))
		}
	}
	return out
}

// broker is the BROKER "<id>" branch: the current KafkaConfig's originals
// that are not broker configs, then every broker config's value.
func (d *describer) broker() resourceConfigs {
	out := resourceConfigs{}
	kc := d.b.current
	for _, k := range orderedExtraKeys(kc.originals, kc.keys, func(k string) bool {
		def, ok := Lookup(BrokerSet, k)
		return ok && !def.Internal
	}) {
		if d.wanted(k) {
			out = append(out, d.brokerEntry(true, k, d.str(kc.originals[k])))
		}
	}
	for _, i := range brokerDefsOrder {
		def := &brokerDefs[i]
		if !d.wanted(def.Name) {
			continue
		}
		var v *string
		if kc.values[i].ok {
			v = d.str(kc.values[i].s)
		}
		out = append(out, d.brokerEntry(true, def.Name, v))
	}
	return out
}

// groupDefault is the broker's value of group config def
// (AbstractKafkaConfig.extractGroupConfigMap); ok is false when the broker
// supplies none.
func (d *describer) groupDefault(def *Def) (nullable, bool) {
	if len(def.Synonyms) == 0 {
		return nullable{}, false
	}
	s := def.Synonyms[0].Name
	if def.Internal {
		if _, set := d.b.current.originals[s]; !set {
			return nullable{}, false
		}
	}
	v, ok := d.b.current.get(s)
	if ok && def.Name == "streams.assignor.name" { // the first assignor's name
		v, _, _ = strings.Cut(v, ",")
	}
	return nullable{v, ok}, true
}

// group is ConfigHelper's GROUP branch: GroupConfig.fromProps over the
// broker's group defaults, through createGroupConfigEntry.
func (d *describer) group(es []image.ConfigEntry) (resourceConfigs, error) {
	props := make(map[string]string, len(es))
	for _, e := range es {
		props[e.Name] = e.Value
	}
	vals := make([]nullable, len(groupDefs))
	for i := range groupDefs {
		def := &groupDefs[i]
		raw, set := props[def.Name]
		if !set {
			if v, ok := d.groupDefault(def); ok {
				vals[i] = v
				if !v.ok {
					continue
				}
				raw = v.s
			} else {
				vals[i] = nullable{def.Default, def.HasDefault}
				continue
			}
		}
		v, err := def.Parse(raw)
		if err != nil {
			return nil, err
		}
		vals[i] = nullable{v, true}
	}
	// GroupConfig's originals: the broker's group defaults and the group's keys.
	originals := maps.Clone(props)
	for i := range groupDefs {
		if _, set := props[groupDefs[i].Name]; !set {
			if v, ok := d.groupDefault(&groupDefs[i]); ok && v.ok {
				originals[groupDefs[i].Name] = v.s
			}
		}
	}
	out := resourceConfigs{}
	for _, k := range extraKeys(originals, func(k string) bool { def, ok := Lookup(GroupSet, k); return ok && !def.Internal }) {
		if !d.wanted(k) {
			continue
		}
		if def, ok := Lookup(GroupSet, k); ok { // an internal config: its original value
			out = append(out, d.groupEntry(def, nullable{originals[k], true}, props))
			continue
		}
		start := len(d.syns)
		d.addSyn(k, nil, SourceGroupConfig)
		out = append(out, d.entry(k, nil, d.synsFrom(start), true, false, 0))
	}
	for _, i := range groupDefsOrder {
		def := &groupDefs[i]
		if !d.wanted(def.Name) {
			continue
		}
		out = append(out, d.groupEntry(def, vals[i], props))
	}
	return out, nil
}

// groupEntry is ConfigHelper.createGroupConfigEntry.
func (d *describer) groupEntry(def *Def, v nullable, props map[string]string) kmsg.DescribeConfigsResponseResourceConfig {
	sensitive := def.Type == Password
	var value *string
	if v.ok && !sensitive {
		value = d.str(v.s)
	}
	start := len(d.syns)
	if _, ok := props[def.Name]; ok {
		d.addSyn(def.Name, value, SourceGroupConfig)
	}
	if len(def.Synonyms) > 0 {
		s := def.Synonyms[0].Name
		l := brokerConfigSynonyms(s, true)
		d.configSynonyms(s, l.names(), sensitive)
	} else if def.HasDefault {
		d.addSyn(def.Name, d.hide(def.Default, sensitive), SourceDefaultConfig)
	}
	return d.entry(def.Name, value, d.synsFrom(start), sensitive, false, def.Type)
}

// clientMetrics is ConfigHelper's CLIENT_METRICS branch:
// ClientMetricsConfigs.fromProps over its defaults, through
// createClientMetricsConfigEntry.
func (d *describer) clientMetrics(es []image.ConfigEntry) (resourceConfigs, error) {
	props := make(map[string]string, len(es))
	for _, e := range es {
		props[e.Name] = e.Value
	}
	out := resourceConfigs{}
	vals := make([]nullable, len(clientMetricsDefs))
	for i := range clientMetricsDefs {
		def := &clientMetricsDefs[i]
		vals[i] = nullable{def.Default, def.HasDefault}
		if raw, ok := props[def.Name]; ok {
			v, err := def.Parse(raw)
			if err != nil {
				return nil, err
			}
			vals[i] = nullable{v, true}
		}
	}
	for _, k := range extraKeys(props, func(k string) bool { _, ok := Lookup(ClientMetricsSet, k); return ok }) {
		if d.wanted(k) {
			v := d.str(props[k])
			start := len(d.syns)
			d.addSyn(k, v, SourceClientMetricsConfig)
			out = append(out, d.entry(k, v, d.synsFrom(start), false, false, 0))
		}
	}
	for _, i := range clientMetricsDefsOrder {
		def := &clientMetricsDefs[i]
		if !d.wanted(def.Name) {
			continue
		}
		var value *string
		if vals[i].ok {
			value = d.str(vals[i].s)
		}
		start := len(d.syns)
		if _, ok := props[def.Name]; ok {
			d.addSyn(def.Name, value, SourceClientMetricsConfig)
		}
		out = append(out, d.entry(def.Name, value, d.synsFrom(start), false, false, def.Type))
	}
	return out, nil
}
