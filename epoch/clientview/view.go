package clientview

import (
	"iter"
	"sort"
	"unsafe"

	"github.com/kmeta-go/kmeta/record"
)

// DefaultRewindAfter is the number of consecutive answers that must agree on
// the same older leader epoch (and leader) before a View accepts that the
// cluster really went back (franz-go settled on 5 for twmb/franz-go#119).
const DefaultRewindAfter = 5

// maxPartitionGap bounds how far past a topic's known partition count one
// answer may reach; a partition id beyond it is refused as bad input rather
// than allocating placeholders for it.
const maxPartitionGap = 1 << 16

// retiredIDs is how many earlier incarnations (topic ids) of a name a View
// remembers, to refuse answers about a deleted incarnation.
const retiredIDs = 4

// ViewConfig configures a View. The zero value is Kafka's behaviour with
// franz-go's escape from a rewound cluster.
type ViewConfig struct {
	// RewindAfter is how many consecutive answers must agree on the same
	// older leader epoch and leader before the view accepts it (the escape of
	// twmb/franz-go#119 from a cluster that really went back). When the
	// embedder says which broker answered (MergeOptions.Node), at least two
	// distinct brokers must be among them, so one lagging broker cannot roll a
	// view back alone. 0 means DefaultRewindAfter; negative means never.
	RewindAfter int
}

func (c ViewConfig) rewindAfter() int {
	switch {
	case c.RewindAfter == 0:
		return DefaultRewindAfter
	case c.RewindAfter < 0:
		return 0
	case c.RewindAfter > 255:
		return 255
	}
	return c.RewindAfter
}

// Broker is one broker of a Metadata answer (MetadataResponseBroker) or of a
// KIP-951 NodeEndpoints list, read through its methods. It is a plain value:
// a copy shares nothing with the View it came from.
type Broker struct {
	nodeID  int32
	port    int32
	host    string
	rack    string
	hasRack bool
}

// NewBroker returns a broker as an answer carries it (rack nil: none), for
// the nodes given to View.ApplyHints.
func NewBroker(nodeID int32, host string, port int32, rack *string) Broker {
	b := Broker{nodeID: nodeID, host: host, port: port}
	if rack != nil {
		b.rack, b.hasRack = *rack, true
	}
	return b
}

// NodeID is the broker id.
func (b Broker) NodeID() int32 { return b.nodeID }

// Host is the broker's advertised host on the listener the answer was asked on.
func (b Broker) Host() string { return b.host }

// Port is the broker's advertised port.
func (b Broker) Port() int32 { return b.port }

// Rack returns the broker's rack and whether it has one.
func (b Broker) Rack() (string, bool) { return b.rack, b.hasRack }

func (b *Broker) equal(nodeID int32, host string, port int32, rack *string) bool {
	if b.nodeID != nodeID || b.host != host || b.port != port {
		return false
	}
	if b.hasRack != (rack != nil) {
		return false
	}
	return !b.hasRack || b.rack == *rack
}

// Flags describe what a View knows about the freshness of one partition.
type Flags uint8

const (
	// NeedsRefresh: the view knows its entry is or may be out of date (an
	// error, no leader, a refused answer, a placeholder); the refresh policy
	// asks for this topic soon.
	NeedsRefresh Flags = 1 << iota
	// NoLeader: the last answer said the partition has no leader (leader -1,
	// LEADER_NOT_AVAILABLE); Leader and LeaderEpoch still hold the last
	// leader known (twmb/franz-go#1331: "no leader" is not a rewind).
	NoLeader
	// Suspect: an answer named another leader at the same leader epoch. In
	// Kafka one epoch has one leader, so one of the two answers is wrong; the
	// view keeps the first (redpanda-data/redpanda#31668).
	Suspect
	// Stale: the last answer about this partition carried an older leader
	// epoch and was ignored.
	Stale
	// EpochUnknown: Leader came from an answer without a reliable epoch
	// (Metadata below v9, or leader epoch -1): LeaderEpoch is -1 and requests
	// must not carry an epoch (KAFKA-9212).
	EpochUnknown
	// Missing: a placeholder for a partition id below the partition count
	// that no answer has described yet (the count is never lowered, so that
	// key → partition mapping does not change: kafkaex/kafka_ex#594).
	Missing
)

// streak counts consecutive refused answers agreeing on one (epoch, leader).
type streak struct {
	epoch  int32
	leader int32
	node   int32 // the first answering broker, -1 unknown
	n      uint8
	multi  bool // a second distinct broker agreed
}

// Partition is one partition as a View knows it, read through its methods
// (a Partition held by a View is never modified; the lists are returned as
// copies).
type Partition struct {
	id          int32
	leader      int32
	leaderEpoch int32
	seenEpoch   int32
	errorCode   int16
	flags       Flags

	// The rewind streak, flattened so that a Partition is 48 bytes: less to
	// stream through in a merge and to copy with a changed topic.
	streakN, streakMulti      uint8
	nRep, nISR, nOff          uint16 // lengths of the parts of lists
	streakEpoch, streakLeader int32
	streakNode                int32
	lists                     *int32 // replicas, then ISR, then offline replicas; nil if all empty
}

