package history

import (
	"cmp"
	"slices"
	"time"

	"github.com/kmeta-go/kmeta/record"
)

// DefaultLimit is the number of entries each list of a History keeps when
// Options.Limit (BuilderConfig.Limit) is 0.
const DefaultLimit = 100_000

// Options tune one call of Read or Check. The zero value gives the
// defaults.
type Options struct {
	// Limit is the most entries each list keeps (the newest; older ones are
	// dropped and counted). 0 means DefaultLimit; a negative value keeps
	// everything.
	Limit int
	// Unredacted keeps sensitive values in the records of changes.
	Unredacted bool
}

// BuilderConfig is what NewBuilder keeps for the life of a Builder: the
// fields of Options, which Read hands to the Builder it makes. The zero
// value gives the defaults.
type BuilderConfig struct {
	// Limit is the most entries each list keeps (the newest; older ones are
	// dropped and counted). 0 means DefaultLimit; a negative value keeps
	// everything.
	Limit int
	// Unredacted keeps sensitive values in the records of changes.
	Unredacted bool
}

func (o BuilderConfig) limit() int {
	switch {
	case o.Limit == 0:
		return DefaultLimit
	case o.Limit < 0:
		return 0 // no limit
	}
	return o.Limit
}

// Position is where a record sits in the log.
type Position struct {
	// File is the base name of the file the record was read from.
	File string
	// Offset is the record's log offset. Records of a snapshot have no
	// offset of their own: they carry the snapshot's last contained
	// offset.
	Offset int64
	// AppendTime is the append time of the record's batch in milliseconds
	// since the epoch (the batch's maxTimestamp; for a snapshot, the
	// header's lastContainedLogTimestamp).
	AppendTime int64
	// RaftEpoch is the raft leader epoch that wrote the batch.
	RaftEpoch int32
	// Snapshot is set for records loaded from a snapshot.
	Snapshot bool
	// RecordVersion is the version of the data record at this position as
	// the file holds it (its frame's version: print the record at it, not
	// at the newest version kmeta knows); 0 for control records.
	RecordVersion int16
}

// Time is AppendTime as a time.Time.
func (p Position) Time() time.Time { return time.UnixMilli(p.AppendTime).UTC() }

// BrokerEventKind says what a broker record did.
type BrokerEventKind int8

// The broker events.
const (
	// BrokerRegistered: a RegisterBrokerRecord (a new or replaced
	// registration, with its epoch).
	BrokerRegistered BrokerEventKind = iota + 1
	// BrokerUnregistered: an UnregisterBrokerRecord.
	BrokerUnregistered
	// BrokerFenced: FenceBrokerRecord or BrokerRegistrationChangeRecord
	// fenced=1.
	BrokerFenced
	// BrokerUnfenced: UnfenceBrokerRecord or BrokerRegistrationChangeRecord
	// fenced=-1.
	BrokerUnfenced
	// BrokerControlledShutdown: BrokerRegistrationChangeRecord
	// inControlledShutdown=1.
	BrokerControlledShutdown
	// BrokerDirectoriesChanged: BrokerRegistrationChangeRecord with log
	// directories.
	BrokerDirectoriesChanged
)

var brokerEventNames = [...]string{"", "registered", "unregistered", "fenced", "unfenced", "controlled-shutdown", "directories"}

// String returns the kind's name.
func (k BrokerEventKind) String() string {
	if int(k) < len(brokerEventNames) {
		return brokerEventNames[k]
	}
	return "unknown"
}

// BrokerState is a registered broker's state as Kafka's
// BrokerRegistration holds it.
type BrokerState int8

// The broker states.
const (
	StateUnregistered BrokerState = iota
	// StateFenced: registered and fenced (a new registration starts
	// fenced).
	StateFenced
	// StateUnfenced: registered, unfenced, not shutting down.
	StateUnfenced
	// StateShuttingDown: in controlled shutdown (KIP-841), not yet fenced.
	StateShuttingDown
)

var brokerStateNames = [...]string{"unregistered", "fenced", "unfenced", "shutting-down"}

// String returns the state's name.
func (s BrokerState) String() string {
	if int(s) < len(brokerStateNames) {
		return brokerStateNames[s]
	}
	return "unknown"
}

// BrokerEvent is one record that changed a broker's registration.
type BrokerEvent struct {
	At     Position
	Kind   BrokerEventKind
	Epoch  int64 // the registration's epoch after the record
	State  BrokerState
	Record record.Record
}

// BrokerInterval is a span of the log in which a broker kept one state
// under one registration epoch. Open intervals (the state at the end of the
// log) have Open set and To equal to the last position read.
type BrokerInterval struct {
	State    BrokerState
	Epoch    int64
	From, To Position
	Open     bool
}

// Duration is the interval's length in append time.
func (i BrokerInterval) Duration() time.Duration {
	return time.Duration(i.To.AppendTime-i.From.AppendTime) * time.Millisecond
}

