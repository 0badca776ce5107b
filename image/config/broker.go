package config

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta-go/kmeta/image"
)

// IgnoredError is a dynamic broker config that DynamicBrokerConfig drops
// (and logs) instead of applying: a config that is not dynamic, a security
// config without a listener prefix, a per-broker config set at the cluster
// level, or a value of the wrong type.
type IgnoredError struct {
	// Resource is the broker resource name: "" for the cluster default.
	Resource string
	Name     string
	// Reason is one of the Ignored* reasons.
	Reason string
	// Err is the ValueError of a wrongly typed value.
	Err error
}

// The reasons of an IgnoredError (DynamicBrokerConfig.fromPersistentProps).
const (
	IgnoredInvalid    = "invalid value"
	IgnoredNonDynamic = "not a dynamic config"
	IgnoredSecurity   = "security config without a listener prefix"
	IgnoredPerBroker  = "per-broker config at the cluster level"
)

// Error names the resource, the key and why it was dropped.
func (e *IgnoredError) Error() string {
	level := "broker " + e.Resource
	if e.Resource == "" {
		level = "default cluster"
	}
	if e.Err != nil {
		return fmt.Sprintf("dynamic %s config %s ignored: %s: %v", level, e.Name, e.Reason, e.Err)
	}
	return fmt.Sprintf("dynamic %s config %s ignored: %s", level, e.Name, e.Reason)
}

// Unwrap returns the ValueError of a wrongly typed value.
func (e *IgnoredError) Unwrap() error { return e.Err }

// ErrNoNodeID is returned by NewBroker for a static config without node.id
// (or broker.id).
var ErrNoNodeID = errors.New("config: the static config sets neither node.id nor broker.id")

// Broker is one broker's effective config as DynamicBrokerConfig holds it:
// the static config, the dynamic cluster default and per-broker configs it
// kept, and the current KafkaConfig built from them. A Broker is immutable
// and safe for concurrent use.
type Broker struct {
	id         int32
	static     map[string]string // staticBrokerConfigs
	staticKeys []string          // its iteration order
	dynDefault map[string]string
	dynBroker  map[string]string
	current    *kafkaConfig
	topics     *topicBase
	ignored    []error
	failed     error
}

// kafkaConfig is a KafkaConfig: its originals and the parsed values of
// every broker config (canonical strings; null where the value is null).
type kafkaConfig struct {
	originals map[string]string
	// keys are the originals' keys in the order they were put into the
	// chain of HashMaps the originals went through: what orders two keys
	// of one bucket.
	keys   []string
	values []nullable // by brokerDefs index
}

type nullable struct {
	s  string
	ok bool
}

// NewBroker builds a broker's config from its static config (the
// server.properties keys and values) as KafkaConfig does: node.id and
// broker.id stand for each other (AbstractKafkaConfig.populateSynonyms);
// every broker config is parsed and checked, and a missing required config
// or a bad value is an error (a *ValueError or ErrNoNodeID). The cross-field
// checks of KafkaConfig.validateValues are not made.
func NewBroker(static map[string]string) (*Broker, error) {
	s := populateSynonyms(static)
	kc, err := newKafkaConfig(s)
	if err != nil {
		return nil, err
	}
	kc.keys = staticOrder(static, s)
	id, ok := kc.get("node.id")
	if !ok {
		return nil, ErrNoNodeID
	}
	n, _ := strconv.ParseInt(id, 10, 32)
	b := &Broker{id: int32(n), static: s, staticKeys: kc.keys, current: kc}
	b.topics = b.newTopicBase()
	return b, nil
}

// staticOrder is the order of DynamicBrokerConfig.staticBrokerConfigs:
// the static keys as given (sorted), the one populateSynonyms adds after
// them, in the iteration order of a HashMap filled one key at a time.
func staticOrder(given, populated map[string]string) []string {
	keys := slices.Sorted(maps.Keys(given))
	for k := range populated {
		if _, ok := given[k]; !ok {
			keys = append(keys, k)
		}
	}
	javaOrder(keys, grownCapacity(len(keys)))
	return keys
}

// populateSynonyms is AbstractKafkaConfig.populateSynonyms.
func populateSynonyms(in map[string]string) map[string]string {
	out := maps.Clone(in)
	if out == nil {
		out = map[string]string{}
	}
	b, hasB := out["broker.id"]
	n, hasN := out["node.id"]
	if !hasB && hasN {
		out["broker.id"] = n
	} else if hasB && !hasN {
		out["node.id"] = b
	}
	return out
}

// newKafkaConfig parses every broker config of props (ConfigDef.parse).
func newKafkaConfig(props map[string]string) (*kafkaConfig, error) {
	kc := &kafkaConfig{originals: props, values: make([]nullable, len(brokerDefs))}
	for i := range brokerDefs {
		d := &brokerDefs[i]
		raw, ok := props[d.Name]
		if !ok {
			if d.Required {
				return nil, &ValueError{Name: d.Name, Value: "", Reason: "Missing required configuration \"" + d.Name + "\" which has no default value."}
			}
			kc.values[i] = nullable{d.Default, d.HasDefault}
			continue
		}
		v, err := d.Parse(raw)
		if err != nil {
			return nil, err
		}
		kc.values[i] = nullable{v, true}
	}
	return kc, nil
}