func (p *Partition) streak() streak {
	return streak{epoch: p.streakEpoch, leader: p.streakLeader, node: p.streakNode, n: p.streakN,
		multi: p.streakMulti != 0}
}

func (p *Partition) setStreak(s streak) {
	p.streakEpoch, p.streakLeader, p.streakNode, p.streakN = s.epoch, s.leader, s.node, s.n
	p.streakMulti = 0
	if s.multi {
		p.streakMulti = 1
	}
}

// allLists is the replica, ISR and offline lists end to end. The array is
// never modified once in a View.
func (p *Partition) allLists() []int32 {
	return unsafe.Slice(p.lists, int(p.nRep)+int(p.nISR)+int(p.nOff))
}

// ID is the partition id.
func (p *Partition) ID() int32 { return p.id }

// Leader is the last leader an answer named, -1 if none ever was. It is kept
// when a later answer says the partition has no leader (see HasLeader).
func (p *Partition) Leader() int32 { return p.leader }

// LeaderEpoch is the epoch at which Leader was named; -1 if the answer
// carried no reliable epoch. It is the epoch to send in Fetch, ListOffsets
// and OffsetsForLeaderEpoch (KIP-320).
func (p *Partition) LeaderEpoch() int32 { return p.leaderEpoch }

// SeenEpoch is the highest reliable leader epoch seen for this partition of
// this topic incarnation, -1 if none. It never decreases, except by an
// escape (ViewConfig.RewindAfter) or a recreated topic.
func (p *Partition) SeenEpoch() int32 { return p.seenEpoch }

// ErrorCode is the partition error of the last answer the view took.
func (p *Partition) ErrorCode() int16 { return p.errorCode }

// Flags are what the view knows about the freshness of the partition.
func (p *Partition) Flags() Flags { return p.flags }

// Replicas returns a copy of the replica list.
func (p *Partition) Replicas() []int32 { return append([]int32(nil), p.replicas()...) }

// ISR returns a copy of the in-sync replica list.
func (p *Partition) ISR() []int32 { return append([]int32(nil), p.isr()...) }

// OfflineReplicas returns a copy of the offline replica list.
func (p *Partition) OfflineReplicas() []int32 { return append([]int32(nil), p.offline()...) }

// AppendReplicas appends the replica list to dst.
func (p *Partition) AppendReplicas(dst []int32) []int32 { return append(dst, p.replicas()...) }

// HasLeader reports whether the view knows a leader to send requests to:
// a leader was named and the last answer did not say there is none.
func (p *Partition) HasLeader() bool { return p.leader >= 0 && p.flags&NoLeader == 0 }

func (p *Partition) replicas() []int32 { return p.allLists()[:p.nRep] }
func (p *Partition) isr() []int32      { return p.allLists()[p.nRep : p.nRep+p.nISR] }
func (p *Partition) offline() []int32  { return p.allLists()[p.nRep+p.nISR:] }

// Topic is one topic as a View knows it. A *Topic held by a View is never
// modified; the next View shares it when nothing about it changed.
type Topic struct {
	// What every merge reads comes first, in the first 64 bytes: one cache
	// line, as the padding at the end puts a Topic in the 128-byte size
	// class, whose objects are 128-byte aligned.
	name      string
	parts     []Partition
	id        record.UUID
	errorCode int16
	internal  bool
	refresh   bool  // topic-level need (error, unknown)
	gone      uint8 // consecutive answers saying it does not exist (or absent from full answers)
	idStreak  struct {
		n  uint8
		id record.UUID
	}
	retired []record.UUID // earlier incarnations, oldest first
	pending int           // partitions needing refresh
	_       [16]byte
}

// Name is the topic name.
func (t *Topic) Name() string { return t.name }

// ID is the topic id (zero if no answer carried one: Metadata below v10).
func (t *Topic) ID() record.UUID { return t.id }

// ErrorCode is the topic error of the last answer (0 none).
func (t *Topic) ErrorCode() int16 { return t.errorCode }

// IsInternal reports Kafka's internal topic flag.
func (t *Topic) IsInternal() bool { return t.internal }

// NumPartitions is the partition count the default partitioner must use:
// every partition ever described for this incarnation, with or without a
// leader, with or without an error (never lowered by a partial answer).
func (t *Topic) NumPartitions() int { return len(t.parts) }

// Partition returns partition id. The Partition is the view's own; it is
// read through its methods and never changes.
func (t *Topic) Partition(id int32) (*Partition, bool) {
	if id < 0 || int(id) >= len(t.parts) {
		return nil, false
	}
	return &t.parts[id], true
}

