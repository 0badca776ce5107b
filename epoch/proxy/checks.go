package proxy

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// Short names for the table below.
const (
	opRead, opWrite, opCreate, opDelete, opAlter, opDescribe = authz.OpRead, authz.OpWrite, authz.OpCreate, authz.OpDelete, authz.OpAlter, authz.OpDescribe
	opDescribeConfigs, opAlterConfigs, opClusterAction       = authz.OpDescribeConfigs, authz.OpAlterConfigs, authz.OpClusterAction
	rtTopic, rtGroup, rtCluster, rtTxn                       = authz.ResourceTopic, authz.ResourceGroup, authz.ResourceCluster, authz.ResourceTransactionalID
)

func topicCheck(op authz.Operation, name string) check {
	return check{op: op, rt: rtTopic, name: name, code: kafkaerr.TopicAuthorizationFailed.Int16()}
}

func groupCheck(op authz.Operation, name string, whole bool) check {
	return check{op: op, rt: rtGroup, name: name, code: kafkaerr.GroupAuthorizationFailed.Int16(), whole: whole}
}

func txnCheck(name string) check {
	return check{op: opWrite, rt: rtTxn, name: name, code: kafkaerr.TransactionalIDAuthorizationFailed.Int16(), whole: true}
}

func clusterCheck(op authz.Operation) check {
	return check{op: op, rt: rtCluster, name: clusterName, code: kafkaerr.ClusterAuthorizationFailed.Int16(), whole: true}
}

// unknownTopicID is a check no one passes: a topic id the view cannot
// name is answered UNKNOWN_TOPIC_ID, as KafkaApis answers a topic id its
// metadata cache does not hold.
func unknownTopicID() check {
	return check{op: authz.OpUnknown, rt: rtTopic, name: "", code: kafkaerr.UnknownTopicID.Int16()}
}

// topicByNameOrID is the check of a topic named by name or (name empty) by
// id, resolved through names.
func topicByNameOrID(op authz.Operation, name string, id [16]byte, names func([16]byte) (string, bool)) check {
	if name == "" && id != ([16]byte{}) {
		n, ok := names(id)
		if !ok {
			return unknownTopicID()
		}
		name = n
	}
	return topicCheck(op, name)
}

// requestChecks lists what KafkaApis authorizes for req (the handle*Request
// method of its API), and whether the API is in the table. names resolves
// topic ids.
func requestChecks(req kmsg.Request, names func([16]byte) (string, bool)) ([]check, bool) {
	var out []check
	switch r := req.(type) {
	case *kmsg.FetchRequest: // handleFetchRequest
		if r.ReplicaID >= 0 || r.ReplicaState.ID >= 0 {
			return []check{clusterCheck(opClusterAction)}, true
		}
		for _, t := range r.Topics {
			out = append(out, topicByNameOrID(opRead, t.Topic, t.TopicID, names))
		}
	case *kmsg.ListOffsetsRequest: // handleListOffsetRequest
		for _, t := range r.Topics {
			out = append(out, topicCheck(opDescribe, t.Topic))
		}
	case *kmsg.MetadataRequest: // forwarded only where the view cannot answer
		if r.Topics == nil {
			return []check{clusterCheck(opDescribe)}, true // stricter: the answer is not filtered
		}
		for _, t := range r.Topics {
			name := ""
			if t.Topic != nil {
				name = *t.Topic
			}
			out = append(out, topicByNameOrID(opDescribe, name, t.TopicID, names))
		}
	case *kmsg.JoinGroupRequest:
		out = append(out, groupCheck(opRead, r.Group, true))
	case *kmsg.HeartbeatRequest:
		out = append(out, groupCheck(opRead, r.Group, true))
	case *kmsg.LeaveGroupRequest:
		out = append(out, groupCheck(opRead, r.Group, true))
	case *kmsg.SyncGroupRequest:
		out = append(out, groupCheck(opRead, r.Group, true))
	case *kmsg.DescribeGroupsRequest:
		for _, g := range r.Groups {
			out = append(out, groupCheck(opDescribe, g, false))
		}
	case *kmsg.ListGroupsRequest, *kmsg.ListTransactionsRequest:
		// Kafka lists what the principal may DESCRIBE; the proxy does not
		// filter upstream's list, so it asks DESCRIBE on the cluster
		// (which lists everything in Kafka too): stricter, never wider.
		return []check{clusterCheck(opDescribe)}, true
	case *kmsg.DescribeTopicPartitionsRequest: // handleDescribeTopicPartitionsRequest
		if len(r.Topics) == 0 {
			return []check{clusterCheck(opDescribe)}, true // all topics: not filtered here, so the cluster
		}
		for _, t := range r.Topics {
			out = append(out, topicCheck(opDescribe, t.Topic))
		}
	case *kmsg.DescribeClusterRequest,
		*kmsg.SASLHandshakeRequest, *kmsg.SASLAuthenticateRequest, *kmsg.ApiVersionsRequest,
		*kmsg.GetTelemetrySubscriptionsRequest, *kmsg.PushTelemetryRequest:
		// No ACL (lists are filtered in the answer: filterAnswer).
	default:
		if out, known, handled := offsetChecks(req, names); handled {
			return out, known
		}
		return adminChecks(req, names)
	}
	return out, true
}

// offsetChecks is requestChecks for OffsetCommit, OffsetFetch and
// FindCoordinator; handled is false for other requests.
func offsetChecks(req kmsg.Request, names func([16]byte) (string, bool)) (out []check, known, handled bool) {
	switch r := req.(type) {
	case *kmsg.OffsetCommitRequest: // handleOffsetCommitRequest
		out = append(out, groupCheck(opRead, r.Group, true))
		for _, t := range r.Topics {
			out = append(out, topicByNameOrID(opRead, t.Topic, t.TopicID, names))
		}
	case *kmsg.OffsetFetchRequest: // handleOffsetFetchRequest; all-topics answers are filtered
		if r.Group != "" || len(r.Groups) == 0 {
			out = append(out, groupCheck(opDescribe, r.Group, true))
			if r.Topics == nil {
				out = append(out, clusterCheck(opDescribe)) // all topics: the answer is not filtered here
			}
		}
		for _, t := range r.Topics {
			out = append(out, topicCheck(opDescribe, t.Topic))
		}
		for _, g := range r.Groups {
			out = append(out, groupCheck(opDescribe, g.Group, len(r.Groups) == 1))
			if g.Topics == nil {
				out = append(out, clusterCheck(opDescribe))
			}
			for _, t := range g.Topics {
				out = append(out, topicByNameOrID(opDescribe, t.Topic, t.TopicID, names))
			}
		}
	case *kmsg.FindCoordinatorRequest: // handleFindCoordinatorRequest
		keys := r.CoordinatorKeys
		if r.Version < 4 {
			keys = []string{r.CoordinatorKey}
		}
		for _, k := range keys {
			switch r.CoordinatorType {
			case 1:
				c := txnCheck(k)
				c.op, c.whole = opDescribe, r.Version < 4
				out = append(out, c)
			case 0:
				out = append(out, groupCheck(opDescribe, k, r.Version < 4))
			default: // share groups and others: not in the table
				return nil, false, true
			}
		}
	default:
		return nil, false, false
	}
	return out, true, true
}