// get is the parsed value of broker config name; ok is false when it is
// null or not a broker config.
func (kc *kafkaConfig) get(name string) (string, bool) {
	i := index(BrokerSet, name)
	if i < 0 {
		return "", false
	}
	return kc.values[i].s, kc.values[i].ok
}

// ID is the broker's node id.
func (b *Broker) ID() int32 { return b.id }

// Apply returns the broker's config with the image's dynamic broker configs
// applied as the broker's DynamicConfigPublisher applies them: the cluster
// default (resource "", DynamicBrokerConfig.updateDefaultConfig), then this
// broker's (resource "<id>", updateBrokerConfig). b is not changed.
func (b *Broker) Apply(img *image.Image) *Broker {
	nb := &Broker{id: b.id, static: b.static, staticKeys: b.staticKeys, current: b.current}
	cfgs := img.Configs()
	def := entriesMap(cfgs.Entries(image.ConfigResource{Type: image.ConfigBroker, Name: ""}))
	own := entriesMap(cfgs.Entries(image.ConfigResource{Type: image.ConfigBroker, Name: strconv.Itoa(int(b.id))}))
	nb.dynDefault = nb.fromPersistentProps("", def, false)
	nb.updateCurrentConfig()
	nb.dynBroker = nb.fromPersistentProps(strconv.Itoa(int(b.id)), own, true)
	nb.updateCurrentConfig()
	nb.topics = nb.newTopicBase()
	return nb
}

func entriesMap(es []image.ConfigEntry) map[string]string {
	m := make(map[string]string, len(es))
	for _, e := range es {
		m[e.Name] = e.Value
	}
	return m
}

// Ignored returns the dynamic configs the broker dropped (IgnoredErrors),
// in the order it checked them.
func (b *Broker) Ignored() []error { return slices.Clone(b.ignored) }

// Failed is the error that kept the previous config when the dynamic
// configs did not make a valid KafkaConfig (DynamicBrokerConfig keeps its
// current config and logs it), or nil.
func (b *Broker) Failed() error { return b.failed }

// Effective returns the effective broker config as KafkaConfig.originals
// holds it: the static config with the kept dynamic configs over it, as
// given (not parsed). The map is a copy.
func (b *Broker) Effective() map[string]string { return maps.Clone(b.current.originals) }

// Value returns the effective value of broker config name in its canonical
// form (the parsed value), falling back to Kafka's default; ok is false for
// a null value or an unknown name.
func (b *Broker) Value(name string) (string, bool) { return b.current.get(name) }

// DynamicDefault returns the cluster-wide dynamic configs the broker kept.
func (b *Broker) DynamicDefault() map[string]string { return maps.Clone(b.dynDefault) }

// DynamicBroker returns the per-broker dynamic configs the broker kept.
func (b *Broker) DynamicBroker() map[string]string { return maps.Clone(b.dynBroker) }

// listenerConfig is DynamicBrokerConfig's LISTENER_CONFIG_REGEX.
var listenerConfig = regexp.MustCompile(`^listener\.name\.[^.]*\.(.*)$`)

// baseName is the config a listener-prefixed name stands for, or name.
func baseName(name string) (string, bool) {
	if m := listenerConfig.FindStringSubmatch(name); m != nil {
		return m[1], true
	}
	return name, false
}

// clusterLevelListenerConfig is DynamicBrokerConfig's
// CLUSTER_LEVEL_LISTENER_CONFIGS.
func clusterLevelListenerConfig(name string) bool {
	return name == "max.connections" || name == "max.connection.creation.rate" || name == "num.network.threads"
}

// dynamicDef is the definition of a dynamic broker config
// (DynamicConfig.Broker's ConfigDef: the dynamic broker configs and the
// broker quota configs).
func dynamicDef(name string) (*Def, bool) {
	if d, ok := Lookup(BrokerSet, name); ok {
		return d, d.Mode != ReadOnly
	}
	return Lookup(BrokerQuotaSet, name)
}

// fromPersistentProps is DynamicBrokerConfig.fromPersistentProps: drop
// wrongly typed values (removeInvalidConfigs), non-dynamic configs,
// security configs without a listener prefix and, at the cluster level,
// per-broker configs.
func (b *Broker) fromPersistentProps(res string, props map[string]string, perBroker bool) map[string]string {
	keys := slices.Sorted(maps.Keys(props))
	out := map[string]string{}
	for _, k := range keys {
		base, _ := baseName(k)
		reason := ""
		var verr error
		if d, ok := dynamicDef(base); ok {
			if _, err := d.Parse(props[k]); err != nil {
				reason, verr = IgnoredInvalid, err
			}
		}
		if reason == "" {
			if d, ok := Lookup(BrokerSet, k); ok {
				switch {
				case d.Mode == ReadOnly:
					reason = IgnoredNonDynamic
				case d.Security:
					reason = IgnoredSecurity
				case !perBroker && d.Mode == PerBroker:
					reason = IgnoredPerBroker
				}
			} else if _, prefixed := baseName(k); prefixed && !perBroker && !clusterLevelListenerConfig(base) {
				reason = IgnoredPerBroker
			}
		}
		if reason != "" {
			b.ignored = append(b.ignored, &IgnoredError{Resource: res, Name: k, Reason: reason, Err: verr})
			continue
		}
		out[k] = props[k]
	}
	return out
}

