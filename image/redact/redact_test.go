package redact

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kmeta-go/kmeta/image"
)

// testSchema is the KafkaConfigSchema of Kafka's
// MetadataNodeRedactionCriteriaTest: BROKER knows a STRING and a PASSWORD,
// TOPIC knows one PASSWORD.
var testSchema = NewSchema(map[image.ConfigType]map[string]Type{
	ResourceBroker: {"non.secret": String, "secret.config": Password},
	ResourceTopic:  {"topic.secret.config": Password},
})

// TestMetadataNodeRedactionCriteria reproduces Kafka's
// MetadataNodeRedactionCriteriaTest case by case.
func TestMetadataNodeRedactionCriteria(t *testing.T) {
	criteria := map[string]Criteria{"strict": Strict, "normal": Normal(testSchema), "disabled": Disabled}
	tests := []struct {
		kafkaTest string
		criteria  string
		what      string // "scram", "token", or a BROKER config name
		want      bool
	}{
		{"testStrictRedactsScram", "strict", "scram", true},
		{"testNormalRedactsScram", "normal", "scram", true},
		{"testDisabledDoesNotRedactScram", "disabled", "scram", false},
		{"testStrictRedactsDelegationToken", "strict", "token", true},
		{"testNormalRedactsDelegationToken", "normal", "token", true},
		{"testDisabledDoesNotRedactDelegationToken", "disabled", "token", false},
		{"testStrictRedactsNonSensitiveConfig", "strict", "non.secret", true},
		{"testNormalDoesNotRedactNonSensitiveConfig", "normal", "non.secret", false},
		{"testDisabledDoesNotRedactNonSensitiveConfig", "disabled", "non.secret", false},
		{"testStrictRedactsSensitiveConfig", "strict", "secret.config", true},
		{"testNormalDoesRedactsSensitiveConfig", "normal", "secret.config", true},
		{"testDisabledDoesNotRedactSensitiveConfig", "disabled", "secret.config", false},
		{"testStrictRedactsUnknownConfig", "strict", "unknown.config", true},
		{"testNormalDoesRedactsUnknownConfig", "normal", "unknown.config", true},
		{"testDisabledDoesNotRedactUnknownConfig", "disabled", "unknown.config", false},
	}
	for _, tt := range tests {
		t.Run(tt.kafkaTest, func(t *testing.T) {
			c := criteria[tt.criteria]
			var got bool
			switch tt.what {
			case "scram":
				got = c.ShouldRedactScram()
			case "token":
				got = c.ShouldRedactDelegationToken()
			default:
				got = c.ShouldRedactConfig(ResourceBroker, tt.what)
			}
			if got != tt.want {
				t.Errorf("%s: %s = %v, want %v", tt.criteria, tt.what, got, tt.want)
			}
		})
	}
}

// TestKafkaConfigSchemaIsSensitive reproduces KafkaConfigSchemaTest.testIsSensitive.
func TestKafkaConfigSchemaIsSensitive(t *testing.T) {
	s := NewSchema(map[image.ConfigType]map[string]Type{
		ResourceBroker: {"foo.bar": List, "baz": String, "quux": Int, "quuux": Password, "quuux2": Password},
		ResourceTopic:  {"abc": List, "def": Long, "ghi": Boolean, "xyz": Password, "internal": String},
	})
	tests := []struct {
		rt   image.ConfigType
		name string
		want bool
	}{
		{ResourceBroker, "foo.bar", false},
		{ResourceBroker, "quuux", true},
		{ResourceBroker, "quuux2", true},
		{ResourceBroker, "unknown.config.key", true},
		{ResourceTopic, "abc", false},
		// Not in Kafka's test, same rule: a resource type without a ConfigDef.
		{ResourceGroup, "abc", true},
	}
	for _, tt := range tests {
		if got := s.IsSensitive(tt.rt, tt.name); got != tt.want {
			t.Errorf("IsSensitive(%d, %q) = %v, want %v", tt.rt, tt.name, got, tt.want)
		}
	}
}

// printConfig prints one config value the way Kafka's ConfigurationImageNode
// does.
func printConfig(c Criteria, rt image.ConfigType, name, value string) string {
	if c.ShouldRedactConfig(rt, name) {
		return Redacted
	}
	return value
}

