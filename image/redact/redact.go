package redact

import "github.com/kmeta-go/kmeta/image"

// Redacted is the text Kafka's metadata image printers output in place of a
// redacted value (ConfigurationImageNode, ScramCredentialDataNode,
// DelegationTokenDataNode). Kafka's RecordRedactor, which formats records for
// the controller's log, uses "(redacted)" instead; kmeta's dump tool follows
// the image printers.
const Redacted = "[redacted]"

// Config resource types, Kafka's ConfigResource.Type: the image's
// image.ConfigType values under the names this package used first.
const (
	ResourceUnknown       = image.ConfigUnknown
	ResourceTopic         = image.ConfigTopic
	ResourceBroker        = image.ConfigBroker
	ResourceBrokerLogger  = image.ConfigBrokerLogger
	ResourceClientMetrics = image.ConfigClientMetrics
	ResourceGroup         = image.ConfigGroup
)

// Criteria decides what a printer of metadata hides. It is the Go form of
// Kafka's MetadataNodeRedactionCriteria; the method names are Kafka's.
//
// Implementations must be safe for concurrent use; the ones in this package
// are immutable.
type Criteria interface {
	// ShouldRedactScram reports whether SCRAM credential data is hidden:
	// salt, stored key, server key and iteration count (Kafka's
	// ScramCredentialDataNode). The user name and the mechanism name are
	// not data but the path to it, and are never hidden.
	ShouldRedactScram() bool

	// ShouldRedactDelegationToken reports whether delegation token data is
	// hidden: token id, owner, requester, renewers, issue, max and expiry
	// timestamps, i.e. every field of the token that Kafka's
	// DelegationTokenDataNode prints. (The token id still names the node in
	// the image tree; Kafka prints no HMAC, which records do not carry.)
	ShouldRedactDelegationToken() bool

	// ShouldRedactConfig reports whether the value of the config name of a
	// resource of resourceType (a ConfigRecord ResourceType) is hidden.
	ShouldRedactConfig(resourceType image.ConfigType, name string) bool
}

// Strict hides all SCRAM data, all delegation token data and the value of
// every config, sensitive or not (Kafka's MetadataNodeRedactionCriteria.Strict,
// the criteria of Kafka's NodeStringifier when none is given).
var Strict Criteria = strict{}

// Disabled hides nothing (Kafka's MetadataNodeRedactionCriteria.Disabled, the
// criteria of kafka-metadata-shell's ShellNodePrinter).
var Disabled Criteria = disabled{}

// Normal returns criteria that hide all SCRAM data, all delegation token data,
// and the values of configs that schema reports as sensitive: PASSWORD-typed
// configs and configs schema does not know (Kafka's
// MetadataNodeRedactionCriteria.Normal over a KafkaConfigSchema). A nil schema
// means KafkaSchema.
func Normal(schema *Schema) Criteria {
	if schema == nil {
		schema = KafkaSchema
	}
	return normal{schema}
}

type strict struct{}

func (strict) ShouldRedactScram() bool                          { return true }
func (strict) ShouldRedactDelegationToken() bool                { return true }
func (strict) ShouldRedactConfig(image.ConfigType, string) bool { return true }
func (strict) String() string                                   { return "strict" }

type disabled struct{}

func (disabled) ShouldRedactScram() bool                          { return false }
func (disabled) ShouldRedactDelegationToken() bool                { return false }
func (disabled) ShouldRedactConfig(image.ConfigType, string) bool { return false }
func (disabled) String() string                                   { return "disabled" }

type normal struct{ schema *Schema }

func (normal) ShouldRedactScram() bool           { return true }
func (normal) ShouldRedactDelegationToken() bool { return true }
func (n normal) ShouldRedactConfig(resourceType image.ConfigType, name string) bool {
	return n.schema.IsSensitive(resourceType, name)
}
func (normal) String() string { return "normal" }

// IsSensitive reports whether KafkaSchema treats the config as sensitive:
// PASSWORD-typed, or unknown for its resource type. It is what Normal(nil)
// redacts.
func IsSensitive(resourceType image.ConfigType, name string) bool {
	return KafkaSchema.IsSensitive(resourceType, name)
}

// ConfigType returns the ConfigDef type KafkaSchema records for the config,
// and whether it knows the config at all.
func ConfigType(resourceType image.ConfigType, name string) (Type, bool) {
	return KafkaSchema.ConfigType(resourceType, name)
}
