package deltatest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
)

// dynamicFlag says how a dynamic broker config may be set.
type dynamicFlag uint8

const (
	// perBroker: only on one broker's resource, never at the cluster
	// default (DynamicBrokerConfig.PER_BROKER_CONFIGS).
	perBroker dynamicFlag = 1 << iota
	// listenerOnly: only with a listener prefix,
	// listener.name.<listener>.<name> (DYNAMIC_SECURITY_CONFIGS).
	listenerOnly
)

// dynamicConfig is one dynamic broker config and its restrictions.
type dynamicConfig struct {
	name string
	flag dynamicFlag
}

// lookupDynamic finds name in dynamicBrokerConfigs (sorted by name).
func lookupDynamic(name string) (dynamicFlag, bool) {
	i, ok := slices.BinarySearchFunc(dynamicBrokerConfigs[:], name, func(c dynamicConfig, n string) int { return strings.Compare(c.name, n) })
	if !ok {
		return 0, false
	}
	return dynamicBrokerConfigs[i].flag, true
}

// dynamicBrokerConfigs is Kafka 4.4's DynamicConfig.Broker.names(): the
// broker configs that may be changed dynamically (DynamicBrokerConfig
// .ALL_DYNAMIC_CONFIGS and the broker quota configs), as Kafka's classes list
// them, with their restrictions, sorted by name.
var dynamicBrokerConfigs = [...]dynamicConfig{
	{"background.threads", 0},
	{"compression.gzip.level", 0},
	{"compression.lz4.level", 0},
	{"compression.type", 0},
	{"compression.zstd.level", 0},
	{"config.providers", 0},
	{"cordoned.log.dirs", perBroker},
	{"errors.deadletterqueue.auto.create.topics.enable", 0},
	{"errors.deadletterqueue.topic.name.prefix", 0},
	{"follower.fetch.last.tiered.offset.enable", 0},
	{"follower.replication.throttled.rate", 0},
	{"group.consumer.assignment.interval.ms", 0},
	{"group.consumer.assignor.offload.enable", 0},
	{"group.coordinator.cached.buffer.max.bytes", 0},
	{"group.share.assignment.interval.ms", 0},
	{"group.share.assignor.offload.enable", 0},
	{"group.streams.assignment.interval.ms", 0},
	{"group.streams.assignor.offload.enable", 0},
	{"leader.replication.throttled.rate", 0},
	{"listener.security.protocol.map", perBroker},
	{"listeners", perBroker},
	{"log.cleaner.backoff.ms", 0},
	{"log.cleaner.dedupe.buffer.size", 0},
	{"log.cleaner.delete.retention.ms", 0},
	{"log.cleaner.io.buffer.load.factor", 0},
	{"log.cleaner.io.buffer.size", 0},
	{"log.cleaner.io.max.bytes.per.second", 0},
	{"log.cleaner.max.compaction.lag.ms", 0},
	{"log.cleaner.min.cleanable.ratio", 0},
	{"log.cleaner.min.compaction.lag.ms", 0},
	{"log.cleaner.threads", 0},
	{"log.cleanup.policy", 0},
	{"log.flush.interval.messages", 0},
	{"log.flush.interval.ms", 0},
	{"log.index.interval.bytes", 0},
	{"log.index.size.max.bytes", 0},
	{"log.local.retention.bytes", 0},
	{"log.local.retention.ms", 0},
	{"log.message.timestamp.after.max.ms", 0},
	{"log.message.timestamp.before.max.ms", 0},
	{"log.message.timestamp.type", 0},
	{"log.preallocate", 0},
	{"log.remote.copy.lag.bytes", 0},
	{"log.remote.copy.lag.ms", 0},
	{"log.retention.bytes", 0},
	{"log.retention.ms", 0},
	{"log.roll.jitter.ms", 0},
	{"log.roll.ms", 0},
	{"log.segment.bytes", 0},
	{"log.segment.delete.delay.ms", 0},
	{"max.connection.creation.rate", 0},
	{"max.connections", 0},
	{"max.connections.per.ip", 0},
	{"max.connections.per.ip.overrides", 0},
	{"message.max.bytes", 0},
	{"metric.reporters", 0},
	{"min.insync.replicas", 0},
	{"num.io.threads", 0},
	{"num.network.threads", 0},
	{"num.recovery.threads.per.data.dir", 0},
	{"num.replica.fetchers", 0},
	{"principal.builder.class", perBroker},
	{"producer.id.expiration.ms", 0},
	{"remote.fetch.max.wait.ms", 0},
	{"remote.list.offsets.request.timeout.ms", 0},
	{"remote.log.index.file.cache.total.size.bytes", 0},
	{"remote.log.manager.copier.thread.pool.size", 0},
	{"remote.log.manager.copy.max.bytes.per.second", 0},
	{"remote.log.manager.expiration.thread.pool.size", 0},
	{"remote.log.manager.fetch.max.bytes.per.second", 0},
	{"remote.log.manager.follower.thread.pool.size", 0},
	{"remote.log.reader.threads", 0},
	{"replica.alter.log.dirs.io.max.bytes.per.second", 0},
	{"sasl.enabled.mechanisms", perBroker},
	{"sasl.jaas.config", perBroker},
	{"sasl.kerberos.kinit.cmd", perBroker},
	{"sasl.kerberos.min.time.before.relogin", perBroker},
	{"sasl.kerberos.principal.to.local.rules", perBroker},
	{"sasl.kerberos.service.name", perBroker},
	{"sasl.kerberos.ticket.renew.jitter", perBroker},
	{"sasl.kerberos.ticket.renew.window.factor", perBroker},
	{"sasl.login.refresh.buffer.seconds", perBroker},
	{"sasl.login.refresh.min.period.seconds", perBroker},
	{"sasl.login.refresh.window.factor", perBroker},
	{"sasl.login.refresh.window.jitter", perBroker},
	{"sasl.mechanism.inter.broker.protocol", perBroker},
	{"share.coordinator.cached.buffer.max.bytes", 0},
	{"ssl.cipher.suites", perBroker},
	{"ssl.client.auth", perBroker},
	{"ssl.enabled.protocols", perBroker},
	{"ssl.endpoint.identification.algorithm", perBroker},
	{"ssl.engine.factory.class", perBroker},
	{"ssl.key.password", perBroker | listenerOnly},
	{"ssl.keymanager.algorithm", perBroker},
	{"ssl.keystore.certificate.chain", perBroker | listenerOnly},
	{"ssl.keystore.key", perBroker | listenerOnly},
	{"ssl.keystore.location", perBroker | listenerOnly},
	{"ssl.keystore.password", perBroker | listenerOnly},
	{"ssl.keystore.type", perBroker | listenerOnly},
	{"ssl.protocol", perBroker},
	{"ssl.provider", perBroker},
	{"ssl.secure.random.implementation", perBroker},
	{"ssl.trustmanager.algorithm", perBroker},
	{"ssl.truststore.certificates", perBroker | listenerOnly},
	{"ssl.truststore.location", perBroker | listenerOnly},
	{"ssl.truststore.password", perBroker | listenerOnly},
	{"ssl.truststore.type", perBroker | listenerOnly},
	{"transaction.partition.verification.enable", 0},
	{"unclean.leader.election.enable", 0},
}

