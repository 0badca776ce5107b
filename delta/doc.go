// Package delta replays metadata records against a base image and applies
// them into the next image (Kafka's MetadataDelta and its per-component
// deltas).
//
// A log delta:
//
//	d := delta.New(current)          // current *image.Image (nil = empty)
//	for _, r := range records {
//		if err := d.Replay(r); err != nil {
//			// the record contradicts the image; d is unchanged, skip it
//			// as Kafka's loader does, or stop
//		}
//	}
//	next, err := d.Apply(provenance)  // shares every unchanged part
//
// A snapshot load:
//
//	d := delta.NewSnapshot(current)
//	... Replay every record of the snapshot ...
//	d.FinishSnapshot()                // drop what the snapshot did not re-assert
//	next, err := d.Apply(provenance)
//
// Before or after Apply, a delta reports what changed: Topics (created,
// changed, deleted), ChangedPartitions, PartitionGrowth, Brokers (registered,
// fenced, unfenced, unregistered) and LocalChanges(brokerID), the
// leader/follower/delete transitions one broker must make; ReplicaChanges
// (ReplicaManager.applyDelta: deletes with the remote log, leaders,
// followers with the controlled-shutdown rule, directories) and
// Coordinators (BrokerMetadataPublisher.updateCoordinator) for one broker;
// and a change set for every other part of the image, computed from what
// was replayed: Configs, ClientQuotas, Scram, Tokens, ACLs (in replay
// order), Features, Controllers.
//
// Every replay rule follows a Kafka class (TopicsDelta, PartitionRegistration
// .merge, ClusterDelta, ConfigurationsDelta, ClientQuotasDelta, AclsDelta,
// ScramDelta, DelegationTokenDelta, FeaturesDelta), named in the doc comment
// of its replay method. Where Kafka has a bug the fix is deliberate and
// documented: SCRAM removals and adds in one delta, configs of
// a topic created and deleted in one delta (ConfigurationsDelta). Records Kafka would accept but that
// contradict the image (a partition of an unknown topic, a topic name taken
// by another id, a change to an unknown broker or another broker epoch) are
// rejected with a *RecordError, which names the record's offset (given to
// ReplayAt), the record and the cause once each, as metalog.CorruptionError
// does for a file; a nil record is a *RecordError wrapping ErrNilRecord.
//
// Apply builds the next image with an image.Builder, and each changed
// topic with an image.TopicBuilder that the delta owns until Apply freezes
// it into the image's topic; a later change to that topic starts a new
// builder from a copy, so images already returned never change.
//
// Metadata written by Kafka 3.2 to 4.4 replays: metadata.version up to
// 4.4-IV2 (level 33), cordoned log directories (KIP-1066) and controller
// unregistration (KIP-1312). A FeatureLevelRecord for a higher
// metadata.version, which only a newer Kafka writes, is refused with an
// error wrapping ErrNewerVersion (and ErrRejected) that names the level; the
// metadata.version is never dropped silently, and publisher's loader halts
// on it, serving the last good image.
//
// A Delta is used by one goroutine; the images it reads and produces may be
// shared freely.
package delta
