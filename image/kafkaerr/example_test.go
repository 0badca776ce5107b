package kafkaerr_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// A code prints as Kafka's name and goes into a kmsg field as int16.
func ExampleCode() {
	c := kafkaerr.NotLeaderOrFollower
	var errorCode int16 = int16(c) // e.g. a FetchResponse partition's ErrorCode
	fmt.Println(c, errorCode, kafkaerr.Code(errorCode) == c)
	fmt.Println(kafkaerr.CoordinatorNotAvailable.Message())
	fmt.Println(kafkaerr.Code(-2))
	// Output:
	// NOT_LEADER_OR_FOLLOWER 6 true
	// The coordinator is not available.
	// UNKNOWN(-2)
}

// TestCodesAreKafkas: every code kmeta defines has Kafka's name, and no two
// codes share a value or a name (Errors' codes and names are unique).
func TestCodesAreKafkas(t *testing.T) {
	codes := []kafkaerr.Code{kafkaerr.UnknownServerError, kafkaerr.None, kafkaerr.UnknownTopicOrPartition,
		kafkaerr.LeaderNotAvailable, kafkaerr.NotLeaderOrFollower, kafkaerr.ReplicaNotAvailable,
		kafkaerr.CoordinatorNotAvailable, kafkaerr.InvalidTopic, kafkaerr.TopicAuthorizationFailed,
		kafkaerr.GroupAuthorizationFailed, kafkaerr.ClusterAuthorizationFailed, kafkaerr.UnsupportedVersion,
		kafkaerr.InvalidRequest, kafkaerr.TransactionalIDAuthorizationFailed, kafkaerr.KafkaStorageError,
		kafkaerr.ListenerNotFound, kafkaerr.FencedLeaderEpoch, kafkaerr.UnknownLeaderEpoch, kafkaerr.UnknownTopicID,
		kafkaerr.InconsistentTopicID, kafkaerr.MismatchedEndpointType, kafkaerr.UnsupportedEndpointType,
		kafkaerr.RebootstrapRequired, kafkaerr.UnsupportedSaslMechanism, kafkaerr.IllegalSaslState,
		kafkaerr.SecurityDisabled, kafkaerr.SaslAuthenticationFailed, kafkaerr.DelegationTokenAuthDisabled,
		kafkaerr.DelegationTokenNotFound, kafkaerr.DelegationTokenOwnerMismatch, kafkaerr.DelegationTokenRequestNotAllowed,
		kafkaerr.DelegationTokenAuthorizationFailed, kafkaerr.DelegationTokenExpired, kafkaerr.ResourceNotFound,
		kafkaerr.DuplicateResource,
		kafkaerr.TopicAlreadyExists, kafkaerr.InvalidPartitions, kafkaerr.InvalidReplicationFactor,
		kafkaerr.InvalidReplicaAssignment, kafkaerr.InvalidConfig, kafkaerr.PolicyViolation, kafkaerr.PreferredLeaderNotAvailable,
		kafkaerr.ElectionNotNeeded, kafkaerr.NoReassignmentInProgress, kafkaerr.DuplicateBrokerRegistration,
		kafkaerr.BrokerIDNotRegistered, kafkaerr.IneligibleReplica, kafkaerr.ControllerIDNotRegistered}
	names := map[string]kafkaerr.Code{}
	for _, c := range codes {
		n := c.String()
		if strings.HasPrefix(n, "UNKNOWN(") {
			t.Errorf("code %d has no name", int16(c))
		}
		if o, dup := names[n]; dup {
			t.Errorf("codes %d and %d are both %s", int16(o), int16(c), n)
		}
		names[n] = c
	}
	want := map[kafkaerr.Code]string{6: "NOT_LEADER_OR_FOLLOWER", 35: "UNSUPPORTED_VERSION", 74: "FENCED_LEADER_EPOCH", 129: "REBOOTSTRAP_REQUIRED",
		36: "TOPIC_ALREADY_EXISTS", 102: "BROKER_ID_NOT_REGISTERED", 136: "CONTROLLER_ID_NOT_REGISTERED"}
	for c, n := range want {
		if c.String() != n {
			t.Errorf("code %d is %s, want %s", int16(c), c, n)
		}
	}
}