// checkBrokerConfigs is the validation a broker makes of an
// IncrementalAlterConfigs of a BROKER resource before forwarding it to the
// controller (ConfigAdminManager.validateBrokerConfigChange →
// DynamicBrokerConfig.validateConfigs): a config Kafka knows
// (KafkaConfig.configDef) that is not dynamic, a security config without a
// listener prefix, and a per-broker config at the cluster default are
// refused with INVALID_REQUEST. Values are not parsed.
func checkBrokerConfigs(name string, changes map[string]*string) error {
	var nonDynamic, unprefixed, perBrokerAtDefault []string
	for k, v := range changes {
		if v == nil {
			continue
		}
		r := brokerConfigRuleOf(k)
		if r.nonDynamic {
			nonDynamic = append(nonDynamic, k)
		}
		if r.listenerOnly {
			unprefixed = append(unprefixed, k)
		}
		if name == "" && r.perBroker {
			perBrokerAtDefault = append(perBrokerAtDefault, k)
		}
	}
	for _, c := range []struct {
		names []string
		msg   string
	}{
		{nonDynamic, "Cannot update these configs dynamically"},
		{unprefixed, "These security configs can be dynamically updated only per-listener using the listener prefix"},
		{perBrokerAtDefault, "Cannot update these configs at default cluster level, broker id must be specified"},
	} {
		if len(c.names) > 0 {
			slices.Sort(c.names)
			return fmt.Errorf("%w: %s: %v", ErrInvalidRequest, c.msg, c.names)
		}
	}
	return nil
}

// configDefExtra are names of Kafka 4.4's KafkaConfig ConfigDef that the
// schema of package image/redact (which the simulator reads the ConfigDef's
// names from) does not list; TestOracleDynamicBrokerConfigs finds any other.
var configDefExtra = [...]string{
	"controller.quorum.fetch.max.bytes",
	"controller.quorum.fetch.snapshot.max.bytes",
	"remote.log.index.file.cache.ttl.ms",
	"sasl.oauthbearer.allow.unverified.audience",
	"sasl.oauthbearer.allow.unverified.issuer",
}

// brokerConfigRule is what DynamicBrokerConfig's checks say of one name:
// nonDynamicConfigs, securityConfigsWithoutListenerPrefix, perBrokerConfigs.
type brokerConfigRule struct{ nonDynamic, listenerOnly, perBroker bool }

func brokerConfigRuleOf(k string) brokerConfigRule {
	flag, dynamic := lookupDynamic(k)
	_, known := redact.ConfigType(image.ConfigBroker, k)
	known = known || slices.Contains(configDefExtra[:], k)
	return brokerConfigRule{
		nonDynamic:   known && !dynamic,
		listenerOnly: dynamic && flag&listenerOnly != 0,
		perBroker:    dynamic && flag&perBroker != 0 || listenerPrefixedPerBroker(k),
	}
}

// listenerPrefixedPerBroker: listener.name.<listener>.<config> is per-broker
// unless <config> is one of the cluster-level listener configs
// (DynamicBrokerConfig.perBrokerConfigs).
func listenerPrefixedPerBroker(k string) bool {
	rest, ok := strings.CutPrefix(k, "listener.name.")
	if !ok {
		return false
	}
	i := strings.IndexByte(rest, '.')
	if i < 0 {
		return false
	}
	switch rest[i+1:] {
	case "max.connections", "max.connection.creation.rate", "num.network.threads":
		return false
	}
	return true
}
