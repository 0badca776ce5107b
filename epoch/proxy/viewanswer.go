package proxy

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/epoch/clientview"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/record"
)

// metadataAnswer answers a Metadata request from the view, as a broker
// would from its metadata cache (KafkaApis.handleTopicMetadataRequest): the
// topics asked for (all when Topics is null), UNKNOWN_TOPIC_OR_PARTITION for
// a topic the view does not hold after a refresh made after the question
// (lookupMissing), and the view's brokers rewritten to the proxy's ports
// for this client.
func (f *Forwarder) metadataAnswer(ctx context.Context, req *kmsg.MetadataRequest, c *Client) *kmsg.MetadataResponse {
	var names []string
	var ids []record.UUID
	for _, t := range req.Topics {
		if t.Topic != nil {
			names = append(names, *t.Topic)
		} else {
			ids = append(ids, record.UUID(t.TopicID))
		}
	}
	v, looked := f.lookupMissing(ctx, names, ids)
	if !looked {
		// A client asks for metadata when it believes its own is out of
		// date; the view is refreshed if the policy allows (its backoff and
		// MinInterval bound the refreshes of any number of clients).
		f.ref.RequestUpdate()
		v, _ = f.refresh(ctx, false) // on failure the last view is served: it never goes back
	}
	resp := kmsg.NewPtrMetadataResponse()
	resp.Version = req.Version
	if id, ok := v.ClusterID(); ok {
		resp.ClusterID = &id
	}
	resp.ControllerID = v.ControllerID()
	for _, b := range v.Brokers() {
		mb := kmsg.NewMetadataResponseBroker()
		mb.NodeID, mb.Host, mb.Port, mb.Rack = b.NodeID(), b.Host(), b.Port(), rackOf(b)
		resp.Brokers = append(resp.Brokers, mb)
	}
	f.rw.Metadata(resp, c)
	if req.Topics == nil {
		for t := range v.Topics() {
			resp.Topics = append(resp.Topics, topicAnswer(t))
		}
		return resp
	}
	for _, rt := range req.Topics {
		var t *clientview.Topic
		var ok bool
		if rt.Topic != nil {
			t, ok = v.Topic(*rt.Topic)
		} else {
			t, ok = v.TopicByID(record.UUID(rt.TopicID))
		}
		if !ok {
			mt := kmsg.NewMetadataResponseTopic()
			mt.Topic, mt.TopicID, mt.ErrorCode = rt.Topic, rt.TopicID, kafkaerr.UnknownTopicOrPartition.Int16()
			resp.Topics = append(resp.Topics, mt)
			continue
		}
		resp.Topics = append(resp.Topics, topicAnswer(t))
	}
	return resp
}

// topicAnswer is one topic of the view as a Metadata answer carries it. A
// partition the view knows no leader for is LEADER_NOT_AVAILABLE with
// leader -1, as a broker answers it; otherwise the view's leader at its
// leader epoch, which never goes below one already served.
func topicAnswer(t *clientview.Topic) kmsg.MetadataResponseTopic {
	mt := kmsg.NewMetadataResponseTopic()
	name := t.Name()
	mt.Topic = &name
	mt.TopicID = t.ID()
	mt.IsInternal = t.IsInternal()
	mt.ErrorCode = t.ErrorCode()
	mt.Partitions = make([]kmsg.MetadataResponseTopicPartition, 0, t.NumPartitions())
	for p := range t.Partitions() {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition = p.ID()
		mp.Leader, mp.LeaderEpoch = p.Leader(), p.LeaderEpoch()
		mp.ErrorCode = p.ErrorCode()
		if !p.HasLeader() {
			mp.Leader = -1
			if mp.ErrorCode == 0 {
				mp.ErrorCode = kafkaerr.LeaderNotAvailable.Int16()
			}
		}
		mp.Replicas = p.Replicas()
		mp.ISR = p.ISR()
		mp.OfflineReplicas = p.OfflineReplicas()
		mt.Partitions = append(mt.Partitions, mp)
	}
	return mt
}

