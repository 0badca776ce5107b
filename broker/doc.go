// Package broker holds the rules a Kafka broker applies to its own metadata
// image beside serving it, each as Kafka 4.4 computes it:
//
//   - whether the broker must resend its registration after a commit
//     (BrokerRegistrationTracker: TrackRegistration,
//     RegistrationNeedsRefresh);
//   - whether its log directories suit the metadata.version
//     (MetadataVersionConfigValidator: ValidateMetadataVersion);
//   - which finalized features it cannot run (BrokerFeatures:
//     DefaultSupportedFeatures, IncompatibleFeatures);
//   - which of its logs are stray replicas to delete at startup
//     (LogManager.isStrayReplica: IsStrayReplica);
//   - the preferred read replica a leader names to a rack-aware consumer
//     (KIP-392: ReplicaManager.findPreferredReadReplica over
//     RackAwareReplicaSelector: PreferredReadReplica);
//   - the topic a Metadata or FindCoordinator request auto-creates, with
//     its partitions, replication factor and configs
//     (DefaultAutoTopicCreationManager.creatableTopic: ParseAutoTopicConfig,
//     AutoTopicConfig.CreatableTopic).
//
// The request versions a metadata.version dictates are
// image.MetadataVersion's (FetchRequestVersion, ListOffsetRequestVersion);
// the group coordinator's topic and group hashes are package image/group's.
// Every rule is replayed on vectors Kafka's own classes computed
// (internal/kafkaoracle).
package broker