// BrokerHistory is everything the log says about one broker id.
type BrokerHistory struct {
	ID            int32
	Events        []BrokerEvent
	Intervals     []BrokerInterval
	Registrations int // RegisterBrokerRecords, all counted
	// Fencings counts the transitions into StateFenced, all counted: a
	// FenceBrokerRecord or BrokerRegistrationChangeRecord fenced=1 of a
	// broker not fenced, and every registration that starts fenced (as
	// Kafka's ClusterControlManager.registerBroker registers a broker). It
	// is the one definition of a fencing, which the timeline counts too.
	Fencings int
	Dropped  int // events and intervals dropped by the limit
}

// State is the broker's state at the end of the history.
func (b *BrokerHistory) State() BrokerState {
	if n := len(b.Intervals); n > 0 && b.Intervals[n-1].Open {
		return b.Intervals[n-1].State
	}
	return StateUnregistered
}

// PartitionFields is a set of the fields of a partition registration.
type PartitionFields uint16

// The partition fields, and the two life events.
const (
	FieldLeader PartitionFields = 1 << iota
	FieldLeaderEpoch
	FieldPartitionEpoch
	FieldReplicas
	FieldISR
	FieldELR
	FieldLastKnownELR
	FieldAdding
	FieldRemoving
	FieldRecoveryState
	FieldDirectories
	// Created: the record made the partition (a PartitionRecord for a
	// partition that did not exist).
	Created
	// Deleted: the topic was removed (or a snapshot did not re-assert it).
	Deleted
)

var fieldNames = [...]string{"leader", "leaderEpoch", "partitionEpoch", "replicas", "isr", "elr", "lastKnownElr", "addingReplicas", "removingReplicas", "leaderRecoveryState", "directories", "created", "deleted"}

