package answer

import (
	"slices"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
)

// Names of Kafka's internal topics (Topic.GROUP_METADATA_TOPIC_NAME,
// TRANSACTION_STATE_TOPIC_NAME, SHARE_GROUP_STATE_TOPIC_NAME).
const (
	GroupTopic       = "__consumer_offsets"
	TransactionTopic = "__transaction_state"
	ShareStateTopic  = "__share_group_state"
)

// CreateTopic is a topic the answer asks the embedder to have its controller
// create (Kafka's AutoTopicCreationManager sends a CreateTopics request to
// the active controller). The answer already holds Kafka's first answer for
// it: UNKNOWN_TOPIC_OR_PARTITION in Metadata, COORDINATOR_NOT_AVAILABLE in
// FindCoordinator; the client retries until the topic is in the image.
// Kafka keeps such a topic "in flight" until the controller answers; an
// embedder should do likewise and not send a second request meanwhile.
type CreateTopic struct {
	Name              string
	NumPartitions     int32
	ReplicationFactor int16
}

func (o *call) createTopic(name string) CreateTopic {
	switch name {
	case GroupTopic, TransactionTopic, ShareStateTopic:
		rf := o.InternalTopicReplicationFactor
		if rf == 0 {
			rf = 3
		}
		return CreateTopic{Name: name, NumPartitions: 50, ReplicationFactor: rf}
	}
	np, rf := o.NumPartitions, o.DefaultReplicationFactor
	if np == 0 {
		np = 1
	}
	if rf == 0 {
		rf = 1
	}
	return CreateTopic{Name: name, NumPartitions: np, ReplicationFactor: rf}
}

func (o *call) authorize(op authz.Operation, rt authz.ResourceType, name string) bool {
	if o.Authorizer == nil {
		return true
	}
	return o.Authorizer.Authorize(authz.Context{Principal: o.Principal, Host: o.Host}, op, rt, name)
}

func (o *call) authorizedOps(rt authz.ResourceType, name string) int32 {
	return authz.AuthorizedOperations(o.Authorizer, authz.Context{Principal: o.Principal, Host: o.Host}, rt, name)
}

// controllerIDOf is ControllerId among the alive (unfenced) broker ids in
// ascending order, or -1 when there is none
// (MetadataResponse.NO_CONTROLLER_ID). ControllerID gets a copy.
func (o *call) controllerIDOf(alive []int32) int32 {
	if len(alive) == 0 {
		return -1
	}
	if o.ControllerID == nil {
		return alive[0]
	}
	return o.ControllerID(slices.Clone(alive))
}

// controllerID is ControllerId: an alive broker id, or -1 when none
// (MetadataResponse.NO_CONTROLLER_ID).
func (o *call) controllerID(img *image.Image) int32 {
	var alive []int32
	for b := range img.Cluster().AliveBrokers() {
		if o.ControllerID == nil {
			return b.ID()
		}
		alive = append(alive, b.ID())
	}
	if len(alive) == 0 {
		return -1
	}
	return o.ControllerID(alive)
}

// IsInternal reports a name of Kafka's internal topics (Topic.isInternal).
func IsInternal(name string) bool {
	return name == GroupTopic || name == TransactionTopic || name == ShareStateTopic
}

// ValidTopicName is Kafka's Topic.validate: not empty, not "." or "..", at
// most 249 characters, only ASCII letters, digits, '.', '_' and '-'.
func ValidTopicName(name string) bool {
	if name == "" || name == "." || name == ".." || len(name) > 249 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
