package redact

import (
	"fmt"

	"github.com/kmeta-go/kmeta/image"
)

// Type is a config's type in Kafka's ConfigDef (ConfigDef.Type).
type Type int8

// The ConfigDef types. The zero Type is not one of them.
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

var typeNames = [...]string{
	Boolean:  "BOOLEAN",
	String:   "STRING",
	Int:      "INT",
	Short:    "SHORT",
	Long:     "LONG",
	Double:   "DOUBLE",
	List:     "LIST",
	Class:    "CLASS",
	Password: "PASSWORD",
}

// String returns Kafka's name for the type, e.g. "PASSWORD".
func (t Type) String() string {
	if t >= Boolean && t <= Password {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", int8(t))
}

// Sensitive reports whether values of this type are secret. As in Kafka's
// ConfigDef.Type.isSensitive, only PASSWORD is.
func (t Type) Sensitive() bool { return t == Password }

// Schema knows the config names and types of some config resource types. It
// is the part of Kafka's KafkaConfigSchema that redaction uses. A Schema is
// immutable and safe for concurrent use.
type Schema struct {
	defs map[image.ConfigType]map[string]Type
}

// NewSchema returns a schema knowing, for each resource type in defs, the
// configs of that map (name to type). A resource type absent from defs is
// unknown: every config of it is sensitive. NewSchema copies defs; the caller
// keeps ownership of it.
func NewSchema(defs map[image.ConfigType]map[string]Type) *Schema {
	s := &Schema{defs: make(map[image.ConfigType]map[string]Type, len(defs))}
	for rt, names := range defs {
		m := make(map[string]Type, len(names))
		for n, t := range names {
			m[n] = t
		}
		s.defs[rt] = m
	}
	return s
}

// ConfigType returns the type of the config and whether the schema knows it.
// Names are matched exactly: there is no listener-prefix or synonym
// resolution, as in KafkaConfigSchema.
func (s *Schema) ConfigType(resourceType image.ConfigType, name string) (Type, bool) {
	names, ok := s.defs[resourceType]
	if !ok {
		return 0, false
	}
	t, ok := names[name]
	return t, ok
}

// IsSensitive reports whether a config's value must be hidden: its type is
// PASSWORD, or the schema does not know the resource type or the name
// (KafkaConfigSchema.isSensitive: "sensitive, or we don't know").
func (s *Schema) IsSensitive(resourceType image.ConfigType, name string) bool {
	t, ok := s.ConfigType(resourceType, name)
	return !ok || t.Sensitive()
}

// Names returns the config names the schema knows for the resource type, in
// no particular order. The slice is new; the caller owns it.
func (s *Schema) Names(resourceType image.ConfigType) []string {
	names := s.defs[resourceType]
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	return out
}

// KafkaSchema is the schema a Kafka 4.0-4.4 node builds for its metadata
// (KafkaRaftServer.configSchema): BROKER from KafkaConfig.configDef, TOPIC
// from LogConfig.configDefCopy, and nothing else. BROKER_LOGGER,
// CLIENT_METRICS and GROUP configs are therefore unknown to it, so Normal
// hides all of their values, as Kafka does (the share-group dead-letter-queue
// GROUP configs of Kafka 4.4, KIP-1191, included). It is the union of the
// five minor versions: a name Kafka defined in any of them is known (see
// kafka_broker.go and kafka_topic.go), such as Kafka 4.3's per-broker
// cordoned.log.dirs (KIP-1066).
var KafkaSchema = newKafkaSchema()

type entry struct {
	name string
	typ  Type
}

func newKafkaSchema() *Schema {
	s := &Schema{defs: map[image.ConfigType]map[string]Type{
		ResourceBroker: make(map[string]Type, len(brokerConfigs)),
		ResourceTopic:  make(map[string]Type, len(topicConfigs)),
	}}
	for _, e := range brokerConfigs {
		s.defs[ResourceBroker][e.name] = e.typ
	}
	for _, e := range topicConfigs {
		s.defs[ResourceTopic][e.name] = e.typ
	}
	return s
}
