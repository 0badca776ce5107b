package proxy

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// adminChecks is requestChecks for the admin and transactional APIs.
func adminChecks(req kmsg.Request, names func([16]byte) (string, bool)) ([]check, bool) {
	var out []check
	switch r := req.(type) {
	case *kmsg.CreateTopicsRequest: // handleCreateTopicsRequest: CREATE on the cluster, else on each topic
		return []check{{op: opCreate, rt: rtCluster, name: clusterName, code: kafkaerr.TopicAuthorizationFailed.Int16(), anyOf: topicNamesOf(r)}}, true
	case *kmsg.DeleteTopicsRequest:
		for _, n := range r.TopicNames {
			out = append(out, topicCheck(opDelete, n))
		}
		for _, t := range r.Topics {
			name := ""
			if t.Topic != nil {
				name = *t.Topic
			}
			out = append(out, topicByNameOrID(opDelete, name, t.TopicID, names))
		}
	case *kmsg.DeleteRecordsRequest:
		for _, t := range r.Topics {
			out = append(out, topicCheck(opDelete, t.Topic))
		}
	case *kmsg.CreatePartitionsRequest:
		for _, t := range r.Topics {
			out = append(out, topicCheck(opAlter, t.Topic))
		}
	case *kmsg.OffsetForLeaderEpochRequest:
		if r.ReplicaID >= 0 {
			return []check{clusterCheck(opClusterAction)}, true
		}
		for _, t := range r.Topics {
			out = append(out, topicCheck(opDescribe, t.Topic))
		}
	case *kmsg.DeleteGroupsRequest:
		for _, g := range r.Groups {
			out = append(out, groupCheck(opDelete, g, false))
		}
	case *kmsg.OffsetDeleteRequest:
		out = append(out, groupCheck(opDelete, r.Group, true))
		for _, t := range r.Topics {
			out = append(out, topicCheck(opRead, t.Topic))
		}
	case *kmsg.ConsumerGroupHeartbeatRequest:
		out = append(out, groupCheck(opRead, r.Group, true))
		for _, t := range r.SubscribedTopicNames {
			c := topicCheck(opDescribe, t)
			c.whole = true
			out = append(out, c)
		}
	case *kmsg.ConsumerGroupDescribeRequest:
		for _, g := range r.Groups {
			out = append(out, groupCheck(opDescribe, g, false))
		}
	case *kmsg.DescribeConfigsRequest:
		for _, res := range r.Resources {
			out = append(out, configCheck(opDescribeConfigs, int8(res.ResourceType), res.ResourceName))
		}
	case *kmsg.AlterConfigsRequest:
		for _, res := range r.Resources {
			out = append(out, configCheck(opAlterConfigs, int8(res.ResourceType), res.ResourceName))
		}
	case *kmsg.IncrementalAlterConfigsRequest:
		for _, res := range r.Resources {
			out = append(out, configCheck(opAlterConfigs, int8(res.ResourceType), res.ResourceName))
		}
	case *kmsg.DescribeACLsRequest, *kmsg.DescribeLogDirsRequest, *kmsg.ListPartitionReassignmentsRequest,
		*kmsg.DescribeUserSCRAMCredentialsRequest, *kmsg.DescribeQuorumRequest:
		return []check{clusterCheck(opDescribe)}, true
	case *kmsg.CreateACLsRequest, *kmsg.DeleteACLsRequest, *kmsg.AlterReplicaLogDirsRequest, *kmsg.ElectLeadersRequest,
		*kmsg.AlterPartitionAssignmentsRequest, *kmsg.AlterUserSCRAMCredentialsRequest, *kmsg.UpdateFeaturesRequest:
		return []check{clusterCheck(opAlter)}, true
	case *kmsg.DescribeClientQuotasRequest:
		return []check{clusterCheck(opDescribeConfigs)}, true
	case *kmsg.AlterClientQuotasRequest:
		return []check{clusterCheck(opAlterConfigs)}, true
	default:
		return txnChecks(req)
	}
	return out, true
}

// txnChecks is adminChecks for the transactional APIs, InitProducerId and
// DescribeProducers.
func txnChecks(req kmsg.Request) ([]check, bool) {
	var out []check
	switch r := req.(type) {
	case *kmsg.InitProducerIDRequest: // handleInitProducerIdRequest
		if r.TransactionalID != nil {
			return []check{txnCheck(*r.TransactionalID)}, true
		}
		return []check{{op: authz.OpIdempotentWrite, rt: rtCluster, name: clusterName, code: kafkaerr.ClusterAuthorizationFailed.Int16(), whole: true, orWriteAnyTopic: true}}, true
	case *kmsg.AddPartitionsToTxnRequest:
		if r.Version >= 4 {
			return []check{clusterCheck(opClusterAction)}, true // the brokers' verification batches
		}
		out = append(out, txnCheck(r.TransactionalID))
		for _, t := range r.Topics {
			out = append(out, topicCheck(opWrite, t.Topic))
		}
	case *kmsg.AddOffsetsToTxnRequest:
		out = append(out, txnCheck(r.TransactionalID), groupCheck(opRead, r.Group, true))
	case *kmsg.EndTxnRequest:
		out = append(out, txnCheck(r.TransactionalID))
	case *kmsg.TxnOffsetCommitRequest:
		out = append(out, txnCheck(r.TransactionalID), groupCheck(opRead, r.Group, true))
		for _, t := range r.Topics {
			out = append(out, topicCheck(opRead, t.Topic))
		}
	case *kmsg.DescribeTransactionsRequest:
		for _, id := range r.TransactionalIDs {
			c := txnCheck(id)
			c.op, c.whole = opDescribe, false
			out = append(out, c)
		}
	case *kmsg.DescribeProducersRequest:
		for _, t := range r.Topics {
			out = append(out, topicCheck(opRead, t.Topic))
		}
	default:
		return nil, false
	}
	return out, true
}

// configCheck is the check of a config resource (ConfigResource.Type:
// 2 topic, 4 broker, 8 broker logger, 16 client metrics, 32 group), as
// AuthHelper and ConfigHelper map them.
func configCheck(op authz.Operation, typ int8, name string) check {
	switch typ {
	case 2:
		return topicCheck(op, name)
	case 32:
		return groupCheck(op, name, false)
	}
	c := clusterCheck(op)
	c.whole = false
	return c
}

// topicNamesOf are the topic names of a CreateTopics request.
func topicNamesOf(r *kmsg.CreateTopicsRequest) []string {
	var out []string
	for _, t := range r.Topics {
		out = append(out, t.Topic)
	}
	return out
}
