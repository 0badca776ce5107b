package kafkaerr

import "errors"

// The codes of the controller's answers that delta/deltatest's simulator
// returns, with Kafka's values (Errors).
const (
	TopicAlreadyExists          Code = 36
	InvalidPartitions           Code = 37
	InvalidReplicationFactor    Code = 38
	InvalidReplicaAssignment    Code = 39
	InvalidConfig               Code = 40
	PolicyViolation             Code = 44
	PreferredLeaderNotAvailable Code = 80
	ElectionNotNeeded           Code = 84
	NoReassignmentInProgress    Code = 85
	DuplicateBrokerRegistration Code = 101
	BrokerIDNotRegistered       Code = 102
	IneligibleReplica           Code = 107
	// ControllerIDNotRegistered is new in Kafka 4.4 (KIP-1312).
	ControllerIDNotRegistered Code = 136
)

// controllerName is String for the codes of the controller's answers, or ""
// for another code.
func controllerName(c Code) string {
	switch c {
	case TopicAlreadyExists:
		return "TOPIC_ALREADY_EXISTS"
	case InvalidPartitions:
		return "INVALID_PARTITIONS"
	case InvalidReplicationFactor:
		return "INVALID_REPLICATION_FACTOR"
	case InvalidReplicaAssignment:
		return "INVALID_REPLICA_ASSIGNMENT"
	case InvalidConfig:
		return "INVALID_CONFIG"
	case PolicyViolation:
		return "POLICY_VIOLATION"
	case PreferredLeaderNotAvailable:
		return "PREFERRED_LEADER_NOT_AVAILABLE"
	case ElectionNotNeeded:
		return "ELECTION_NOT_NEEDED"
	case NoReassignmentInProgress:
		return "NO_REASSIGNMENT_IN_PROGRESS"
	case DuplicateBrokerRegistration:
		return "DUPLICATE_BROKER_REGISTRATION"
	case BrokerIDNotRegistered:
		return "BROKER_ID_NOT_REGISTERED"
	case IneligibleReplica:
		return "INELIGIBLE_REPLICA"
	case ControllerIDNotRegistered:
		return "CONTROLLER_ID_NOT_REGISTERED"
	}
	return ""
}

// Error makes a Code a Go error. Its text is String, Kafka's name of the
// code (e.g. "UNKNOWN_TOPIC_OR_PARTITION"), so a code prints the same
// whether fmt sees it as an error or as a Stringer; Message holds Kafka's
// default message where kmeta answers with one.
func (c Code) Error() string { return c.String() }

// Is reports whether target is the same code, so that
// errors.Is(err, kafkaerr.UnknownTopicOrPartition) holds for an err that
// is or wraps that code (directly or through any error whose Unwrap leads to
// it).
func (c Code) Is(target error) bool {
	t, ok := target.(Code)
	return ok && t == c
}

// Err is the code as an error for a caller that returns what it read from
// the wire: nil for None, the code itself otherwise.
func (c Code) Err() error {
	if c == None {
		return nil
	}
	return c
}

// Int16 is the code's value for a kmsg ErrorCode field (Errors.code()).
func (c Code) Int16() int16 { return int16(c) }

// FromInt16 is the Code of an ErrorCode field read from the wire
// (Errors.forCode); a value kmeta does not name is kept as is and prints
// as "UNKNOWN(n)".
func FromInt16(v int16) Code { return Code(v) }

// CodeOf is the first Code in err's chain (errors.As): None for a nil err,
// UnknownServerError for an error that holds no Code (as Errors.forException
// maps an exception it does not know).
func CodeOf(err error) Code {
	if err == nil {
		return None
	}
	var c Code
	if errors.As(err, &c) {
		return c
	}
	return UnknownServerError
}

// Retriable reports whether Kafka's exception for the code is a
// RetriableException (ApiException.isRetriable in the client), so that the
// same request may succeed if sent again: the InvalidMetadataException
// family (a client refreshes metadata first), CoordinatorNotAvailable and
// UnknownLeaderEpoch. None and every other code kmeta names are not.
func (c Code) Retriable() bool {
	switch c {
	case UnknownTopicOrPartition, LeaderNotAvailable, NotLeaderOrFollower, ReplicaNotAvailable,
		CoordinatorNotAvailable, KafkaStorageError, ListenerNotFound, FencedLeaderEpoch,
		UnknownLeaderEpoch, UnknownTopicID, InconsistentTopicID, PreferredLeaderNotAvailable,
		ElectionNotNeeded:
		return true
	}
	return false
}