// TestConfigurationImageNode reproduces ConfigurationImageNodeTest's
// testNonSecretChild and testSecretChild.
func TestConfigurationImageNode(t *testing.T) {
	s := NewSchema(map[image.ConfigType]map[string]Type{
		ResourceBroker: {"non.secret": String, "also.non.secret": String, "secret.config": Password},
	})
	n := Normal(s)
	if got := printConfig(n, ResourceBroker, "non.secret", "baaz"); got != "baaz" {
		t.Errorf("non.secret printed %q, want baaz", got)
	}
	if got := printConfig(n, ResourceBroker, "secret.config", "123"); got != "[redacted]" {
		t.Errorf("secret.config printed %q, want [redacted]", got)
	}
}

func TestKafkaSchemaPasswords(t *testing.T) {
	want := []string{
		"delegation.token.secret.key",
		"sasl.jaas.config",
		"sasl.oauthbearer.assertion.private.key.passphrase", // 4.1+
		"sasl.oauthbearer.client.credentials.client.secret", // 4.1+
		"ssl.key.password",
		"ssl.keystore.certificate.chain",
		"ssl.keystore.key",
		"ssl.keystore.password",
		"ssl.truststore.certificates",
		"ssl.truststore.password",
	}
	var got []string
	for _, e := range brokerConfigs {
		if e.typ == Password {
			got = append(got, e.name)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("BROKER PASSWORD configs:\n got %q\nwant %q", got, want)
	}
	for _, name := range want {
		if !IsSensitive(ResourceBroker, name) || !Normal(nil).ShouldRedactConfig(ResourceBroker, name) {
			t.Errorf("%s not redacted", name)
		}
		if typ, ok := ConfigType(ResourceBroker, name); !ok || typ != Password {
			t.Errorf("ConfigType(BROKER, %s) = %v, %v; want PASSWORD, true", name, typ, ok)
		}
	}
	for _, e := range topicConfigs {
		if e.typ == Password {
			t.Errorf("TOPIC config %s is PASSWORD; Kafka has none", e.name)
		}
	}
}

func TestKafkaSchemaTables(t *testing.T) {
	// Sizes of the union of Kafka 4.0.0 (306 broker, 33 topic), 4.1.1 (336,
	// 34) and 4.2.0 (341, 34), 345 and 34, plus the names Kafka 4.3.1 and the
	// 4.4 branch add (21 broker names of 4.3, 11 of 4.4; 3 topic names of
	// 4.4): a changed count means an edited table.
	if len(brokerConfigs) != 377 || len(topicConfigs) != 37 {
		t.Errorf("tables hold %d broker and %d topic configs, want 377 and 37", len(brokerConfigs), len(topicConfigs))
	}
	for rt, tab := range map[string][]entry{"broker": brokerConfigs[:], "topic": topicConfigs[:]} {
		seen := map[string]bool{}
		for _, e := range tab {
			if seen[e.name] {
				t.Errorf("%s table: %q twice", rt, e.name)
			}
			seen[e.name] = true
			if e.typ < Boolean || e.typ > Password {
				t.Errorf("%s table: %q has no type", rt, e.name)
			}
		}
	}
	if n := len(KafkaSchema.Names(ResourceBroker)); n != len(brokerConfigs) {
		t.Errorf("KafkaSchema knows %d broker names, want %d", n, len(brokerConfigs))
	}
}

// TestKafkaSchemaKnown checks common configs are known with the right type,
// so Normal prints their values.
func TestKafkaSchemaKnown(t *testing.T) {
	tests := []struct {
		rt   image.ConfigType
		name string
		typ  Type
	}{
		{ResourceTopic, "cleanup.policy", List},
		{ResourceTopic, "retention.ms", Long},
		{ResourceTopic, "retention.bytes", Long},
		{ResourceTopic, "min.insync.replicas", Int},
		{ResourceTopic, "segment.bytes", Int},
		{ResourceTopic, "compression.type", String},
		{ResourceTopic, "min.cleanable.dirty.ratio", Double},
		{ResourceTopic, "unclean.leader.election.enable", Boolean},
		{ResourceTopic, "leader.replication.throttled.replicas", List},
		{ResourceTopic, "remote.storage.enable", Boolean},
		{ResourceBroker, "num.io.threads", Int},
		{ResourceBroker, "num.network.threads", Int},
		{ResourceBroker, "min.insync.replicas", Int},
		{ResourceBroker, "log.retention.hours", Int},
		{ResourceBroker, "log.retention.ms", Long},
		{ResourceBroker, "log.cleaner.threads", Int},
		{ResourceBroker, "log.cleanup.policy", List},
		{ResourceBroker, "log.dirs", List},
		{ResourceBroker, "message.max.bytes", Int},
		{ResourceBroker, "node.id", Int},
		{ResourceBroker, "process.roles", List},
		{ResourceBroker, "controller.quorum.voters", List},
		{ResourceBroker, "auto.create.topics.enable", Boolean},
		{ResourceBroker, "ssl.keystore.type", String},
		{ResourceBroker, "ssl.keystore.location", String},
		{ResourceBroker, "ssl.client.auth", String},
		{ResourceBroker, "sasl.enabled.mechanisms", List},
		{ResourceBroker, "sasl.mechanism.inter.broker.protocol", String},
		{ResourceBroker, "principal.builder.class", Class},
		{ResourceBroker, "authorizer.class.name", String},
		{ResourceBroker, "metric.reporters", List},
		{ResourceBroker, "remote.log.storage.system.enable", Boolean},
		{ResourceBroker, "group.share.max.groups", Short}, // 4.0 only
		{ResourceBroker, "config.providers", List},        // 4.2+
		{ResourceBroker, "unstable.api.versions.enable", Boolean},
	}
	for _, tt := range tests {
		typ, ok := ConfigType(tt.rt, tt.name)
		if !ok || typ != tt.typ {
			t.Errorf("ConfigType(%d, %s) = %v, %v; want %v, true", tt.rt, tt.name, typ, ok, tt.typ)
		}
		if IsSensitive(tt.rt, tt.name) || Normal(nil).ShouldRedactConfig(tt.rt, tt.name) {
			t.Errorf("%d %s redacted by Normal", tt.rt, tt.name)
		}
		if !Strict.ShouldRedactConfig(tt.rt, tt.name) {
			t.Errorf("%d %s not redacted by Strict", tt.rt, tt.name)
		}
		if Disabled.ShouldRedactConfig(tt.rt, tt.name) {
			t.Errorf("%d %s redacted by Disabled", tt.rt, tt.name)
		}
	}
}

// TestKafkaSchemaUnknownRedacted covers names Kafka 4.x's schema does not
// know, which Normal therefore redacts.
func TestKafkaSchemaUnknownRedacted(t *testing.T) {
	tests := []struct {
		rt   image.ConfigType
		name string
		why  string
	}{
		{ResourceBroker, "no.such.config", "never defined"},
		{ResourceTopic, "no.such.config", "never defined"},
		{ResourceTopic, "ssl.keystore.password", "a broker config, not a topic one"},
		{ResourceBroker, "retention.ms", "a topic config, not a broker one"},
		// KafkaConfigSchema matches names exactly; KafkaConfig.configDef has
		// no listener-prefixed names, so every listener override is unknown,
		// whether the unprefixed config is a password or not.
		{ResourceBroker, "listener.name.internal.ssl.keystore.password", "listener override"},
		{ResourceBroker, "listener.name.sasl_ssl.plain.sasl.jaas.config", "listener override"},
		{ResourceBroker, "listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config", "listener override"},
		{ResourceBroker, "listener.name.external.ssl.keystore.type", "listener override of a STRING"},
		// DynamicConfig.Broker adds these to the broker's dynamic ConfigDef,
		// but KafkaRaftServer's schema takes KafkaConfig.configDef alone.
		{ResourceBroker, "leader.replication.throttled.rate", "dynamic-only broker quota"},
		{ResourceBroker, "follower.replication.throttled.rate", "dynamic-only broker quota"},
		{ResourceBroker, "replica.alter.log.dirs.io.max.bytes.per.second", "dynamic-only broker quota"},
		{ResourceBroker, "rsm.config.some.key", "plugin-prefixed"},
		// Removed in Kafka 4.0.
		{ResourceBroker, "zookeeper.connect", "ZooKeeper, removed in 4.0"},
		{ResourceBroker, "password.encoder.secret", "ZooKeeper-era PASSWORD, removed in 4.0"},
		{ResourceBroker, "inter.broker.protocol.version", "removed in 4.0"},
		{ResourceTopic, "message.timestamp.difference.max.ms", "removed in 4.0"},
		{ResourceTopic, "message.format.version", "removed in 4.0"},
		// Resource types KafkaRaftServer gives no ConfigDef.
		{ResourceBrokerLogger, "kafka.server.ReplicaManager", "BROKER_LOGGER"},
		{ResourceClientMetrics, "metrics", "CLIENT_METRICS"},
		{ResourceClientMetrics, "interval.ms", "CLIENT_METRICS"},
		{ResourceGroup, "consumer.session.timeout.ms", "GROUP"},
		{ResourceUnknown, "retention.ms", "UNKNOWN"},
		{99, "retention.ms", "no such resource type"},
	}
	for _, tt := range tests {
		if _, ok := ConfigType(tt.rt, tt.name); ok {
			t.Errorf("ConfigType(%d, %s) known; want unknown (%s)", tt.rt, tt.name, tt.why)
		}
		if !IsSensitive(tt.rt, tt.name) || !Normal(nil).ShouldRedactConfig(tt.rt, tt.name) {
			t.Errorf("%d %s not redacted by Normal (%s)", tt.rt, tt.name, tt.why)
		}
		if !Strict.ShouldRedactConfig(tt.rt, tt.name) || Disabled.ShouldRedactConfig(tt.rt, tt.name) {
			t.Errorf("%d %s: Strict/Disabled wrong", tt.rt, tt.name)
		}
	}
}

func TestNewSchemaCopies(t *testing.T) {
	defs := map[image.ConfigType]map[string]Type{ResourceTopic: {"a": String}}
	s := NewSchema(defs)
	defs[ResourceTopic]["a"] = Password
	defs[ResourceTopic]["b"] = String
	if typ, _ := s.ConfigType(ResourceTopic, "a"); typ != String {
		t.Errorf("schema changed with its input: a is %v", typ)
	}
	if _, ok := s.ConfigType(ResourceTopic, "b"); ok {
		t.Error("schema changed with its input: b is known")
	}
}

func TestTypeString(t *testing.T) {
	want := []string{"BOOLEAN", "STRING", "INT", "SHORT", "LONG", "DOUBLE", "LIST", "CLASS", "PASSWORD"}
	for i, w := range want {
		if got := Type(i + 1).String(); got != w {
			t.Errorf("Type(%d) = %s, want %s", i+1, got, w)
		}
	}
	if got := Type(0).String(); got != "Type(0)" {
		t.Errorf("Type(0) = %s", got)
	}
	if !Password.Sensitive() || String.Sensitive() || Type(0).Sensitive() {
		t.Error("only PASSWORD is sensitive")
	}
}

func ExampleNormal() {
	c := Normal(nil) // Kafka 4.x's broker and topic ConfigDefs
	fmt.Println(c.ShouldRedactConfig(ResourceTopic, "retention.ms"))
	fmt.Println(c.ShouldRedactConfig(ResourceBroker, "ssl.keystore.password"))
	fmt.Println(c.ShouldRedactConfig(ResourceBroker, "listener.name.internal.ssl.keystore.password"))
	fmt.Println(c.ShouldRedactScram(), c.ShouldRedactDelegationToken())
	// Output:
	// false
	// true
	// true
	// true true
}

func ExampleConfigType() {
	fmt.Println(ConfigType(ResourceBroker, "num.io.threads"))
	fmt.Println(ConfigType(ResourceBroker, "sasl.jaas.config"))
	fmt.Println(ConfigType(ResourceTopic, "no.such.config"))
	// Output:
	// INT true
	// PASSWORD true
	// Type(0) false
}

func ExampleStrict() {
	value := "604800000"
	if Strict.ShouldRedactConfig(ResourceTopic, "retention.ms") {
		value = Redacted
	}
	fmt.Println(value)
	// Output: [redacted]
}
