// Package config resolves configs as a Kafka 4.4 broker does: Kafka's
// config definitions as data (every broker, topic, group and client-metrics
// config: type, default, validator, update mode, broker synonyms), the
// effective broker config as DynamicBrokerConfig builds it from the static
// config and the image's dynamic broker configs, the effective topic config
// as LogConfig.fromProps builds it over that, and DescribeConfigs answers as
// ConfigHelper gives them.
//
// A broker's effective config is built in Kafka's order:
//
//  1. the static config (server.properties) over Kafka's defaults;
//  2. the cluster-wide dynamic default (broker resource ""), with the keys
//     that cannot be dynamic, security configs without a listener prefix,
//     per-broker-only keys and values of the wrong type dropped
//     (DynamicBrokerConfig.fromPersistentProps);
//  3. the per-broker dynamic config (broker resource "<id>"), filtered the
//     same way except that per-broker keys are allowed.
//
// Each dynamic key replaces its synonyms of a lower layer (log.retention.ms
// replaces a static log.retention.hours: DynamicBrokerConfig.overrideProps).
// A topic's effective config is then each topic config from the topic's own
// dynamic config, else from the broker's effective value of its synonym
// (KafkaConfig.extractLogConfigMap), else Kafka's topic default.
//
// A broker builds its Broker once from its static config and applies each
// new image to it; the result is immutable and serves any number of
// readers:
//
//	broker, err := config.NewBroker(serverProperties) // a *ValueError names a bad key
//	b := broker.Apply(img)                            // b.Ignored() lists what Kafka drops
//	vals, err := b.Topic(img, "orders")               // the log's effective config
//	resp := b.DescribeConfigs(img, req, authorizer, authz.Context{Principal: p})
//
// The definitions are generated (zz_defs.go) by internal/configgen from
// the oracle harness's dump of Kafka's ConfigDefs; documentation strings are
// not copied, so DescribeConfigs answers null documentation.
package config

//go:generate go run ../../internal/configgen
