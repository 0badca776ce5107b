package clientview

import (
	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/record"
)

// MergeOptions describe the request an answer replies to.
type MergeOptions struct {
	// AllTopics: the request asked for every topic (Topics null). A topic of
	// the view absent from such an answer is marked for refresh, and removed
	// after RewindAfter consecutive full answers without it (once when
	// rewinds are disabled, as the Java client drops it at once).
	AllTopics bool
	// Node is the broker that answered, when HasNode is set. It lets the
	// rewind escape require two distinct brokers.
	Node    int32
	HasNode bool
}

// EventKind says what an Event reports.
type EventKind uint8

const (
	// TopicAdded: a topic new to the view.
	TopicAdded EventKind = iota + 1
	// TopicRecreated: an answer carried another topic id for a known name
	// (KAFKA-12257): the old incarnation's partitions and epochs are dropped.
	// OldTopicID is the replaced id.
	TopicRecreated
	// TopicDeleted: the topic was removed from the view after consecutive
	// answers agreeing it does not exist.
	TopicDeleted
	// PartitionsGrew: Before and After are the partition counts (keys
	// hashed modulo Before now go modulo After; see partitioner.KeyMove).
	PartitionsGrew
	// LeaderMoved: Before and After are the leaders, Epoch the new epoch.
	LeaderMoved
	// StaleAnswer: an answer with an older leader epoch (After) than the
	// view's (Before) was ignored.
	StaleAnswer
	// SuspectLeader: an answer named leader After at the view's own epoch
	// Epoch, where the view knows leader Before (redpanda-data/redpanda#31668).
	SuspectLeader
	// RewindAccepted: RewindAfter consecutive answers agreed on an older
	// epoch (After) than the view's (Before): the view took it (franz-go#119).
	RewindAccepted
	// StaleTopicID: an answer described an incarnation of the topic that the
	// view has already replaced; it was ignored.
	StaleTopicID
	// ClusterIDChanged: the answer came from another cluster.
	ClusterIDChanged
)

var eventNames = [...]string{"", "TopicAdded", "TopicRecreated", "TopicDeleted", "PartitionsGrew",
	"LeaderMoved", "StaleAnswer", "SuspectLeader", "RewindAccepted", "StaleTopicID", "ClusterIDChanged"}

// String returns the kind's name.
func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "EventKind(?)"
}

// Event is one thing a merge or hint changed or refused.
type Event struct {
	Kind      EventKind
	Topic     string
	Partition int32 // for the partition events (LeaderMoved to RewindAccepted)
	// Before, After and Epoch are what the kind says (a leader, an epoch or
	// a partition count; see each EventKind).
	Before, After, Epoch int32
	// TopicID is the topic's id; OldTopicID the id an event replaced or
	// refused the topic in favour of (TopicRecreated, StaleTopicID).
	TopicID    record.UUID
	OldTopicID record.UUID
}

// Report says what a merge or a hint did.
type Report struct {
	// Changed: the returned view is not the receiver.
	Changed bool
	// Progress: the answer told the view something newer (a higher epoch, a
	// new leader, topic or partition). An answer without progress is what the
	// Java client counts as an equivalent response (equivalentResponseCount),
	// which backs its next refresh off.
	Progress bool
	// ErrorCode is the top-level error of a Metadata v13 answer
	// (REBOOTSTRAP_REQUIRED, KIP-1102); such an answer is not merged.
	ErrorCode kafkaerr.Code
	// Refused counts partitions whose answer was ignored (stale or suspect).
	Refused int
	// Invalid counts entries ignored as bad input (no topic name or id,
	// negative partition ids, partition ids far past the known count).
	Invalid int
	// Events are what changed or was refused, in the order of the answer;
	// made afresh for each call, the caller's own.
	Events []Event
}
