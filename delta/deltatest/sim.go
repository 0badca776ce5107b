package deltatest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/record"
)

// Release is the Apache Kafka release whose controller the simulator
// imitates where releases differ at the same metadata.version.
type Release int

// The releases the simulator knows.
const (
	Kafka32 Release = 32 + iota
	Kafka33
	Kafka34
	Kafka35
	Kafka36
	Kafka37
	Kafka38
	Kafka39
	Kafka40 Release = 40 + iota - 8
	Kafka41
	Kafka42
	Kafka43
	Kafka44
)

// String returns the release as Kafka names it, e.g. "4.3".
func (r Release) String() string { return fmt.Sprintf("%d.%d", int(r)/10, int(r)%10) }

// releaseOf is the release that introduced mv, the release a log written at
// mv most likely came from.
func releaseOf(mv image.MetadataVersion) Release {
	switch {
	case mv >= image.MV4_4_IV0:
		return Kafka44
	case mv >= image.MV4_3_IV0:
		return Kafka43
	case mv >= image.MV4_2_IV0:
		return Kafka42
	case mv >= image.MV4_1_IV0:
		return Kafka41
	case mv >= image.MV4_0_IV0:
		return Kafka40
	case mv >= image.MV3_9_IV0:
		return Kafka39
	case mv >= image.MV3_8_IV0:
		return Kafka38
	case mv >= image.MV3_7_IV0:
		return Kafka37
	case mv >= image.MV3_6_IV0:
		return Kafka36
	case mv >= image.MV3_5_IV0:
		return Kafka35
	case mv >= image.MV3_4_IV0:
		return Kafka34
	case mv >= image.MV3_3_IV0:
		return Kafka33
	}
	return Kafka32
}

// Config sets up a Simulator. The zero value is a 4.1 controller
// (metadata.version 4.1-IV1 with ELR on) whose clock starts at
// 2025-01-01T00:00:00Z.
type Config struct {
	// MetadataVersion written at bootstrap; 0 means 4.1-IV1. Any level up
	// to 4.4-IV2 (image.LatestMetadataVersion) may be given. Levels below 3.3-IV0 write no
	// FeatureLevelRecord (a 3.2 log).
	MetadataVersion image.MetadataVersion
	// Release imitated; 0 means the release that introduced MetadataVersion.
	Release Release
	// Features are the finalized features other than metadata.version
	// (feature name to level). Nil means what kafka-storage format sets
	// (Feature.defaultLevel: the highest level whose bootstrap
	// metadata.version is at or below MetadataVersion): group.version 1 from
	// 4.0-IV0, transaction.version 2 from 4.0-IV2,
	// eligible.leader.replicas.version 1 from 4.1-IV0, share.version 1 from
	// 4.2-IV0 and 2 from 4.4-IV0 (KIP-1191), streams.version 1 from 4.2-IV1.
	Features map[string]int16
	// Seed drives every random choice (replica placement, topic, incarnation,
	// directory, ACL and token ids). Same seed, same operations: same log.
	Seed int64
	// ControllerID is the active controller's node id (the raft leader of
	// LeaderChange records and the node whose configs the controller reads as
	// its own). 0 means 3000.
	ControllerID int32
	// SessionTimeout is broker.session.timeout.ms (0: 9 s); HeartbeatInterval
	// broker.heartbeat.interval.ms (0: 2 s).
	SessionTimeout, HeartbeatInterval time.Duration
	// NoOpInterval is metadata.max.idle.interval.ms: a NoOpRecord is written
	// this often while the clock advances (MV >= 3.3-IV1). 0 writes none
	// (Kafka's default is 500 ms; tests rarely want them).
	NoOpInterval time.Duration
	// Start is the clock's start; zero means 2025-01-01T00:00:00Z.
	Start time.Time
	// RaftEpoch is the first raft leader epoch; 0 means 1.
	RaftEpoch int32
	// MinInSyncReplicas, DefaultReplicationFactor and NumPartitions are the
	// controller's static configs (min.insync.replicas,
	// default.replication.factor, num.partitions); 0 means Kafka's default 1.
	MinInSyncReplicas, DefaultReplicationFactor, NumPartitions int
	// UncleanLeaderElection is the controller's static
	// unclean.leader.election.enable (default false).
	UncleanLeaderElection bool
	// ValidateBrokerConfigs makes AlterConfigs of a BROKER resource refuse
	// what a Kafka 4.4 broker refuses before forwarding the request to the
	// controller (ConfigAdminManager.validateBrokerConfigChange): configs
	// that are not dynamic (DynamicConfig.Broker), security configs without
	// a listener prefix, per-broker configs at the cluster default, all
	// with ErrInvalidRequest. Off by default: a controller reached directly
	// (bootstrap.controllers, KIP-919) writes what it is given.
	ValidateBrokerConfigs bool
	// NoBootstrap skips the LeaderChange batch and the bootstrap records;
	// FromImage always skips them.
	NoBootstrap bool
}