// Partitions iterates over the partitions in id order.
func (t *Topic) Partitions() iter.Seq[*Partition] {
	return func(yield func(*Partition) bool) {
		for i := range t.parts {
			if !yield(&t.parts[i]) {
				return
			}
		}
	}
}

// NeedsRefresh reports whether the topic or one of its partitions should be
// asked for again soon.
func (t *Topic) NeedsRefresh() bool { return t.refresh || t.pending > 0 }

// RetiredIDs returns the ids of earlier incarnations of this name the view
// has replaced, oldest first.
func (t *Topic) RetiredIDs() []record.UUID { return append([]record.UUID(nil), t.retired...) }

func (t *Topic) isRetired(id record.UUID) bool {
	for _, r := range t.retired {
		if r == id {
			return true
		}
	}
	return false
}

func (t *Topic) clone() *Topic {
	c := *t
	c.parts = append([]Partition(nil), t.parts...)
	return &c
}

func (t *Topic) recount() {
	n := 0
	for i := range t.parts {
		if t.parts[i].flags&NeedsRefresh != 0 {
			n++
		}
	}
	t.pending = n
}

// View is a client's cluster view built from Metadata answers and KIP-951
// hints. A View is immutable: Merge and the hint methods return a new View
// sharing every unchanged topic with the old one, so any number of goroutines
// may read a View while the next one is made.
type View struct {
	cfg        ViewConfig
	brokers    []Broker // sorted by NodeID
	controller int32
	clusterID  *string
	tab        topicTable // topics by name
	ids        map[record.UUID]string
	// order holds, for each topic entry of the answer that made this view,
	// the slot of tab holding that entry's topic when the view was made
	// (-1: none): a lookup hint for the next answer, checked by name. Views
	// made by hints and MarkRefresh keep it (a replaced topic keeps its slot).
	order      []int32
	refreshing int // topics with NeedsRefresh
	updates    uint64
}

// NewView returns an empty view.
func NewView(cfg ViewConfig) *View {
	return &View{cfg: cfg, controller: -1, ids: map[record.UUID]string{}}
}

// Config returns the view's configuration.
func (v *View) Config() ViewConfig { return v.cfg }

// Updates counts the answers and hints that changed the view.
func (v *View) Updates() uint64 { return v.updates }

// Topic returns the topic named name.
func (v *View) Topic(name string) (*Topic, bool) {
	t := v.tab.get(name)
	return t, t != nil
}

// TopicByID returns the topic with id.
func (v *View) TopicByID(id record.UUID) (*Topic, bool) {
	name, ok := v.ids[id]
	if !ok {
		return nil, false
	}
	return v.Topic(name)
}

// NumTopics is the number of topics in the view.
func (v *View) NumTopics() int { return v.tab.n }

// Topics iterates over the topics in name order.
func (v *View) Topics() iter.Seq[*Topic] {
	return func(yield func(*Topic) bool) {
		ts := make([]*Topic, 0, v.tab.n)
		for t := range v.tab.all() {
			ts = append(ts, t)
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i].name < ts[j].name })
		for _, t := range ts {
			if !yield(t) {
				return
			}
		}
	}
}

// Leader returns the leader of a partition and its leader epoch; ok is false
// when the partition is unknown or has no leader known to send requests to.
func (v *View) Leader(topic string, partition int32) (leader, leaderEpoch int32, ok bool) {
	t := v.tab.get(topic)
	if t == nil {
		return -1, -1, false
	}
	p, found := t.Partition(partition)
	if !found || !p.HasLeader() {
		return -1, -1, false
	}
	return p.leader, p.leaderEpoch, true
}

// Brokers returns a copy of the broker list of the last answer (plus nodes
// learnt from KIP-951 hints since), sorted by node id.
func (v *View) Brokers() []Broker { return append([]Broker(nil), v.brokers...) }

// Broker returns broker id.
func (v *View) Broker(id int32) (Broker, bool) {
	i := sort.Search(len(v.brokers), func(i int) bool { return v.brokers[i].nodeID >= id })
	if i < len(v.brokers) && v.brokers[i].nodeID == id {
		return v.brokers[i], true
	}
	return Broker{}, false
}

// ControllerID is the controller id of the last answer (a random alive
// broker under KRaft, KIP-590), -1 if none.
func (v *View) ControllerID() int32 { return v.controller }

// ClusterID is the cluster id of the last answer that carried one.
func (v *View) ClusterID() (string, bool) {
	if v.clusterID == nil {
		return "", false
	}
	return *v.clusterID, true
}

// NeedsRefresh reports whether any topic should be asked for again soon.
func (v *View) NeedsRefresh() bool { return v.refreshing > 0 }

// RefreshTopics appends to dst the names of the topics that need a refresh,
// in name order.
func (v *View) RefreshTopics(dst []string) []string {
	if v.refreshing == 0 {
		return dst
	}
	start := len(dst)
	for t := range v.tab.all() {
		if t.NeedsRefresh() {
			dst = append(dst, t.name)
		}
	}
	sort.Strings(dst[start:])
	return dst
}
