// Package redact decides which metadata values a dump hides, as Apache
// Kafka's metadata image printers do, and knows the config names and
// ConfigDef types a Kafka 4.x node knows.
//
// # What Kafka does
//
// Kafka's printers of the metadata image (the image/node classes) ask a
// MetadataNodeRedactionCriteria three questions and print "[redacted]"
// (Redacted) for every value the answer hides:
//
//   - SCRAM credentials: salt, stored key, server key and iteration count.
//   - Delegation tokens: token id, owner, requester, renewers and the issue,
//     max and expiry timestamps.
//   - Configs: the value of a config, given its resource type and name.
//
// Kafka has three criteria, reproduced here:
//
//   - Strict hides SCRAM data, token data and every config value. It is the
//     default of Kafka's NodeStringifier.
//   - Normal hides SCRAM data, token data and the values of the configs a
//     KafkaConfigSchema calls sensitive: PASSWORD-typed configs, and configs it
//     does not know ("sensitive, or we don't know").
//   - Disabled hides nothing. kafka-metadata-shell prints with it
//     (ShellNodePrinter), and kafka-dump-log --cluster-metadata-decoder does
//     not redact either.
//
// The schema a Kafka 4.x node builds (KafkaRaftServer.configSchema) knows
// two resource types: BROKER, from KafkaConfig.configDef, and TOPIC, from
// LogConfig.configDefCopy. KafkaSchema is that schema for Kafka 4.0-4.4.
// Because Kafka matches names exactly, Normal hides the value of every
// listener override (listener.name.<listener>.ssl.keystore.password, but also
// listener.name.<listener>.ssl.keystore.type), of every BROKER_LOGGER,
// CLIENT_METRICS and GROUP config, and of configs removed in Kafka 4.0.
// Unknown names thus err on the side of hiding.
//
// # Use
//
// A dump tool picks one Criteria (Normal(nil) hides secrets and unknowns,
// Strict hides all values, Disabled is for -unredacted) and asks it before
// printing each value:
//
//	c := redact.Normal(nil)
//	value := rec.Value
//	if c.ShouldRedactConfig(rec.ResourceType, rec.Name) {
//		value = redact.Redacted
//	}
//
// image.WriteJSON and image.Diff take the config question as
// WriteJSONOptions.Sensitive and DiffOptions.Sensitive: left nil they hide every
// config value (Strict, Kafka's default); redact.IsSensitive gives Normal.
//
// ConfigType reports a config's ConfigDef type where KafkaSchema knows it.
package redact