// Errors the simulator returns: each is the kafkaerr.Code the controller
// answers with (test them with errors.Is, on the variable or the code, or
// read the code with kafkaerr.CodeOf). ErrDelegationTokenState stands for
// two codes (DELEGATION_TOKEN_NOT_FOUND or DELEGATION_TOKEN_EXPIRED) and
// stays a plain error.
var (
	ErrUnknownTopic         error = kafkaerr.UnknownTopicOrPartition
	ErrTopicExists          error = kafkaerr.TopicAlreadyExists
	ErrInvalidTopic         error = kafkaerr.InvalidTopic
	ErrInvalidPartitions    error = kafkaerr.InvalidPartitions
	ErrInvalidReplication   error = kafkaerr.InvalidReplicationFactor
	ErrInvalidAssignment    error = kafkaerr.InvalidReplicaAssignment
	ErrBrokerNotRegistered  error = kafkaerr.BrokerIDNotRegistered
	ErrDuplicateBroker      error = kafkaerr.DuplicateBrokerRegistration
	ErrInvalidRequest       error = kafkaerr.InvalidRequest
	ErrIneligibleReplica    error = kafkaerr.IneligibleReplica
	ErrElectionNotNeeded    error = kafkaerr.ElectionNotNeeded
	ErrLeaderNotAvailable   error = kafkaerr.PreferredLeaderNotAvailable
	ErrNoReassignment       error = kafkaerr.NoReassignmentInProgress
	ErrUnsupportedVersion   error = kafkaerr.UnsupportedVersion
	ErrPolicyViolation      error = kafkaerr.PolicyViolation
	ErrInvalidConfig        error = kafkaerr.InvalidConfig
	ErrResourceNotFound     error = kafkaerr.ResourceNotFound
	ErrDelegationTokenState       = errors.New("DELEGATION_TOKEN_ERROR")
	// ErrControllerNotRegistered is CONTROLLER_ID_NOT_REGISTERED (Kafka 4.4,
	// KIP-1312).
	ErrControllerNotRegistered error = kafkaerr.ControllerIDNotRegistered
)

// maxRecordsPerBatch is QuorumController.DEFAULT_MAX_RECORDS_PER_BATCH and
// MAX_RECORDS_PER_USER_OP.
const maxRecordsPerBatch = 10000

type broker struct {
	reg       *image.Broker
	regOffset int64
	// soft state (BrokerHeartbeatManager)
	alive         bool
	lastContact   int64
	nextHeartbeat int64
	cleanShutdown bool
	// tracked: the controller holds a contact time for the broker
	// (BrokerHeartbeatTracker.contactTimes, Kafka 4.0+)
	tracked bool
	// cordoned is what the broker's heartbeats report as its cordoned log
	// directories (KIP-1066), in the order Kafka's broker sends them.
	cordoned []record.UUID
}

type topic struct {
	id    record.UUID
	name  string
	parts []image.PartitionRegistration
	// pending[i], when set, is the PartitionRecord parts[i] is still to be
	// built from: the registration is built the first time it is read
	// (part), so creating a million partitions does not pay for registrations
	// nothing reads yet. nil when nothing is pending.
	pending []*record.PartitionRecord
}