// synList is a short list of config names held by value.
type synList struct {
	n int
	a [3]string
}

func list2(a, b string) synList    { return synList{2, [3]string{a, b}} }
func (l *synList) names() []string { return l.a[:l.n] }

// brokerConfigSynonyms is DynamicBrokerConfig.brokerConfigSynonyms.
func brokerConfigSynonyms(name string, matchListenerOverride bool) synList {
	switch name {
	case "log.roll.ms", "log.roll.hours":
		return list2("log.roll.ms", "log.roll.hours")
	case "log.roll.jitter.ms", "log.roll.jitter.hours":
		return list2("log.roll.jitter.ms", "log.roll.jitter.hours")
	case "log.flush.interval.ms":
		return list2("log.flush.interval.ms", "log.flush.scheduler.interval.ms")
	case "log.retention.ms", "log.retention.minutes", "log.retention.hours":
		return synList{3, [3]string{"log.retention.ms", "log.retention.minutes", "log.retention.hours"}}
	}
	if matchListenerOverride && strings.HasPrefix(name, "listener.name.") {
		if base, ok := baseName(name); ok {
			for _, m := range [...]string{"sasl.jaas.config", "sasl.login.callback.handler.class", "sasl.login.class",
				"sasl.server.callback.handler.class", "connections.max.reauth.ms"} {
				if strings.HasSuffix(base, m) {
					return list2(name, m)
				}
			}
			return list2(name, base)
		}
	}
	return synList{1, [3]string{name}}
}

// overrideProps is DynamicBrokerConfig.overrideProps: each override
// replaces its synonyms, in the override map's iteration order.
// order is the props' insertion order, updated the same way (a removed
// and re-put key moves to the end).
func overrideProps(props map[string]string, order []string, override map[string]string) []string {
	keys := slices.Sorted(maps.Keys(override))
	javaOrder(keys, grownCapacity(len(keys)))
	for _, k := range keys {
		syns := brokerConfigSynonyms(k, false)
		for _, s := range syns.names() {
			delete(props, s)
		}
		order = slices.DeleteFunc(order, func(o string) bool { return slices.Contains(syns.names(), o) })
		props[k] = override[k]
		order = append(order, k)
	}
	return order
}

// updateCurrentConfig is DynamicBrokerConfig.updateCurrentConfig: the
// static config, the cluster default and the per-broker config, clamped
// (KafkaConfig.clampDynamicConfigs), made into a new KafkaConfig; one that
// fails keeps the current config.
func (b *Broker) updateCurrentConfig() {
	props := maps.Clone(b.static)
	order := slices.Clone(b.staticKeys)
	order = overrideProps(props, order, b.dynDefault)
	order = overrideProps(props, order, b.dynBroker)
	if err := clampDynamicConfigs(props); err != nil {
		b.failed = err
		return
	}
	kc, err := newKafkaConfig(populateSynonyms(props))
	if err != nil {
		b.failed = err
		return
	}
	kc.keys = order
	b.current, b.failed = kc, nil
}

// clampDynamicConfigs is GroupCoordinatorConfig.clampDynamicConfigs: three
// assignment intervals clamped into their broker's [min, max].
func clampDynamicConfigs(props map[string]string) error {
	for _, c := range [...][3]string{
		{"group.consumer.assignment.interval.ms", "group.consumer.min.assignment.interval.ms", "group.consumer.max.assignment.interval.ms"},
		{"group.share.assignment.interval.ms", "group.share.min.assignment.interval.ms", "group.share.max.assignment.interval.ms"},
		{"group.streams.assignment.interval.ms", "group.streams.min.assignment.interval.ms", "group.streams.max.assignment.interval.ms"},
	} {
		raw, ok := props[c[0]]
		if !ok {
			continue
		}
		v, err := strconv.ParseInt(raw, 10, 32) // Integer.parseInt: no trimming
		if err != nil {
			return &ValueError{Name: c[0], Value: raw, Reason: "not an integer"}
		}
		lo, hi := intOf(props, c[1]), intOf(props, c[2])
		if v < lo {
			props[c[0]] = strconv.FormatInt(lo, 10)
		} else if v > hi {
			props[c[0]] = strconv.FormatInt(hi, 10)
		}
	}
	return nil
}

func intOf(props map[string]string, name string) int64 {
	d, _ := Lookup(BrokerSet, name)
	s := d.Default
	if raw, ok := props[name]; ok {
		if v, err := d.Parse(raw); err == nil {
			s = v
		}
	}
	x, _ := strconv.ParseInt(s, 10, 64)
	return x
}
