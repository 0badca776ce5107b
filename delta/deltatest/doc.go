// Package deltatest is a test kit for code that depends on cluster
// metadata — brokers, proxies, clients, operators — without a Kafka cluster:
// a deterministic simulator of Kafka's KRaft active controller.
//
// Hand-built metadata (a map of leaders, ISR = replicas, coordinators picked
// by the mock) tests code against a cluster Kafka never produces. A
// Simulator instead holds the controller's state and turns operations into
// the records Kafka's QuorumController writes for them, at a chosen
// metadata.version and Kafka release, then replays what it wrote through
// delta.Delta: its Image is always the image a broker would build from the
// same log. For the same Config.Seed and the same operations it writes the
// same log, byte for byte.
//
// # Why here
//
// The package is named like the standard library's test kits (httptest,
// fstest, iotest): it serves the tests of code that consumes package
// delta's output. It sits at the lowest layer that can hold it — it needs
// record, image and delta and nothing above them — so the publisher
// package's tests, benchmarks and the quickstart can import it without a
// cycle, and no core package imports it.
//
// # A cluster in a few lines
//
//	sim := deltatest.MustCluster(3)               // brokers 1..3, MV 4.1-IV1
//	sim.MustCreateTopic("orders", 6, 3)           // placed as Kafka places it
//	sim.CrashBroker(1)                            // no heartbeats from now on
//	d, img, err := sim.Step(func() error {        // the delta a publisher sees
//		return sim.Advance(11 * time.Second)      // fenced after the 9 s session timeout
//	})
//
// d and img are what a metadata publisher receives for that step; d's change
// reports (Topics, ChangedPartitions, LocalChanges, Brokers) are ready.
//
// # What it writes
//
// Brokers: RegisterBroker (a fenced RegisterBrokerRecord whose epoch is the
// offset of the operation's first record; in 4.x preceded by the clean-up
// records of a new incarnation), UnfenceBroker, FenceBroker,
// BeginControlledShutdown and ControlledShutdown, CrashBroker, UnregisterBroker.
// Below metadata.version 3.3-IV2 fencing uses FenceBrokerRecord and
// UnfenceBrokerRecord, from it BrokerRegistrationChangeRecord v0 (v1 for
// controlled shutdown), as Kafka's controller chooses. Topics: CreateTopic
// (explicit assignment, or Kafka's StripedReplicaPlacer driven by an
// emulated java.util.Random), CreatePartitions, DeleteTopic. Partitions:
// every change goes through an emulation of PartitionChangeBuilder —
// elections from the ISR (the current leader if still acceptable, else the
// first acceptable ISR member in replica order), ISR shrink and expansion
// (AlterPartition, ShrinkISR, ExpandISR), leader and partition epoch bumps
// (including the pre-3.6-IV0 ISR-shrink bump and the 3.3–3.7 quirk of
// bumping leaderless partitions), reassignment (Reassign,
// CompleteReassignment, CancelReassignment), preferred and unclean elections
// (ElectPreferredLeader, ElectUncleanLeader, BalanceLeaders), ELR when
// eligible.leader.replicas.version is on. Configs (AlterConfigs,
// SetTopicConfig), client quotas, ACLs, SCRAM credentials, delegation tokens,
// producer id blocks and feature levels (SetFeature) too.
//
// From metadata.version 4.3-IV0 (Kafka 4.3) a registration is a
// RegisterBrokerRecord v4 without cordoned log directories, and the
// heartbeat that unfences the broker reports them, so a
// BrokerRegistrationChangeRecord v3 with an empty list follows, as the
// controller writes it (ReplicationControlManager.handleDirectoriesCordoned);
// CordonLogDirs and UncordonLogDirs change what the heartbeats report
// (KIP-1066), and a broker whose every directory is cordoned gets no new
// replicas. RegisterController writes RegisterControllerRecords (KIP-919) and,
// from 4.4-IV2 (Kafka 4.4), UnregisterController an UnregisterControllerRecord
// (KIP-1312). The features formatted by default follow Feature.defaultLevel,
// share.version 2 from 4.4-IV0 included.
//
// Each method names the Kafka controller class and method it follows. The test TestCorpusBrokerEventsMatchKafkaController
// checks the simulator against Kafka's own controller: for every broker
// fencing, unfencing and controlled shutdown in the real metadata logs of
// the shared corpus (kraft and kraft-2: Kafka 3.2 to 4.2; the Kafka 4.3
// files hold no log), a simulator started from the image
// just before the event writes the same PartitionChangeRecords.
//
// Log directories (KIP-858, from 3.7-IV2): FailLogDir (the heartbeat
// reporting a directory offline: the broker leaves the ISR and leadership of
// its replicas there, then a BrokerRegistrationChangeRecord v2) and
// AssignReplicaToDir (AssignReplicasToDirs). From Kafka 4.0 a fenced broker
// whose session expires is fenced again, a redundant
// BrokerRegistrationChangeRecord (BrokerHeartbeatTracker, KAFKA-17793).
// Each Step's delta carries every change set (delta.Delta.Configs, ACLs,
// ReplicaChanges, Coordinators, ...).
//
// # Time and heartbeats
//
// The clock is simulated (Now, Advance). Live brokers heartbeat every
// HeartbeatInterval (2 s); a registered, fenced broker is unfenced by its
// next heartbeat; the controller's periodic check (every SessionTimeout/8)
// fences each broker whose last heartbeat is older than SessionTimeout (9 s)
// and moves its leaderships, as BrokerHeartbeatManager and
// maybeFenceStaleBroker do. CrashBroker stops a broker's heartbeats.
//
// # Output
//
// Batches returns the committed batches as record.Batch, the one decoded
// batch type: base offset, raft leader epoch, append time and records with
// their versions (or a LeaderChange control record), which a
// publisher.Loader takes as they are (HandleCommit) and
// metalog.AppendDecoded encodes as record batch v2 bytes. Each operation is one batch (an atomic result) or chunks of
// 10 000 records (a non-atomic one); raft's packing of several operations
// into one batch within its linger time is not modelled. WriteDir writes a
// real __cluster_metadata-0 directory (segments with metalog.CreateSegment,
// optionally a snapshot with metalog.CreateSnapshot) that brokers, tools and
// metalog.OpenDir read back into the same image.
//
// Views: Image is the image of the whole log; ImageAt, ImageLagging and
// ImageAsOf give the image of a broker that has replayed less (a lag in
// offsets, batches or time); Changes and Step give deltas between them.
//
// # Scenarios
//
// The stories: ReconnectionStorm (a broker leading
// about 500 partitions crashes; detection after the session timeout),
// BrokerFallsBehind (a stalled broker's lagging view against the cluster's),
// DoublePartitions (a topic grows from 6 to 12 partitions), ControllerFailover
// (a new raft leader epoch and a LeaderChange record, no data change).
//
// # Deliberate differences from Kafka
//
//   - Record order inside one operation: Kafka iterates partitions in the
//     order of its TimelineHashMap indexes, which depends on the whole
//     history; the simulator uses the canonical order (topic id,
//     then partition). The set of records is the same.
//   - Placement: Kafka's Random is unseeded; the simulator's is seeded
//     (Config.Seed), so placements are reproducible, not Kafka's.
//   - A last known leader that a reassignment removed from the replicas is
//     not elected (Kafka would fail the operation looking up its directory).
//
// A Simulator is not safe for concurrent use; the images it returns are
// immutable and may be shared.
package deltatest