// numParts is the partition count.
func (t *topic) numParts() int { return len(t.parts) }

// part returns partition i's registration, building it if pending.
func (t *topic) part(i int) *image.PartitionRegistration {
	if t.pending != nil {
		if r := t.pending[i]; r != nil {
			p, err := image.NewPartition(r)
			if err != nil {
				// replay checked what NewPartition checks
				panic(fmt.Sprintf("deltatest: partition %d of %s: %v", i, t.name, err))
			}
			t.parts[i], t.pending[i] = p, nil
		}
	}
	return &t.parts[i]
}

type configKey struct {
	typ  int8
	name string
}

// Simulator is a deterministic KRaft active controller: it holds the
// controller's state, turns operations into the records Kafka's
// QuorumController writes for them, commits them as batches and replays
// them through delta.Delta into the image a broker would build.
//
// A Simulator is not safe for concurrent use. Images it returns are
// immutable and may be shared.
type Simulator struct {
	cfg        Config
	mv         image.MetadataVersion
	release    Release
	features   map[string]int16
	controller int32
	session    int64 // ms
	heartbeat  int64 // ms
	noop       int64 // ms

	placeRnd *javaRandom
	idRnd    *javaRandom

	brokers    map[int32]*broker
	topics     map[record.UUID]*topic
	byName     map[string]record.UUID
	sorted     []record.UUID // topic ids in canonical order; nil when stale
	bc         *brokerCache  // nil when stale
	partsHint  int           // partitions of the topic being created
	lastTopic  *topic        // the topic of the last PartitionRecord replayed
	configs    map[configKey]map[string]string
	producerID int64

	batches    []record.Batch
	nextOffset int64
	raftEpoch  int32
	now        int64
	nextCheck  int64
	nextNoOp   int64

	img      *image.Image
	imgBatch int // batches[:imgBatch] are in img
	marks    []mark

	last []image.VersionedRecord
}

type mark struct {
	batch int
	img   *image.Image
}