// describeClusterAnswer answers DescribeCluster from the view
// (KafkaApis.handleDescribeCluster on a broker): the view's brokers
// rewritten, its controller id and cluster id. It returns nil, and the
// request is forwarded, where the view does not hold the answer: a request
// for controllers (EndpointType 2, KIP-919: a broker answers
// MISMATCHED_ENDPOINT_TYPE, and controllers a client reaches through a
// broker proxy are not listed, Rewriter), for fenced brokers
// (v2, which a Metadata answer does not list) or for the cluster's
// authorized operations.
func (f *Forwarder) describeClusterAnswer(ctx context.Context, req *kmsg.DescribeClusterRequest, c *Client) *kmsg.DescribeClusterResponse {
	if req.Version >= 1 && req.EndpointType != 1 || req.Version >= 2 && req.IncludeFencedBrokers || req.IncludeClusterAuthorizedOperations {
		return nil
	}
	v, _ := f.refresh(ctx, false)
	resp := kmsg.NewPtrDescribeClusterResponse()
	resp.Version = req.Version
	if req.Version >= 1 {
		resp.EndpointType = req.EndpointType
	}
	if id, ok := v.ClusterID(); ok {
		resp.ClusterID = id
	}
	resp.ControllerID = v.ControllerID()
	for _, b := range v.Brokers() {
		db := kmsg.NewDescribeClusterResponseBroker()
		db.NodeID, db.Host, db.Port, db.Rack = b.NodeID(), b.Host(), b.Port(), rackOf(b)
		resp.Brokers = append(resp.Brokers, db)
	}
	f.rw.DescribeCluster(resp, c)
	return resp
}

// apiVersionsAnswer is upstream's ApiVersions answer narrowed to what the
// proxy can parse and rewrite (Intersect), at the request's
// version, with upstream's features; an invalid request is answered
// INVALID_REQUEST and a v5 request naming another cluster, or another node
// than the broker id of the port it came to (any broker of the view on the
// bootstrap port), REBOOTSTRAP_REQUIRED (KIP-1242), as
// KafkaApis.handleApiVersionsRequest answers them, without API keys.
func (f *Forwarder) apiVersionsAnswer(req *kmsg.ApiVersionsRequest, broker int32) *kmsg.ApiVersionsResponse {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = req.Version
	switch {
	case !apiVersionsValid(req):
		resp.ErrorCode = kafkaerr.InvalidRequest.Int16()
	case req.Version >= 5 && req.ClusterID != nil && !f.isNode(*req.ClusterID, req.NodeID, broker):
		resp.ErrorCode = kafkaerr.RebootstrapRequired.Int16()
	default:
		*resp = *f.versions.Load()
		resp.Version = req.Version
		resp.ApiKeys = f.withSASLVersions(resp.ApiKeys)
	}
	return resp
}

// withSASLVersions is keys with the proxy's own SASL APIs: on a SASL
// listener SaslHandshake v0-1 and SaslAuthenticate v0-2 (answered by the
// proxy, whatever upstream offers); elsewhere they are left out (answered
// ILLEGAL_SASL_STATE, never forwarded).
func (f *Forwarder) withSASLVersions(keys []kmsg.ApiVersionsResponseApiKey) []kmsg.ApiVersionsResponseApiKey {
	out := make([]kmsg.ApiVersionsResponseApiKey, 0, len(keys)+2)
	for _, k := range keys {
		if k.ApiKey != 17 && k.ApiKey != 36 {
			out = append(out, k)
		}
	}
	if f.sasl != nil {
		out = append(out, kmsg.ApiVersionsResponseApiKey{ApiKey: 17, MinVersion: 0, MaxVersion: 1}, kmsg.ApiVersionsResponseApiKey{ApiKey: 36, MinVersion: 0, MaxVersion: 2})
		slices.SortFunc(out, func(a, b kmsg.ApiVersionsResponseApiKey) int { return int(a.ApiKey) - int(b.ApiKey) })
	}
	return out
}

// isNode reports whether a client expecting node id of cluster clusterID
// is where it meant to be on the port of broker (-1: the bootstrap port,
// which answers for every broker of the view).
func (f *Forwarder) isNode(clusterID string, id, broker int32) bool {
	v := f.ref.View()
	if cid, ok := v.ClusterID(); !ok || cid != clusterID {
		return false
	}
	if broker >= 0 {
		return id == broker
	}
	_, ok := v.Broker(id)
	return ok
}

// rackOf is a view broker's rack as Kafka's answers carry it (nil: none).
func rackOf(b clientview.Broker) *string {
	if r, ok := b.Rack(); ok {
		return &r
	}
	return nil
}
