// Package kafkaerr holds the Kafka protocol error codes kmeta's answers,
// checks and simulator produce, as one typed Code
// (org.apache.kafka.common.protocol.Errors), with Kafka's name and default
// message for each.
//
// A Code is both the value carried in a response's ErrorCode field and a Go
// error, in the spirit of franz-go's pkg/kerr: a function can return
// kafkaerr.UnknownTopicOrPartition (or wrap it with fmt.Errorf("...: %w", c)),
// and a caller tests it with errors.Is or pulls the code back out of a
// wrapped chain with CodeOf. None (0) is success; Code.Err turns a code read
// from the wire into nil for None. Put a code into a kmsg response with
// Int16 and read one back with FromInt16:
//
//	part.ErrorCode = kafkaerr.NotLeaderOrFollower.Int16()
//	if err := kafkaerr.FromInt16(resp.ErrorCode).Err(); err != nil { ... }
package kafkaerr

import "strconv"

// Code is a Kafka error code (Errors.code()).
type Code int16

// The codes kmeta produces, with Kafka's values (Errors).
const (
	UnknownServerError                 Code = -1
	None                               Code = 0
	UnknownTopicOrPartition            Code = 3
	LeaderNotAvailable                 Code = 5
	NotLeaderOrFollower                Code = 6
	ReplicaNotAvailable                Code = 9
	CoordinatorNotAvailable            Code = 15
	InvalidTopic                       Code = 17
	TopicAuthorizationFailed           Code = 29
	GroupAuthorizationFailed           Code = 30
	ClusterAuthorizationFailed         Code = 31
	UnsupportedVersion                 Code = 35
	InvalidRequest                     Code = 42
	TransactionalIDAuthorizationFailed Code = 53
	KafkaStorageError                  Code = 56
	ListenerNotFound                   Code = 72
	FencedLeaderEpoch                  Code = 74
	UnknownLeaderEpoch                 Code = 75
	UnknownTopicID                     Code = 100
	InconsistentTopicID                Code = 103
	MismatchedEndpointType             Code = 114
	UnsupportedEndpointType            Code = 115
	RebootstrapRequired                Code = 129

	// SASL, delegation tokens and the describe answers of credentials.
	UnsupportedSaslMechanism           Code = 33
	IllegalSaslState                   Code = 34
	SecurityDisabled                   Code = 54
	SaslAuthenticationFailed           Code = 58
	DelegationTokenAuthDisabled        Code = 61
	DelegationTokenNotFound            Code = 62
	DelegationTokenOwnerMismatch       Code = 63
	DelegationTokenRequestNotAllowed   Code = 64
	DelegationTokenAuthorizationFailed Code = 65
	DelegationTokenExpired             Code = 66
	ResourceNotFound                   Code = 91
	DuplicateResource                  Code = 92
)

// String is Kafka's name of the code (the Errors enum constant, e.g.
// "NOT_LEADER_OR_FOLLOWER"), or "UNKNOWN(n)" for a code not listed here.
func (c Code) String() string {
	switch c {
	case UnknownServerError:
		return "UNKNOWN_SERVER_ERROR"
	case None:
		return "NONE"
	case UnknownTopicOrPartition:
		return "UNKNOWN_TOPIC_OR_PARTITION"
	case LeaderNotAvailable:
		return "LEADER_NOT_AVAILABLE"
	case NotLeaderOrFollower:
		return "NOT_LEADER_OR_FOLLOWER"
	case ReplicaNotAvailable:
		return "REPLICA_NOT_AVAILABLE"
	case CoordinatorNotAvailable:
		return "COORDINATOR_NOT_AVAILABLE"
	case InvalidTopic:
		return "INVALID_TOPIC_EXCEPTION"
	case TopicAuthorizationFailed:
		return "TOPIC_AUTHORIZATION_FAILED"
	case GroupAuthorizationFailed:
		return "GROUP_AUTHORIZATION_FAILED"
	case ClusterAuthorizationFailed:
		return "CLUSTER_AUTHORIZATION_FAILED"
	case UnsupportedVersion:
		return "UNSUPPORTED_VERSION"
	case InvalidRequest:
		return "INVALID_REQUEST"
	case TransactionalIDAuthorizationFailed:
		return "TRANSACTIONAL_ID_AUTHORIZATION_FAILED"
	case KafkaStorageError:
		return "KAFKA_STORAGE_ERROR"
	case InconsistentTopicID:
		return "INCONSISTENT_TOPIC_ID"
	case ListenerNotFound:
		return "LISTENER_NOT_FOUND"
	case FencedLeaderEpoch:
		return "FENCED_LEADER_EPOCH"
	case UnknownLeaderEpoch:
		return "UNKNOWN_LEADER_EPOCH"
	case UnknownTopicID:
		return "UNKNOWN_TOPIC_ID"
	case MismatchedEndpointType:
		return "MISMATCHED_ENDPOINT_TYPE"
	case UnsupportedEndpointType:
		return "UNSUPPORTED_ENDPOINT_TYPE"
	case RebootstrapRequired:
		return "REBOOTSTRAP_REQUIRED"
	case UnsupportedSaslMechanism:
		return "UNSUPPORTED_SASL_MECHANISM"
	case IllegalSaslState:
		return "ILLEGAL_SASL_STATE"
	case SecurityDisabled:
		return "SECURITY_DISABLED"
	case SaslAuthenticationFailed:
		return "SASL_AUTHENTICATION_FAILED"
	case DelegationTokenAuthDisabled:
		return "DELEGATION_TOKEN_AUTH_DISABLED"
	case DelegationTokenNotFound:
		return "DELEGATION_TOKEN_NOT_FOUND"
	case DelegationTokenOwnerMismatch:
		return "DELEGATION_TOKEN_OWNER_MISMATCH"
	case DelegationTokenRequestNotAllowed:
		return "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED"
	case DelegationTokenAuthorizationFailed:
		return "DELEGATION_TOKEN_AUTHORIZATION_FAILED"
	case DelegationTokenExpired:
		return "DELEGATION_TOKEN_EXPIRED"
	case ResourceNotFound:
		return "RESOURCE_NOT_FOUND"
	case DuplicateResource:
		return "DUPLICATE_RESOURCE"
	}
	if n := controllerName(c); n != "" {
		return n
	}
	return "UNKNOWN(" + strconv.Itoa(int(c)) + ")"
}

// Message is Errors.message(), the message of the code's default exception,
// for the codes whose message an answer carries (FindCoordinator's
// ErrorMessage): "NONE" for None; "" for the codes whose message kmeta does
// not answer with.
func (c Code) Message() string {
	switch c {
	case None:
		return "NONE"
	case CoordinatorNotAvailable:
		return "The coordinator is not available."
	case GroupAuthorizationFailed:
		return "Group authorization failed."
	case TransactionalIDAuthorizationFailed:
		return "Transactional Id authorization failed."
	case ClusterAuthorizationFailed:
		return "Cluster authorization failed."
	case InvalidRequest:
		return "This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details."
	}
	return ""
}
