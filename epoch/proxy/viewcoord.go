package proxy

import (
	"context"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/epoch/clientview"
	"github.com/kmeta-go/kmeta/image/answer"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// The answers of this file come from the view where it holds everything
// the broker's answer would: each returns nil when it does not, and the
// request is then forwarded (and its answer rewritten). Authorization is
// upstream's: the view was read with the proxy's own identity, so, as for
// Metadata, a client is told what the proxy may see, and upstream refuses
// what the client itself may not do on its next request.

// coordinatorKey is the internal topic that coordinates a FindCoordinator
// key of type keyType and the key its partition is hashed from
// (KafkaApis.getCoordinator); ok is false for a key the view cannot place:
// an unknown type, or a share key below v6 or that does not parse (upstream
// answers those with their errors).
func coordinatorKey(v int16, keyType int8, key string) (topic, hashKey string, ok bool) {
	switch keyType {
	case answer.CoordinatorGroup:
		return answer.GroupTopic, key, true
	case answer.CoordinatorTransaction:
		return answer.TransactionTopic, key, true
	case answer.CoordinatorShare:
		if v < 6 {
			return "", "", false
		}
		k, ok := answer.ShareCoordinatorKey(key)
		return answer.ShareStateTopic, k, ok
	}
	return "", "", false
}

// coordinatorFromView is the coordinator of one key as the broker finds
// it (KafkaApis.getCoordinator): the leader of partition
// Utils.abs(hashKey.hashCode) % partitionCount of the key's internal topic
// (GroupCoordinatorService.partitionFor, TransactionStateManager
// .partitionFor, ShareCoordinatorService.partitionFor), with its upstream
// endpoint; ok is false when the view does not hold the topic, the
// partition's leader or the leader's endpoint.
func coordinatorFromView(v *clientview.View, ver int16, keyType int8, key string) (clientview.Broker, bool) {
	name, hashKey, ok := coordinatorKey(ver, keyType, key)
	if !ok {
		return clientview.Broker{}, false
	}
	t, ok := v.Topic(name)
	if !ok || t.NumPartitions() == 0 || t.ErrorCode() != 0 {
		return clientview.Broker{}, false
	}
	p, ok := t.Partition(answer.CoordinatorPartition(hashKey, int32(t.NumPartitions())))
	if !ok || !p.HasLeader() {
		return clientview.Broker{}, false
	}
	return v.Broker(p.Leader())
}

// findCoordinatorAnswer answers FindCoordinator from the view
// (KafkaApis.handleFindCoordinatorRequest: the single key's fields before
// v4, with Errors.NONE's message from v1; one Coordinators entry per key,
// in request order, with an empty message from v4, KIP-699), the
// coordinators rewritten to the proxy's ports for this client; nil when the
// view cannot place every key.
func (f *Forwarder) findCoordinatorAnswer(ctx context.Context, req *kmsg.FindCoordinatorRequest, c *Client) *kmsg.FindCoordinatorResponse {
	v, _ := f.refresh(ctx, false)
	keyType := req.CoordinatorType
	if req.Version == 0 {
		keyType = answer.CoordinatorGroup
	}
	resp := kmsg.NewPtrFindCoordinatorResponse()
	resp.Version = req.Version
	if req.Version < 4 {
		b, ok := coordinatorFromView(v, req.Version, keyType, req.CoordinatorKey)
		if !ok {
			return nil
		}
		if req.Version >= 1 {
			msg := kafkaerr.Code(0).Message()
			resp.ErrorMessage = &msg
		}
		resp.NodeID, resp.Host, resp.Port = b.NodeID(), b.Host(), b.Port()
	} else {
		empty := ""
		for _, k := range req.CoordinatorKeys {
			b, ok := coordinatorFromView(v, req.Version, keyType, k)
			if !ok {
				return nil
			}
			co := kmsg.NewFindCoordinatorResponseCoordinator()
			co.Key, co.ErrorMessage, co.NodeID, co.Host, co.Port = k, &empty, b.NodeID(), b.Host(), b.Port()
			resp.Coordinators = append(resp.Coordinators, co)
		}
	}
	f.rw.FindCoordinator(resp, c)
	if resp.ErrorCode != 0 {
		return nil // the map has no endpoint for it: let upstream answer
	}
	for _, co := range resp.Coordinators {
		if co.ErrorCode != 0 {
			return nil
		}
	}
	return resp
}

// elrFeature is the feature that turns on eligible leader replicas
// (KIP-966).
const elrFeature = "eligible.leader.replicas.version"

// describeTopicPartitionsAnswer answers DescribeTopicPartitions (v0,
// KIP-966) from the view as DescribeTopicPartitionsRequestHandler and
// KRaftMetadataCache.describeTopicResponse do (the walk of
// image/answer's DescribeTopicPartitions: topics at or after the cursor's,
// by name, a partition budget of max(min(2000, ResponsePartitionLimit), 1),
// max.request.partition.size.limit's default), or nil where the view lacks
// what the answer carries: the eligible leader replicas of a cluster where
// upstream finalized eligible.leader.replicas.version (a Metadata answer
// does not carry them; without the feature they are always empty). Each
// topic's authorized operations, which Kafka computes for the client's
// principal and the proxy cannot know, are answered omitted
// (MetadataResponse.AUTHORIZED_OPERATIONS_OMITTED, Integer.MIN_VALUE: the
// Admin client then reports them unknown, not denied).
func (f *Forwarder) describeTopicPartitionsAnswer(ctx context.Context, req *kmsg.DescribeTopicPartitionsRequest) *kmsg.DescribeTopicPartitionsResponse {
	if f.upstreamFeature(elrFeature) > 0 {
		return nil
	}
	names := make([]string, 0, len(req.Topics))
	for _, t := range req.Topics {
		names = append(names, t.Topic)
	}
	v, looked := f.lookupMissing(ctx, names, nil) // a topic unknown only after a refresh
	if !looked {
		f.ref.RequestUpdate() // as for Metadata: the policy bounds the refreshes
		v, _ = f.refresh(ctx, false)
	}
	resp := kmsg.NewPtrDescribeTopicPartitionsResponse()
	resp.Version = req.Version
	cursorName := ""
	if req.Cursor != nil {
		cursorName = req.Cursor.Topic
	}
	names, ok := dtpNames(v, req, cursorName)
	if !ok {
		return nil // an invalid cursor: upstream answers INVALID_REQUEST
	}
	remaining := int(max(min(2000, req.ResponsePartitionLimit), 1))
	for _, n := range names {
		if remaining == 0 {
			nc := kmsg.NewDescribeTopicPartitionsResponseNextCursor()
			nc.Topic = n
			resp.NextCursor = &nc
			break
		}
		t, ok := v.Topic(n)
		if !ok {
			if len(req.Topics) > 0 {
				resp.Topics = append(resp.Topics, dtpUnknown(n))
			}
			continue
		}
		start := 0
		if req.Cursor != nil && n == cursorName {
			start = int(req.Cursor.Partition)
		}
		e, next := dtpTopic(t, start, remaining)
		resp.Topics = append(resp.Topics, e)
		if next >= 0 {
			nc := kmsg.NewDescribeTopicPartitionsResponseNextCursor()
			nc.Topic, nc.Partition = n, next
			resp.NextCursor = &nc
			break
		}
		remaining -= len(e.Partitions)
	}
	return resp
}

// dtpNames are the topic names the answer walks, sorted: every topic of the
// view or the requested ones, at or after the cursor's; ok is false for a
// cursor Kafka refuses (a negative partition, or a topic not requested).
func dtpNames(v *clientview.View, req *kmsg.DescribeTopicPartitionsRequest, cursorName string) ([]string, bool) {
	if req.Cursor != nil && req.Cursor.Partition < 0 {
		return nil, false
	}
	var names []string
	if len(req.Topics) == 0 {
		for t := range v.Topics() {
			if t.Name() >= cursorName {
				names = append(names, t.Name())
			}
		}
		return names, true // in name order already
	}
	for _, t := range req.Topics {
		if t.Topic >= cursorName && !slices.Contains(names, t.Topic) {
			names = append(names, t.Topic)
		}
	}
	if req.Cursor != nil && !slices.Contains(names, cursorName) {
		return nil, false
	}
	slices.SortFunc(names, strings.Compare)
	return names, true
}

// dtpUnknown is a requested topic the view does not hold, after a refresh
// made after the question (lookupMissing):
// UNKNOWN_TOPIC_OR_PARTITION, or INVALID_TOPIC_EXCEPTION for a name
// Topic.validate refuses.
func dtpUnknown(n string) kmsg.DescribeTopicPartitionsResponseTopic {
	code := kafkaerr.UnknownTopicOrPartition
	if !answer.ValidTopicName(n) {
		code = kafkaerr.InvalidTopic
	}
	e := kmsg.NewDescribeTopicPartitionsResponseTopic()
	e.ErrorCode = int16(code)
	e.Topic = &n
	e.IsInternal = answer.IsInternal(n)
	return e
}

// dtpTopic is topic t's partitions from start, at most budget of them, and
// the partition the next page starts at (-1: the topic fits).
func dtpTopic(t *clientview.Topic, start, budget int) (kmsg.DescribeTopicPartitionsResponseTopic, int32) {
	e := kmsg.NewDescribeTopicPartitionsResponseTopic()
	name := t.Name()
	e.Topic = &name
	e.TopicID = t.ID()
	e.IsInternal = t.IsInternal()
	count := t.NumPartitions()
	upper := min(count, start+budget)
	for i := start; i < upper; i++ {
		p, ok := t.Partition(int32(i))
		if !ok {
			continue // Kafka logs and skips a missing partition id
		}
		d := kmsg.NewDescribeTopicPartitionsResponseTopicPartition()
		d.Partition, d.LeaderID, d.LeaderEpoch = p.ID(), -1, p.LeaderEpoch()
		if p.HasLeader() {
			d.LeaderID = p.Leader()
		}
		d.Replicas, d.ISR, d.OfflineReplicas = p.Replicas(), p.ISR(), p.OfflineReplicas()
		d.EligibleLeaderReplicas, d.LastKnownELR = []int32{}, []int32{}
		e.Partitions = append(e.Partitions, d)
	}
	if upper < count {
		return e, int32(upper)
	}
	return e, -1
}

// upstreamFeature is the finalized level of a feature in upstream's
// ApiVersions answer (0: not finalized).
func (f *Forwarder) upstreamFeature(name string) int16 {
	av := f.versions.Load()
	if av == nil {
		return 0
	}
	for _, ff := range av.FinalizedFeatures {
		if ff.Name == name {
			return ff.MaxVersionLevel
		}
	}
	return 0
}