// Names lists the fields in the set.
func (f PartitionFields) Names() []string {
	var out []string
	for i, n := range fieldNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// PartitionState is a partition registration's fields at one point.
type PartitionState struct {
	Leader, LeaderEpoch, PartitionEpoch int32
	LeaderRecoveryState                 int8
	Replicas, ISR, ELR, LastKnownELR    []int32
	Adding, Removing                    []int32
}

// Exists reports whether the state is that of a live partition (the
// zero PartitionState, before creation or after deletion, is not).
func (s PartitionState) Exists() bool { return s.Replicas != nil }

// PartitionEvent is one record that changed a partition: the fields it
// changed, and the registration before and after it. Before a creation and
// after a deletion the state does not exist (Exists is false; Leader,
// LeaderEpoch and PartitionEpoch are -1 before a creation).
type PartitionEvent struct {
	At      Position
	Changed PartitionFields
	Before  PartitionState
	After   PartitionState
	Record  record.Record
}

// ISRShrank reports whether the event removed a member from the ISR.
func (e *PartitionEvent) ISRShrank() bool {
	if e.Changed&FieldISR == 0 || !e.Before.Exists() || !e.After.Exists() {
		return false
	}
	for _, b := range e.Before.ISR {
		if !slices.Contains(e.After.ISR, b) {
			return true
		}
	}
	return false
}

// LeaderChanged reports whether the event changed the partition's leader
// (its creation and its deletion do not count): the one definition of a
// leader change, counted in PartitionHistory.LeaderChanges and in the
// timeline.
func (e *PartitionEvent) LeaderChanged() bool {
	return e.Changed&FieldLeader != 0 && e.Before.Exists() && e.After.Exists()
}

// TopicPartition names a partition by topic id and partition id.
type TopicPartition struct {
	TopicID   record.UUID
	Partition int32
}

// PartitionHistory is everything the log says about one partition of one
// topic id (a topic re-created under a new id has new histories).
type PartitionHistory struct {
	Topic     string
	TopicID   record.UUID
	Partition int32
	Events    []PartitionEvent
	// LeaderChanges counts the records that changed the leader
	// (PartitionEvent.LeaderChanged: creation and deletion not included),
	// all counted.
	LeaderChanges int
	// ISRShrinks counts the records that removed an ISR member
	// (PartitionEvent.ISRShrank), all counted.
	ISRShrinks int
	Dropped    int

	track partTrack // what ReadTimeline's rows need beyond the counts
}

// Current is the partition's state at the end of the history.
func (p *PartitionHistory) Current() PartitionState {
	if n := len(p.Events); n > 0 {
		return p.Events[n-1].After
	}
	return PartitionState{}
}

// TopicEventKind says what a topic record did.
type TopicEventKind int8

// The topic events.
const (
	TopicCreated TopicEventKind = iota + 1
	// TopicGrown: partitions were added to a topic created earlier
	// (CreatePartitions).
	TopicGrown
	TopicDeleted
)

var topicEventNames = [...]string{"", "created", "grown", "deleted"}

// String returns the kind's name.
func (k TopicEventKind) String() string {
	if int(k) < len(topicEventNames) {
		return topicEventNames[k]
	}
	return "unknown"
}

// TopicEvent is a topic's creation, growth or deletion. Partitions is the
// number of partitions after it. A creation counts the partitions made in
// the same batch (or snapshot) as its TopicRecord; later PartitionRecords
// are growth.
type TopicEvent struct {
	At         Position
	Kind       TopicEventKind
	Partitions int
	Record     record.Record
}

// TopicHistory is the life of one topic id.
type TopicHistory struct {
	Name    string
	ID      record.UUID
	Events  []TopicEvent
	Dropped int
}

// ChangeKind says what kind of metadata a Change touched.
type ChangeKind int8

// The change kinds.
const (
	ChangeConfig ChangeKind = iota + 1
	ChangeClientQuota
	ChangeACL
	ChangeScram
	ChangeDelegationToken
	ChangeFeature
	ChangeController
	ChangeProducerIDs
	ChangeMigration
	ChangeTransaction
)

var changeNames = [...]string{"", "config", "client-quota", "acl", "scram", "delegation-token", "feature", "controller", "producer-ids", "zk-migration", "transaction"}

// String returns the kind's name.
func (k ChangeKind) String() string {
	if int(k) < len(changeNames) {
		return changeNames[k]
	}
	return "unknown"
}

// Change is one record that changed configs, quotas, ACLs, SCRAM users,
// tokens, feature levels, controller registrations, producer id blocks or
// the migration state, or began, ended or aborted a metadata transaction.
// Entity names what it changed (e.g. "topic:orders cleanup.policy",
// "user:alice SCRAM-SHA-256", "metadata.version"); Summary says how, with
// sensitive values redacted; Record is the record (redacted likewise).
type Change struct {
	At      Position
	Kind    ChangeKind
	Entity  string
	Summary string
	Record  record.Record
}

// RaftLeader is a LeaderChange control record: a new raft leader (a
// controller) of an epoch.
type RaftLeader struct {
	At       Position
	LeaderID int32
	Epoch    int32
	Voters   []int32
}

// Rejection is a record Kafka's replay rejects (delta.Replay's
// *delta.RecordError); Kafka's broker loader skips it, and so does the
// history.
type Rejection struct {
	At     Position
	Record record.Record
	Err    error
}

// History is what Read or a Builder gathered from a log. Its slices and
// maps are the caller's once Finish returned it.
type History struct {
	// Files are the files read, in order.
	Files []string
	// First and Last are the first and last positions read.
	First, Last Position
	// Records and Batches count what was read (control records included).
	Records, Batches int

	brokers    map[int32]*BrokerHistory
	partitions byPartition[PartitionHistory]
	topics     map[record.UUID]*TopicHistory

	// Changes lists the other changes in log order.
	Changes        []Change
	DroppedChanges int
	// RaftLeaders lists the LeaderChange control records in log order.
	RaftLeaders        []RaftLeader
	DroppedRaftLeaders int
	// Rejections lists the records the replay rejected, in log order.
	Rejections        []Rejection
	DroppedRejections int
	// Aborted counts the events discarded by aborted transactions.
	Aborted int
	// SnapshotsVerified counts the snapshots of a directory, after the
	// one the history starts from, that were compared with the replay at
	// their offset (differences are RuleSnapshotMismatch findings).
	SnapshotsVerified int
	// Findings lists what the checks found (see Check), in log order,
	// then the end-of-log findings.
	Findings        []Finding
	DroppedFindings int
}

// Brokers returns every broker's history, by id.
func (h *History) Brokers() []*BrokerHistory {
	out := make([]*BrokerHistory, 0, len(h.brokers))
	for _, b := range h.brokers {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b *BrokerHistory) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Broker returns broker id's history.
func (h *History) Broker(id int32) (*BrokerHistory, bool) {
	b, ok := h.brokers[id]
	return b, ok
}

// Partitions returns every partition's history, by topic name, topic id,
// then partition.
func (h *History) Partitions() []*PartitionHistory {
	out := make([]*PartitionHistory, 0, h.partitions.len())
	h.partitions.each(func(_ TopicPartition, p *PartitionHistory) bool {
		out = append(out, p)
		return true
	})
	slices.SortFunc(out, func(a, b *PartitionHistory) int {
		if c := cmp.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		if c := compareUUID(a.TopicID, b.TopicID); c != 0 {
			return c
		}
		return cmp.Compare(a.Partition, b.Partition)
	})
	return out
}

// Partition returns the history of a partition of a topic id.
func (h *History) Partition(id record.UUID, p int32) (*PartitionHistory, bool) {
	ph := h.partitions.get(TopicPartition{id, p})
	return ph, ph != nil
}

// PartitionsOf returns the histories of the partitions of every topic ever
// named name (several ids if it was deleted and re-created), in the order
// of Partitions.
func (h *History) PartitionsOf(name string) []*PartitionHistory {
	var out []*PartitionHistory
	for _, p := range h.Partitions() {
		if p.Topic == name {
			out = append(out, p)
		}
	}
	return out
}

// Topics returns every topic id's history, by name then id.
func (h *History) Topics() []*TopicHistory {
	out := make([]*TopicHistory, 0, len(h.topics))
	for _, t := range h.topics {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *TopicHistory) int {
		if c := cmp.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return compareUUID(a.ID, b.ID)
	})
	return out
}

// Topic returns the history of topic id.
func (h *History) Topic(id record.UUID) (*TopicHistory, bool) {
	t, ok := h.topics[id]
	return t, ok
}

func compareUUID(a, b record.UUID) int {
	for i := range a {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}