// New starts a simulator on an empty log: a LeaderChange control batch and
// the bootstrap records of ActivationRecordsGenerator (unless
// cfg.NoBootstrap).
func New(cfg Config) (*Simulator, error) {
	s, err := newSim(cfg)
	if err != nil {
		return nil, err
	}
	s.img = image.Empty()
	s.marks = []mark{{batch: 0, img: s.img}}
	if !cfg.NoBootstrap {
		s.leaderChange()
		if err := s.bootstrap(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// MustNew is New that panics on a bad Config, for tests and examples.
func MustNew(cfg Config) *Simulator {
	s, err := New(cfg)
	if err != nil {
		panic(err)
	}
	return s
}

func newSim(cfg Config) (*Simulator, error) {
	s := &Simulator{cfg: cfg}
	s.mv = cfg.MetadataVersion
	if s.mv == 0 {
		s.mv = image.MV4_1_IV1
	}
	if s.mv < image.MV3_0_IV1 || s.mv > image.LatestMetadataVersion {
		return nil, fmt.Errorf("deltatest: metadata.version level %d unknown", s.mv)
	}
	s.release = cfg.Release
	if s.release == 0 {
		s.release = releaseOf(s.mv)
	}
	s.features = map[string]int16{}
	if cfg.Features != nil {
		for k, v := range cfg.Features {
			if v > 0 {
				s.features[k] = v
			}
		}
	} else {
		if s.mv >= image.MV4_0_IV0 {
			s.features["group.version"] = 1
		}
		if s.mv >= image.MV4_0_IV2 {
			s.features["transaction.version"] = 2
		}
		if s.mv >= image.MV4_1_IV0 {
			s.features[elrFeature] = 1
		}
		switch {
		case s.mv >= image.MV4_4_IV0:
			s.features["share.version"] = 2
		case s.mv >= image.MV4_2_IV0:
			s.features["share.version"] = 1
		}
		if s.mv >= image.MV4_2_IV1 {
			s.features["streams.version"] = 1
		}
	}
	s.controller = cfg.ControllerID
	if s.controller == 0 {
		s.controller = 3000
	}
	s.session = durMs(cfg.SessionTimeout, 9000)
	s.heartbeat = durMs(cfg.HeartbeatInterval, 2000)
	s.noop = durMs(cfg.NoOpInterval, 0)
	s.now = 1735689600000
	if !cfg.Start.IsZero() {
		s.now = cfg.Start.UnixMilli()
	}
	s.raftEpoch = cfg.RaftEpoch
	if s.raftEpoch == 0 {
		s.raftEpoch = 1
	}
	s.placeRnd = newJavaRandom(cfg.Seed)
	s.idRnd = newJavaRandom(cfg.Seed ^ 0x6b6d657461) // "kmeta"
	s.brokers = map[int32]*broker{}
	s.topics = map[record.UUID]*topic{}
	s.byName = map[string]record.UUID{}
	s.configs = map[configKey]map[string]string{}
	s.nextCheck = s.now + s.checkPeriod()
	if s.noop > 0 {
		s.nextNoOp = s.now + s.noop
	}
	return s, nil
}

func durMs(d time.Duration, def int64) int64 {
	if d <= 0 {
		return def
	}
	return d.Milliseconds()
}

const elrFeature = "eligible.leader.replicas.version"

// FromImage starts a simulator whose controller state is img, as a controller
// that has just loaded img as a snapshot (QuorumController.handleLoadSnapshot)
// and become active: the log continues at the offset after img's
// provenance, in raft epoch cfg.RaftEpoch (0: img's epoch + 1, with a
// LeaderChange batch first unless cfg.NoBootstrap). cfg.MetadataVersion and
// cfg.Features are ignored: the image's own are used. Every registered broker
// is taken to be alive, its heartbeat arriving now.
func FromImage(img *image.Image, cfg Config) (*Simulator, error) {
	mv, ok := img.Features().MetadataVersion()
	if !ok {
		mv = img.Features().EffectiveMetadataVersion()
	}
	cfg.MetadataVersion = mv
	feats := map[string]int16{}
	for _, f := range img.Features().Finalized() {
		feats[f.Name] = f.Level
	}
	cfg.Features = feats
	s, err := newSim(cfg)
	if err != nil {
		return nil, err
	}
	p := img.Provenance()
	s.img = img
	s.marks = []mark{{batch: 0, img: img}}
	s.nextOffset = p.LastContainedOffset + 1
	if cfg.RaftEpoch == 0 {
		s.raftEpoch = max(p.LastContainedEpoch+1, 1)
	}
	if p.LastContainedLogTimeMs > 0 && cfg.Start.IsZero() {
		s.now = p.LastContainedLogTimeMs
		s.nextCheck = s.now + s.checkPeriod()
		if s.noop > 0 {
			s.nextNoOp = s.now + s.noop
		}
	}
	for b := range img.Cluster().Brokers() {
		cordoned, _ := b.CordonedDirectories()
		s.brokers[b.ID()] = &broker{reg: b, regOffset: p.LastContainedOffset, alive: true,
			lastContact: s.now, nextHeartbeat: s.now + s.heartbeat, cordoned: cordoned, tracked: !b.Fenced()}
	}
	for t := range img.Topics().All() {
		parts := make([]image.PartitionRegistration, 0, t.NumPartitions())
		for p := range t.Partitions() {
			parts = append(parts, p.Registration())
		}
		s.topics[t.ID()] = &topic{id: t.ID(), name: t.Name(), parts: parts}
		s.byName[t.Name()] = t.ID()
	}
	for res, entries := range img.Configs().Resources() {
		m := map[string]string{}
		for _, e := range entries {
			m[e.Name] = e.Value
		}
		s.configs[configKey{int8(res.Type), res.Name}] = m
	}
	s.producerID = img.NextProducerID()
	if !cfg.NoBootstrap {
		s.leaderChange()
	}
	return s, nil
}

// MetadataVersion is the finalized metadata.version.
func (s *Simulator) MetadataVersion() image.MetadataVersion { return s.mv }

// Release is the Kafka release imitated.
func (s *Simulator) Release() Release { return s.release }

// Now is the simulated clock.
func (s *Simulator) Now() time.Time { return time.UnixMilli(s.now) }

// NextOffset is the offset the next record will take.
func (s *Simulator) NextOffset() int64 { return s.nextOffset }

// RaftEpoch is the current raft leader epoch.
func (s *Simulator) RaftEpoch() int32 { return s.raftEpoch }

// Batches returns the committed batches, in offset order. The slice and the
// records are the simulator's own: do not modify them.
func (s *Simulator) Batches() []record.Batch { return s.batches }

// BatchesFrom returns the batches holding offsets at or after offset.
func (s *Simulator) BatchesFrom(offset int64) []record.Batch {
	i, _ := slices.BinarySearchFunc(s.batches, offset, func(b record.Batch, o int64) int {
		switch {
		case b.LastOffset() < o:
			return -1
		case b.BaseOffset > o:
			return 1
		}
		return 0
	})
	return s.batches[i:]
}

// LastRecords returns the records written by the last operation (nil if it
// wrote none).
func (s *Simulator) LastRecords() []image.VersionedRecord { return s.last }

// Image returns the image a broker builds from the whole log so far: every
// batch replayed through delta.Delta and applied with the last batch's
// provenance.
func (s *Simulator) Image() *image.Image {
	img, err := s.catchUp()
	if err != nil {
		// The simulator replays only records it generated from its own
		// state; a rejection is a bug in the simulator.
		panic(fmt.Sprintf("deltatest: replaying the simulator's own log: %v", err))
	}
	return img
}

func (s *Simulator) catchUp() (*image.Image, error) {
	if s.imgBatch == len(s.batches) {
		return s.img, nil
	}
	img, err := replayBatches(s.img, s.batches[s.imgBatch:])
	if err != nil {
		return nil, err
	}
	s.img, s.imgBatch = img, len(s.batches)
	s.marks = append(s.marks, mark{batch: s.imgBatch, img: img})
	return img, nil
}

// replayBatches replays batches onto base in one delta.
func replayBatches(base *image.Image, batches []record.Batch) (*image.Image, error) {
	if len(batches) == 0 {
		return base, nil
	}
	d := delta.New(base)
	for i := range batches {
		for _, r := range batches[i].Records {
			if err := d.Replay(r.Record); err != nil {
				return nil, fmt.Errorf("batch at offset %d: %w", batches[i].BaseOffset, err)
			}
		}
	}
	last := &batches[len(batches)-1]
	return d.Apply(image.Provenance{LastContainedOffset: last.LastOffset(), LastContainedEpoch: last.LeaderEpoch,
		LastContainedLogTimeMs: last.AppendTime, BatchAligned: true})
}

// ImageAt returns the image of the log up to and including the batch holding
// offset: what a broker that has replayed that far holds. Offsets before
// the first batch give the simulator's starting image.
func (s *Simulator) ImageAt(offset int64) (*image.Image, error) {
	if _, err := s.catchUp(); err != nil {
		return nil, err
	}
	end := len(s.BatchesFrom(offset + 1)) // batches entirely after offset
	end = len(s.batches) - end
	if end < len(s.batches) && s.batches[end].BaseOffset <= offset {
		end++
	}
	// the latest mark at or before end
	var base *image.Image
	from := 0
	for i := len(s.marks) - 1; i >= 0; i-- {
		if s.marks[i].batch <= end {
			base, from = s.marks[i].img, s.marks[i].batch
			break
		}
	}
	if base == nil {
		base = s.startImage()
	}
	return replayBatches(base, s.batches[from:end])
}

func (s *Simulator) startImage() *image.Image { return s.marks[0].img }

// Changes returns a delta holding every record committed after since
// (an image the simulator returned earlier, or any image of this log) and
// the image it applies to: what a metadata publisher receives. The delta has
// been applied already; its change reports (Topics, Brokers,
// LocalChanges...) are ready.
func (s *Simulator) Changes(since *image.Image) (*delta.Delta, *image.Image, error) {
	from := since.Provenance().LastContainedOffset + 1
	d := delta.New(since)
	var last *record.Batch
	for _, b := range s.BatchesFrom(from) {
		for i, r := range b.Records {
			if b.BaseOffset+int64(i) < from {
				continue
			}
			if err := d.Replay(r.Record); err != nil {
				return nil, nil, err
			}
		}
		last = &b
	}
	if last == nil {
		img, err := d.Apply(since.Provenance())
		return d, img, err
	}
	img, err := d.Apply(image.Provenance{LastContainedOffset: last.LastOffset(), LastContainedEpoch: last.LeaderEpoch,
		LastContainedLogTimeMs: last.AppendTime, BatchAligned: true})
	return d, img, err
}

// leaderChange writes the control batch a new raft leader writes at the start
// of its epoch (LeaderState.appendStartOfEpochControlRecords).
func (s *Simulator) leaderChange() {
	m := record.NewLeaderChangeMessage()
	m.LeaderID = s.controller
	m.Voters = []record.LeaderChangeVoter{{VoterID: s.controller}}
	m.GrantingVoters = []record.LeaderChangeVoter{{VoterID: s.controller}}
	s.batches = append(s.batches, record.Batch{BaseOffset: s.nextOffset, LeaderEpoch: s.raftEpoch, AppendTime: s.now, Control: []record.ControlRecord{m}})
	s.nextOffset++
}

// bootstrap writes ActivationRecordsGenerator.recordsForEmptyLog.
func (s *Simulator) bootstrap() error {
	var recs []image.VersionedRecord
	tx := s.mv >= image.MV3_6_IV1
	if tx {
		r := record.NewBeginTransactionRecord()
		r.Name = ptr("Bootstrap records")
		recs = append(recs, vr(r, 0))
	}
	if s.mv.FeatureLevelRecordSupported() {
		r := record.NewFeatureLevelRecord()
		r.Name, r.FeatureLevel = "metadata.version", int16(s.mv)
		recs = append(recs, vr(r, 0))
		names := make([]string, 0, len(s.features))
		for k := range s.features {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			r := record.NewFeatureLevelRecord()
			r.Name, r.FeatureLevel = k, s.features[k]
			recs = append(recs, vr(r, 0))
		}
		if s.features[elrFeature] > 0 && s.release >= Kafka41 {
			recs = append(recs, vr(configRecord(configBroker, "", "min.insync.replicas", ptr(fmt.Sprint(s.staticMinISR()))), 0))
		}
	}
	if s.mv >= image.MV3_4_IV0 && s.release <= Kafka39 {
		recs = append(recs, vr(record.NewZkMigrationStateRecord(), 0))
	}
	if tx {
		recs = append(recs, vr(record.NewEndTransactionRecord(), 0))
	}
	if len(recs) == 0 {
		return nil
	}
	return s.commit(recs, !tx)
}

func vr(r record.Record, v int16) image.VersionedRecord {
	return image.VersionedRecord{Record: r, Version: v}
}

func ptr[T any](v T) *T { return &v }

// sortedTopics returns the topic ids in the simulator's canonical order
// (the canonical mode, not Java's HashMap order): by id bytes.
func (s *Simulator) sortedTopics() []record.UUID {
	if s.sorted == nil {
		s.sorted = make([]record.UUID, 0, len(s.topics))
		for id := range s.topics {
			s.sorted = append(s.sorted, id)
		}
		slices.SortFunc(s.sorted, func(a, b record.UUID) int { return bytes.Compare(a[:], b[:]) })
	}
	return s.sorted
}

// Config resource types (ConfigResource.Type).
const (
	configTopic  int8 = 2
	configBroker int8 = 4
)

func configRecord(typ int8, name, key string, value *string) *record.ConfigRecord {
	r := record.NewConfigRecord()
	r.ResourceType, r.ResourceName, r.Name, r.Value = typ, name, key, value
	return r
}
