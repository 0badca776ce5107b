package config

import "strconv"

// Type is a config's type in Kafka's ConfigDef (ConfigDef.Type).
type Type int8

// The ConfigDef types. The zero Type is not one of them (an unknown config).
const (
	Boolean Type = iota + 1
	String
	Int
	Short
	Long
	Double
	List
	Class
	Password
)

var typeNames = [...]string{"UNKNOWN", "BOOLEAN", "STRING", "INT", "SHORT", "LONG", "DOUBLE", "LIST", "CLASS", "PASSWORD"}

// String returns Kafka's name of the type ("PASSWORD"), or "UNKNOWN".
func (t Type) String() string {
	if t < 0 || int(t) >= len(typeNames) {
		return "UNKNOWN"
	}
	return typeNames[t]
}

// ResponseType is the type's id in a DescribeConfigs answer
// (DescribeConfigsResponse.ConfigType: UNKNOWN 0, BOOLEAN 1 ... PASSWORD 9).
func (t Type) ResponseType() int8 {
	if t < Boolean || t > Password {
		return 0
	}
	return int8(t)
}

// Mode is how a broker config may be updated (DynamicBrokerConfig's sets).
type Mode int8

// The update modes of broker configs (dynamicConfigUpdateModes).
const (
	ReadOnly    Mode = iota // not dynamic: only the static config sets it
	PerBroker               // dynamic, only for one broker (resource "<id>")
	ClusterWide             // dynamic, for one broker or as the cluster default
)

// String is Kafka's name of the mode ("read-only", "per-broker", "cluster-wide").
func (m Mode) String() string {
	switch m {
	case PerBroker:
		return "per-broker"
	case ClusterWide:
		return "cluster-wide"
	}
	return "read-only"
}

// Synonym is a broker config that supplies a topic or group config's value,
// and the factor its value is multiplied by (ConfigSynonym's converter:
// 3600000 for hours, 60000 for minutes, else 1).
type Synonym struct {
	Name   string
	Factor int64
}

// Validator is a ConfigDef validator as data. Kind is the class's simple
// name: Range (Min, Max), ValidString and CaseInsensitiveValidString
// (Values), ValidList (Values, EmptyAllowed, NullAllowed), ListSize (Max),
// NonEmptyString, NonNullValidator, CompositeValidator (All); the others
// (lambdas) carry Kafka's description in Text.
type Validator struct {
	Kind                      string
	Min, Max                  string
	HasMin, HasMax            bool
	MinF, MaxF                float64 // Min and Max as numbers
	Values                    []string
	EmptyAllowed, NullAllowed bool
	All                       []*Validator
	Text                      string
}

// Def is one config definition of Kafka 4.4 (ConfigDef.ConfigKey without
// its documentation).
type Def struct {
	Name string
	Type Type
	// Default is the default in its string form (ConfigDef.convertToString
	// of the parsed default); HasDefault is false when the default is null
	// or the config is required.
	Default    string
	HasDefault bool
	Required   bool
	Internal   bool
	// Mode is a broker config's update mode (read-only for the others).
	Mode Mode
	// Security marks the dynamic security configs, which a dynamic config
	// may set only under a listener prefix
	// (DynamicBrokerConfig.DYNAMIC_SECURITY_CONFIGS).
	Security bool
	// Synonyms are a topic config's broker synonyms in priority order
	// (ServerTopicConfigSynonyms) or a group config's broker config
	// (GroupConfig.brokerSynonym).
	Synonyms []Synonym
	Check    *Validator
}

// Sensitive reports whether the config's value is hidden in answers
// (AbstractKafkaConfig.maybeSensitive: a PASSWORD).
func (d *Def) Sensitive() bool { return d.Type == Password }

// Set names a group of config definitions.
type Set int8

// The config sets.
const (
	BrokerSet        Set = iota // AbstractKafkaConfig.CONFIG_DEF
	BrokerQuotaSet              // QuotaConfig.brokerQuotaConfigs: dynamic only
	TopicSet                    // LogConfig
	GroupSet                    // GroupConfig
	ClientMetricsSet            // ClientMetricsConfigs
)

// Defs returns the definitions of set in Kafka's ConfigDef order. The
// slice is shared: do not modify it.
func Defs(s Set) []Def {
	switch s {
	case BrokerSet:
		return brokerDefs[:]
	case BrokerQuotaSet:
		return brokerQuotaDefs[:]
	case TopicSet:
		return topicDefs[:]
	case GroupSet:
		return groupDefs[:]
	case ClientMetricsSet:
		return clientMetricsDefs[:]
	}
	return nil
}

// Lookup returns the definition of config name in set s.
func Lookup(s Set, name string) (*Def, bool) {
	ds := Defs(s)
	i := index(s, name)
	if i < 0 {
		return nil, false
	}
	return &ds[i], true
}

// UnknownConfigError is a config name that set s does not define.
type UnknownConfigError struct {
	Set  Set
	Name string
}

// Error names the config and the set.
func (e *UnknownConfigError) Error() string {
	return "config: " + e.Set.String() + " has no config " + e.Name
}

// String is the set's name ("broker", "topic", ...).
func (s Set) String() string {
	switch s {
	case BrokerSet:
		return "broker"
	case BrokerQuotaSet:
		return "broker-quota"
	case TopicSet:
		return "topic"
	case GroupSet:
		return "group"
	case ClientMetricsSet:
		return "client-metrics"
	}
	return "set(" + strconv.Itoa(int(s)) + ")"
}

// Parse checks value for config name of set s as ConfigDef.parse does and
// returns its canonical form: an *UnknownConfigError for a name s does not
// define, a *ValueError for a value of the wrong type or outside the
// config's validator.
func Parse(s Set, name, value string) (string, error) {
	d, ok := Lookup(s, name)
	if !ok {
		return "", &UnknownConfigError{Set: s, Name: name}
	}
	return d.Parse(value)
}
