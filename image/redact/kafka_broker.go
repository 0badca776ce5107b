package redact

// brokerConfigs is KafkaConfig.configDef, the ConfigDef Kafka's
// KafkaRaftServer gives KafkaConfigSchema for BROKER resources. In Kafka 4.x
// that is AbstractKafkaConfig.CONFIG_DEF, the merge of the ConfigDefs named in
// the block comments below (in Kafka's merge order). Names and types were read
// from the source of the Kafka tags 4.0.0, 4.1.1, 4.2.0 and 4.3.1 and of the
// 4.4 branch (4.4.0-SNAPSHOT, August 2026); entries are sorted within a
// block, and each sits in the block of the newest version that defines it.
//
// Entry notes: "4.0 only" or "4.1+" ... "4.4+" when not every version defines
// the name; "internal" when Kafka defines it with defineInternal (known to the
// ConfigDef, absent from Kafka's documentation); "X in 4.0,4.1; Y in 4.2" when
// the type changed, in which case the entry carries the newest type.
//
// Not here, because KafkaConfig.configDef does not define them, so Kafka's
// schema does not know them and their values are redacted: listener-prefixed
// overrides (listener.name.<listener>.ssl.keystore.password,
// listener.name.<listener>.<mechanism>.sasl.jaas.config, ...), the broker
// dynamic-only quota configs of DynamicConfig.Broker
// (leader.replication.throttled.rate, follower.replication.throttled.rate,
// replica.alter.log.dirs.io.max.bytes.per.second), plugin-prefixed configs
// (rsm.config.*, rlmm.config.*), and the ZooKeeper-era configs Kafka 4.0
// removed (zookeeper.*, password.encoder.*, inter.broker.protocol.version,
// log.message.format.version, ...).
var brokerConfigs = [...]entry{
	// RemoteLogManagerConfig.configDef()
	{"log.local.retention.bytes", Long},
	{"log.local.retention.ms", Long},
	{"remote.fetch.max.wait.ms", Int},
	{"remote.list.offsets.request.timeout.ms", Long},
	{"remote.log.index.file.cache.total.size.bytes", Long},
	{"remote.log.manager.copier.thread.pool.size", Int},
	{"remote.log.manager.copy.max.bytes.per.second", Long},
	{"remote.log.manager.copy.quota.window.num", Int},
	{"remote.log.manager.copy.quota.window.size.seconds", Int},
	{"remote.log.manager.expiration.thread.pool.size", Int},
	{"remote.log.manager.fetch.max.bytes.per.second", Long},
	{"remote.log.manager.fetch.quota.window.num", Int},
	{"remote.log.manager.fetch.quota.window.size.seconds", Int},
	{"remote.log.manager.follower.thread.pool.size", Int}, // 4.2+
	{"remote.log.manager.task.interval.ms", Long},
	{"remote.log.manager.task.retry.backoff.max.ms", Long}, // internal
	{"remote.log.manager.task.retry.backoff.ms", Long},     // internal
	{"remote.log.manager.task.retry.jitter", Double},       // internal
	{"remote.log.manager.thread.pool.size", Int},
	{"remote.log.metadata.custom.metadata.max.bytes", Int},
	{"remote.log.metadata.manager.class.name", String},
	{"remote.log.metadata.manager.class.path", String},
	{"remote.log.metadata.manager.impl.prefix", String},
	{"remote.log.metadata.manager.listener.name", String},
	{"remote.log.reader.max.pending.tasks", Int},
	{"remote.log.reader.threads", Int},
	{"remote.log.storage.manager.class.name", String},
	{"remote.log.storage.manager.class.path", String},
	{"remote.log.storage.manager.impl.prefix", String},
	{"remote.log.storage.system.enable", Boolean},

	// ServerConfigs.CONFIG_DEF
	{"authorizer.class.name", String},
	{"background.threads", Int},
	{"broker.id", Int},
	{"broker.rack", String},
	{"compression.gzip.level", Int},
	{"compression.lz4.level", Int},
	{"compression.type", String},
	{"compression.zstd.level", Int},
	{"config.providers", List}, // 4.2+
	{"controlled.shutdown.enable", Boolean},
	{"delete.topic.enable", Boolean},
	{"early.start.listeners", List}, // STRING in 4.0,4.1; LIST in 4.2
	{"fetch.max.bytes", Int},
	{"max.incremental.fetch.session.cache.slots", Int},
	{"max.request.partition.size.limit", Int},
	{"message.max.bytes", Int},
	{"num.io.threads", Int},
	{"num.replica.alter.log.dirs.threads", Int},
	{"request.timeout.ms", Int},
	{"socket.connection.setup.timeout.max.ms", Long},
	{"socket.connection.setup.timeout.ms", Long},
	{"unstable.api.versions.enable", Boolean},     // internal
	{"unstable.feature.versions.enable", Boolean}, // internal

	// KRaftConfigs.CONFIG_DEF
	{"broker.heartbeat.interval.ms", Int},
	{"broker.session.timeout.ms", Int},
	{"controller.listener.names", List},                      // STRING in 4.0,4.1; LIST in 4.2
	{"controller.performance.always.log.threshold.ms", Long}, // internal
	{"controller.performance.sample.period.ms", Long},        // internal
	{"initial.broker.registration.timeout.ms", Int},
	{"metadata.log.segment.min.bytes", Int}, // 4.0 only, internal
	{"node.id", Int},
	{"process.roles", List},
	{"sasl.mechanism.controller.protocol", String},
	{"server.max.startup.time.ms", Long}, // internal

	// MetadataLogConfig.CONFIG_DEF (4.1+; in KRaftConfigs before)
	{"internal.metadata.delete.delay.millis", Long},    // 4.1+, internal
	{"internal.metadata.log.segment.bytes", Int},       // 4.1+, internal
	{"internal.metadata.max.batch.size.in.bytes", Int}, // 4.1+, internal
	{"internal.metadata.max.fetch.size.in.bytes", Int}, // 4.1+, internal
	{"metadata.log.dir", String},
	{"metadata.log.max.record.bytes.between.snapshots", Long},
	{"metadata.log.max.snapshot.interval.ms", Long},
	{"metadata.log.segment.bytes", Int},
	{"metadata.log.segment.ms", Long},
	{"metadata.max.idle.interval.ms", Int},
	{"metadata.max.retention.bytes", Long},
	{"metadata.max.retention.ms", Long},

	// SocketServerConfigs.CONFIG_DEF
	{"advertised.listeners", List}, // STRING in 4.0,4.1; LIST in 4.2
	{"connection.failed.authentication.delay.ms", Int},
	{"connections.max.idle.ms", Long},
	{"listener.security.protocol.map", String},
	{"listeners", List}, // STRING in 4.0,4.1; LIST in 4.2
	{"max.connection.creation.rate", Int},
	{"max.connections", Int},
	{"max.connections.per.ip", Int},
	{"max.connections.per.ip.overrides", String},
	{"num.network.threads", Int},
	{"queued.max.request.bytes", Long},
	{"queued.max.requests", Int},
	{"socket.listen.backlog.size", Int},
	{"socket.receive.buffer.bytes", Int},
	{"socket.request.max.bytes", Int},
	{"socket.send.buffer.bytes", Int},

	// ReplicationConfigs.CONFIG_DEF
	{"follower.fetch.last.tiered.offset.enable", Boolean}, // 4.3+
	{"auto.leader.rebalance.enable", Boolean},
	{"controller.socket.timeout.ms", Int},
	{"default.replication.factor", Int},
	{"delete.records.purgatory.purge.interval.requests", Int},
	{"fetch.purgatory.purge.interval.requests", Int},
	{"inter.broker.listener.name", String},
	{"leader.imbalance.check.interval.seconds", Long},
	{"num.replica.fetchers", Int},
	{"producer.purgatory.purge.interval.requests", Int},
	{"replica.fetch.backoff.ms", Int},
	{"replica.fetch.max.bytes", Int},
	{"replica.fetch.min.bytes", Int},
	{"replica.fetch.response.max.bytes", Int},
	{"replica.fetch.wait.max.ms", Int},
	{"replica.high.watermark.checkpoint.interval.ms", Long},
	{"replica.lag.time.max.ms", Long},
	{"replica.selector.class", String},
	{"replica.socket.receive.buffer.bytes", Int},
	{"replica.socket.timeout.ms", Int},
	{"security.inter.broker.protocol", String},
	{"unclean.leader.election.enable", Boolean},
	{"unclean.leader.election.interval.ms", Long}, // internal

	// GroupCoordinatorConfig.CONFIG_DEF (4.1+; five *_CONFIG_DEF parts in 4.0)
	{"errors.deadletterqueue.auto.create.topics.enable", Boolean}, // 4.4+ (KIP-1191)
	{"errors.deadletterqueue.topic.name.prefix", String},          // 4.4+ (KIP-1191)
	{"group.consumer.assignment.interval.ms", Int},                // 4.3+
	{"group.consumer.assignor.offload.enable", Boolean},           // 4.3+, internal
	{"group.consumer.assignors", List},
	{"group.consumer.heartbeat.interval.ms", Int},
	{"group.consumer.max.heartbeat.interval.ms", Int},
	{"group.consumer.max.assignment.interval.ms", Int}, // 4.3+
	{"group.consumer.max.session.timeout.ms", Int},
	{"group.consumer.max.size", Int},
	{"group.consumer.migration.policy", String},
	{"group.consumer.min.assignment.interval.ms", Int}, // 4.3+
	{"group.consumer.min.heartbeat.interval.ms", Int},
	{"group.consumer.min.session.timeout.ms", Int},
	{"group.consumer.regex.refresh.interval.ms", Int}, // 4.1+, internal
	{"group.consumer.session.timeout.ms", Int},
	{"group.coordinator.append.linger.ms", Int},
	{"group.coordinator.background.threads", Int},      // 4.3+
	{"group.coordinator.cached.buffer.max.bytes", Int}, // 4.3+
	{"group.coordinator.new.enable", Boolean},          // 4.0 only, internal
	{"group.coordinator.rebalance.protocols", List},
	{"group.coordinator.threads", Int},
	{"group.initial.rebalance.delay.ms", Int},
	{"group.max.session.timeout.ms", Int},
	{"group.max.size", Int},
	{"group.min.session.timeout.ms", Int},
	{"group.share.assignment.interval.ms", Int},      // 4.3+
	{"group.share.assignor.offload.enable", Boolean}, // 4.3+, internal
	{"group.share.assignors", List},                  // 4.1+
	{"group.share.heartbeat.interval.ms", Int},
	{"group.share.initialize.retry.interval.ms", Int}, // 4.2+, internal
	{"group.share.max.assignment.interval.ms", Int},   // 4.3+
	{"group.share.max.heartbeat.interval.ms", Int},
	{"group.share.max.session.timeout.ms", Int},
	{"group.share.max.size", Int},
	{"group.share.min.assignment.interval.ms", Int}, // 4.3+
	{"group.share.min.heartbeat.interval.ms", Int},
	{"group.share.min.session.timeout.ms", Int},
	{"group.share.session.timeout.ms", Int},
	{"group.streams.acceptable.recovery.lag", Long},            // 4.4+, internal
	{"group.streams.assignment.interval.ms", Int},              // 4.3+
	{"group.streams.assignor.offload.enable", Boolean},         // 4.3+, internal
	{"group.streams.assignors", List},                          // 4.4+
	{"group.streams.heartbeat.interval.ms", Int},               // 4.1+
	{"group.streams.initial.rebalance.delay.ms", Int},          // 4.2+
	{"group.streams.max.assignment.interval.ms", Int},          // 4.3+
	{"group.streams.max.heartbeat.interval.ms", Int},           // 4.1+
	{"group.streams.max.session.timeout.ms", Int},              // 4.1+
	{"group.streams.max.size", Int},                            // 4.1+
	{"group.streams.max.standby.replicas", Int},                // 4.1+
	{"group.streams.max.warmup.replicas", Int},                 // 4.4+, internal
	{"group.streams.min.assignment.interval.ms", Int},          // 4.3+
	{"group.streams.min.heartbeat.interval.ms", Int},           // 4.1+
	{"group.streams.min.session.timeout.ms", Int},              // 4.1+
	{"group.streams.min.task.offset.interval.ms", Int},         // 4.4+, internal
	{"group.streams.num.standby.replicas", Int},                // 4.1+
	{"group.streams.num.warmup.replicas", Int},                 // 4.4+, internal
	{"group.streams.rack.aware.assignment.tags", List},         // 4.4+
	{"group.streams.session.timeout.ms", Int},                  // 4.1+
	{"group.streams.task.offset.interval.ms", Int},             // 4.4+, internal
	{"group.streams.topology.description.plugin.class", Class}, // 4.4+
	{"offset.metadata.max.bytes", Int},
	{"offsets.commit.timeout.ms", Int},
	{"offsets.load.buffer.size", Int},
	{"offsets.retention.check.interval.ms", Long},
	{"offsets.retention.minutes", Int},
	{"offsets.topic.compression.codec", Int},
	{"offsets.topic.num.partitions", Int},
	{"offsets.topic.replication.factor", Short},
	{"offsets.topic.segment.bytes", Int},

	// CleanerConfig.CONFIG_DEF
	{"log.cleaner.backoff.ms", Long},
	{"log.cleaner.dedupe.buffer.size", Long},
	{"log.cleaner.delete.retention.ms", Long},
	{"log.cleaner.enable", Boolean},
	{"log.cleaner.io.buffer.load.factor", Double},
	{"log.cleaner.io.buffer.size", Int},
	{"log.cleaner.io.max.bytes.per.second", Double},
	{"log.cleaner.max.compaction.lag.ms", Long},
	{"log.cleaner.min.cleanable.ratio", Double},
	{"log.cleaner.min.compaction.lag.ms", Long},
	{"log.cleaner.threads", Int},

	// LogConfig.SERVER_CONFIG_DEF (the broker-side log.* configs of ServerLogConfigs)
	{"alter.config.policy.class.name", Class},
	{"auto.create.topics.enable", Boolean},
	{"cordoned.log.dirs", List}, // 4.3+ (KIP-1066), per-broker dynamic
	{"create.topic.policy.class.name", Class},
	{"log.cleanup.policy", List},
	{"log.dir", List}, // STRING in 4.0,4.1; LIST in 4.2
	{"log.dir.failure.timeout.ms", Long},
	{"log.dirs", List}, // STRING in 4.0,4.1; LIST in 4.2
	{"log.flush.interval.messages", Long},
	{"log.flush.interval.ms", Long},
	{"log.flush.offset.checkpoint.interval.ms", Int},
	{"log.flush.scheduler.interval.ms", Long},
	{"log.flush.start.offset.checkpoint.interval.ms", Int},
	{"log.index.interval.bytes", Int},
	{"log.index.size.max.bytes", Int},
	{"log.initial.task.delay.ms", Long}, // internal
	{"log.message.timestamp.after.max.ms", Long},
	{"log.message.timestamp.before.max.ms", Long},
	{"log.message.timestamp.type", String},
	{"log.preallocate", Boolean},
	{"log.retention.bytes", Long},
	{"log.retention.check.interval.ms", Long},
	{"log.retention.hours", Int},
	{"log.retention.minutes", Int},
	{"log.retention.ms", Long},
	{"log.roll.hours", Int},
	{"log.roll.jitter.hours", Int},
	{"log.roll.jitter.ms", Long},
	{"log.roll.ms", Long},
	{"log.segment.bytes", Int},
	{"log.segment.delete.delay.ms", Long},
	{"min.insync.replicas", Int},
	{"num.partitions", Int},
	{"num.recovery.threads.per.data.dir", Int},

	// ShareGroupConfig.CONFIG_DEF
	{"group.share.delivery.count.limit", Int},
	{"group.share.dlq.manager.class.name", String},      // 4.4+ (KIP-1191)
	{"group.share.enable", Boolean},                     // internal
	{"group.share.max.delivery.count.limit", Int},       // 4.3+
	{"group.share.max.groups", Short},                   // 4.0 only
	{"group.share.max.partition.max.record.locks", Int}, // 4.3+
	{"group.share.max.record.lock.duration.ms", Int},
	{"group.share.max.share.sessions", Int},             // 4.1+
	{"group.share.min.delivery.count.limit", Int},       // 4.3+
	{"group.share.min.partition.max.record.locks", Int}, // 4.3+
	{"group.share.min.record.lock.duration.ms", Int},
	{"group.share.partition.max.record.locks", Int},
	{"group.share.persister.class.name", String}, // internal
	{"group.share.record.lock.duration.ms", Int},
	{"share.fetch.max.fetch.records", Int}, // 4.0 only, internal
	{"share.fetch.purgatory.purge.interval.requests", Int},

	// ShareCoordinatorConfig.CONFIG_DEF
	{"share.coordinator.append.linger.ms", Int},
	{"share.coordinator.cached.buffer.max.bytes", Int},             // 4.3+
	{"share.coordinator.cold.partition.snapshot.interval.ms", Int}, // 4.1+, internal
	{"share.coordinator.load.buffer.size", Int},
	{"share.coordinator.snapshot.update.records.per.snapshot", Int},
	{"share.coordinator.state.topic.compression.codec", Int},
	{"share.coordinator.state.topic.min.isr", Short},
	{"share.coordinator.state.topic.num.partitions", Int},
	{"share.coordinator.state.topic.prune.interval.ms", Int}, // internal
	{"share.coordinator.state.topic.replication.factor", Short},
	{"share.coordinator.state.topic.segment.bytes", Int},
	{"share.coordinator.threads", Int},
	{"share.coordinator.write.timeout.ms", Int},

	// TransactionLogConfig.CONFIG_DEF
	{"producer.id.expiration.check.interval.ms", Int}, // internal
	{"producer.id.expiration.ms", Int},
	{"transaction.partition.verification.enable", Boolean},
	{"transaction.state.log.load.buffer.size", Int},
	{"transaction.state.log.min.isr", Int},
	{"transaction.state.log.num.partitions", Int},
	{"transaction.state.log.replication.factor", Short},
	{"transaction.state.log.segment.bytes", Int},

	// TransactionStateManagerConfig.CONFIG_DEF
	{"transaction.abort.timed.out.transaction.cleanup.interval.ms", Int},
	{"transaction.max.timeout.ms", Int},
	{"transaction.remove.expired.transaction.cleanup.interval.ms", Int},
	{"transaction.two.phase.commit.enable", Boolean}, // 4.1+
	{"transactional.id.expiration.ms", Int},

	// QuorumConfig.CONFIG_DEF
	{"controller.quorum.append.linger.ms", Int},
	{"controller.quorum.auto.join.enable", Boolean}, // 4.2+
	{"controller.quorum.bootstrap.servers", List},
	{"controller.quorum.election.backoff.max.ms", Int},
	{"controller.quorum.election.timeout.ms", Int},
	{"controller.quorum.fetch.timeout.ms", Int},
	{"controller.quorum.request.timeout.ms", Int},
	{"controller.quorum.retry.backoff.ms", Int},
	{"controller.quorum.voters", List},

	// MetricConfigs.CONFIG_DEF
	{"kafka.metrics.polling.interval.secs", Int},
	{"kafka.metrics.reporters", List},
	{"metric.reporters", List},
	{"metrics.num.samples", Int},
	{"metrics.recording.level", String},
	{"metrics.sample.window.ms", Long},
	{"telemetry.max.bytes", Int},

	// QuotaConfig.CONFIG_DEF
	{"alter.log.dirs.replication.quota.window.num", Int},
	{"alter.log.dirs.replication.quota.window.size.seconds", Int},
	{"client.quota.callback.class", Class},
	{"controller.quota.window.num", Int},
	{"controller.quota.window.size.seconds", Int},
	{"quota.window.num", Int},
	{"quota.window.size.seconds", Int},
	{"replication.quota.window.num", Int},
	{"replication.quota.window.size.seconds", Int},

	// BrokerSecurityConfigs.CONFIG_DEF (SSL and SASL, names from SslConfigs, SaslConfigs, BrokerSecurityConfigs)
	{"connections.max.reauth.ms", Long},
	{"principal.builder.class", Class},
	{"sasl.client.callback.handler.class", Class},
	{"sasl.enabled.mechanisms", List},
	{"sasl.jaas.config", Password},
	{"sasl.kerberos.kinit.cmd", String},
	{"sasl.kerberos.min.time.before.relogin", Long},
	{"sasl.kerberos.principal.to.local.rules", List},
	{"sasl.kerberos.service.name", String},
	{"sasl.kerberos.ticket.renew.jitter", Double},
	{"sasl.kerberos.ticket.renew.window.factor", Double},
	{"sasl.login.callback.handler.class", Class},
	{"sasl.login.class", Class},
	{"sasl.login.connect.timeout.ms", Int},
	{"sasl.login.read.timeout.ms", Int},
	{"sasl.login.refresh.buffer.seconds", Short},
	{"sasl.login.refresh.min.period.seconds", Short},
	{"sasl.login.refresh.window.factor", Double},
	{"sasl.login.refresh.window.jitter", Double},
	{"sasl.login.retry.backoff.max.ms", Long},
	{"sasl.login.retry.backoff.ms", Long},
	{"sasl.mechanism.inter.broker.protocol", String},
	{"sasl.oauthbearer.assertion.algorithm", String},                // 4.1+
	{"sasl.oauthbearer.assertion.claim.aud", String},                // 4.1+
	{"sasl.oauthbearer.assertion.claim.exp.seconds", Int},           // 4.1+
	{"sasl.oauthbearer.assertion.claim.iss", String},                // 4.1+
	{"sasl.oauthbearer.assertion.claim.jti.include", Boolean},       // 4.1+
	{"sasl.oauthbearer.assertion.claim.nbf.seconds", Int},           // 4.1+
	{"sasl.oauthbearer.assertion.claim.sub", String},                // 4.1+
	{"sasl.oauthbearer.assertion.file", String},                     // 4.1+
	{"sasl.oauthbearer.assertion.private.key.file", String},         // 4.1+
	{"sasl.oauthbearer.assertion.private.key.passphrase", Password}, // 4.1+
	{"sasl.oauthbearer.assertion.template.file", String},            // 4.1+
	{"sasl.oauthbearer.client.credentials.client.id", String},       // 4.1+
	{"sasl.oauthbearer.client.credentials.client.secret", Password}, // 4.1+
	{"sasl.oauthbearer.clock.skew.seconds", Int},
	{"sasl.oauthbearer.expected.audience", List},
	{"sasl.oauthbearer.expected.issuer", String},
	{"sasl.oauthbearer.jwks.endpoint.refresh.ms", Long},
	{"sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", Long},
	{"sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", Long},
	{"sasl.oauthbearer.jwks.endpoint.url", String},
	{"sasl.oauthbearer.jwt.retriever.class", Class}, // 4.1+
	{"sasl.oauthbearer.jwt.validator.class", Class}, // 4.1+
	{"sasl.oauthbearer.scope", String},              // 4.1+
	{"sasl.oauthbearer.scope.claim.name", String},
	{"sasl.oauthbearer.sub.claim.name", String},
	{"sasl.oauthbearer.token.endpoint.url", String},
	{"sasl.server.callback.handler.class", Class},
	{"sasl.server.max.receive.size", Int},
	{"security.providers", String},
	{"ssl.allow.dn.changes", Boolean},
	{"ssl.allow.san.changes", Boolean},
	{"ssl.cipher.suites", List},
	{"ssl.client.auth", String},
	{"ssl.enabled.protocols", List},
	{"ssl.endpoint.identification.algorithm", String},
	{"ssl.engine.factory.class", Class},
	{"ssl.key.password", Password},
	{"ssl.keymanager.algorithm", String},
	{"ssl.keystore.certificate.chain", Password},
	{"ssl.keystore.key", Password},
	{"ssl.keystore.location", String},
	{"ssl.keystore.password", Password},
	{"ssl.keystore.type", String},
	{"ssl.principal.mapping.rules", String},
	{"ssl.protocol", String},
	{"ssl.provider", String},
	{"ssl.secure.random.implementation", String},
	{"ssl.trustmanager.algorithm", String},
	{"ssl.truststore.certificates", Password},
	{"ssl.truststore.location", String},
	{"ssl.truststore.password", Password},
	{"ssl.truststore.type", String},

	// DelegationTokenManagerConfigs.CONFIG_DEF
	{"delegation.token.expiry.check.interval.ms", Long},
	{"delegation.token.expiry.time.ms", Long},
	{"delegation.token.max.lifetime.ms", Long},
	{"delegation.token.secret.key", Password},

	// AddPartitionsToTxnConfig.CONFIG_DEF
	{"add.partitions.to.txn.retry.backoff.max.ms", Int},
	{"add.partitions.to.txn.retry.backoff.ms", Int},
}
