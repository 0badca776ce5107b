package answer

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/record"
)

// noAuthorizedOps is the schema default of the authorized-operations fields
// (Integer.MIN_VALUE): not requested.
const noAuthorizedOps int32 = -2147483648

// IsAllTopics is MetadataRequest.isAllTopics: null topics, or (v0 only) an
// empty list.
func IsAllTopics(req *kmsg.MetadataRequest) bool {
	return req.Topics == nil || (len(req.Topics) == 0 && req.Version == 0)
}

// allowAutoTopicCreation is the request's AllowAutoTopicCreation, implicitly
// true before v4.
func allowAutoTopicCreation(req *kmsg.MetadataRequest) bool {
	return req.Version < 4 || req.AllowAutoTopicCreation
}

// Metadata answers a Metadata request (v0-v13) from img as Kafka's
// KafkaApis.handleTopicMetadataRequest does with a KRaftMetadataCache
// (spec §6.2-6.4), and returns the topics the embedder should ask its
// controller to create (auto-creation, §6.4).
//
// Order (Kafka iterates hash sets; kmeta fixes an order, spec §10 #8):
// entries for unknown topic ids in request order; then the topics found, in
// request order (all-topics requests: by name); then the requested topics
// that do not exist (invalid names first, then the auto-created ones, each
// in request order); then TOPIC_AUTHORIZATION_FAILED entries for CREATE,
// then for DESCRIBE, in request order. Partitions are in ascending id order.
// Brokers are the alive brokers with the listener, by id.
//
// A request Kafka rejects with InvalidRequestException (a null name or a
// topic id before v12) is answered as Kafka's MetadataRequest.getErrorResponse
// answers it: every requested topic with INVALID_REQUEST.
func Metadata(img *image.Image, req *kmsg.MetadataRequest, o *Options) (*kmsg.MetadataResponse, []CreateTopic) {
	o = orDefault(o)
	v := req.Version
	resp := kmsg.NewPtrMetadataResponse()
	resp.Version = v
	all := IsAllTopics(req)

	if !all && v < 12 {
		for i := range req.Topics {
			if req.Topics[i].Topic == nil || req.Topics[i].TopicID != [16]byte{} {
				return invalidMetadataRequest(req, resp), nil
			}
		}
	}

	bt := newBrokers(img, o.Listener)
	topics := img.Topics()

	// Topic ids (v10+; honoured from v12 after the check above).
	var unknownIDs []kmsg.MetadataResponseTopic
	var candidates []string  // names to authorize, in answer order
	var found []*image.Topic // for all-topics: the image's topics by name
	useIDs := false
	if !all {
		for i := range req.Topics {
			id := req.Topics[i].TopicID
			if id == [16]byte{} {
				continue
			}
			useIDs = true
			if t, ok := topics.ByID(record.UUID(id)); ok {
				if !slices.Contains(candidates, t.Name()) {
					candidates = append(candidates, t.Name())
				}
			} else if !containsID(unknownIDs, id) {
				e := kmsg.NewMetadataResponseTopic()
				e.ErrorCode = ErrUnknownTopicID
				e.TopicID = id
				unknownIDs = append(unknownIDs, e)
			}
		}
	}
	switch {
	case all:
		found = sortedTopics(topics)
	case useIDs:
	default:
		candidates = dedupNames(req.Topics)
	}

	// Authorization (DESCRIBE TOPIC), then CREATE for missing topics.
	var authorized, deniedDescribe, deniedCreate []string
	if all {
		if o.Authorizer != nil {
			kept := found[:0:0]
			for _, t := range found {
				if o.authorize(authz.OpDescribe, authz.ResourceTopic, t.Name()) {
					kept = append(kept, t)
				}
			}
			found = kept
		}
	} else {
		for _, n := range candidates {
			if o.authorize(authz.OpDescribe, authz.ResourceTopic, n) {
				authorized = append(authorized, n)
			} else {
				deniedDescribe = append(deniedDescribe, n)
			}
		}
		if len(authorized) > 0 && allowAutoTopicCreation(req) && !o.DisableAutoCreateTopics && o.Authorizer != nil &&
			!o.authorize(authz.OpCreate, authz.ResourceCluster, authz.ClusterName) {
			kept := authorized[:0:0]
			for _, n := range authorized {
				if _, ok := topics.ByName(n); !ok && !o.authorize(authz.OpCreate, authz.ResourceTopic, n) {
					deniedCreate = append(deniedCreate, n)
				} else {
					kept = append(kept, n)
				}
			}
			authorized = kept
		}
	}

	allowCreate := !o.DisableAutoCreateTopics && allowAutoTopicCreation(req) && !all
	var create []CreateTopic
	var out []kmsg.MetadataResponseTopic
	out = append(out, unknownIDs...)

	if all {
		out = slices.Grow(out, len(found))
		names := make([]string, len(found))
		al := newAlloc(found)
		for i, t := range found {
			names[i] = t.Name()
			out = append(out, topicMetadata(t, &names[i], bt, v, al))
		}
	} else {
		var missing []string
		names := make([]string, len(authorized))
		for i, n := range authorized {
			names[i] = n
			if t, ok := topics.ByName(n); ok {
				out = append(out, topicMetadata(t, &names[i], bt, v, newAlloc([]*image.Topic{t})))
			} else {
				missing = append(missing, n)
			}
		}
		if allowCreate {
			for _, n := range missing {
				if !ValidTopicName(n) {
					out = append(out, errorTopic(ErrInvalidTopic, n, IsInternal(n)))
				}
			}
			for _, n := range missing {
				if ValidTopicName(n) {
					out = append(out, errorTopic(ErrUnknownTopicOrPartition, n, IsInternal(n)))
					create = append(create, o.createTopic(n))
				}
			}
		} else {
			for _, n := range missing {
				code := ErrUnknownTopicOrPartition
				if !ValidTopicName(n) {
					code = ErrInvalidTopic
				}
				out = append(out, errorTopic(code, n, IsInternal(n)))
			}
		}
	}

	// Authorized operations (v8+), for the entries built above (not the
	// unknown ids).
	if v >= 8 && req.IncludeTopicAuthorizedOperations {
		for i := len(unknownIDs); i < len(out); i++ {
			out[i].AuthorizedOperations = o.authorizedOps(authz.ResourceTopic, *out[i].Topic)
		}
	}

	for _, n := range deniedCreate {
		e := errorTopic(ErrTopicAuthorizationFailed, n, IsInternal(n))
		out = append(out, e)
	}
	if !all {
		for _, n := range deniedDescribe {
			e := kmsg.NewMetadataResponseTopic()
			e.ErrorCode = ErrTopicAuthorizationFailed
			if useIDs {
				id, _ := topics.IDOf(n)
				e.TopicID = id
			} else {
				s := n
				e.Topic = &s
			}
			out = append(out, e)
		}
	}
	resp.Topics = out

	resp.AuthorizedOperations = noAuthorizedOps
	if v >= 8 && v <= 10 && req.IncludeClusterAuthorizedOperations {
		if o.authorize(authz.OpDescribe, authz.ResourceCluster, authz.ClusterName) {
			resp.AuthorizedOperations = o.authorizedOps(authz.ResourceCluster, authz.ClusterName)
		} else {
			resp.AuthorizedOperations = 0
		}
	}

	bt.each(img, func(bi *brokerInfo) {
		if bi.fenced || !bi.hasEP {
			return
		}
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID = bi.b.ID()
		b.Host = bi.ep.Host
		b.Port = int32(bi.ep.Port)
		b.Rack = bi.rack
		resp.Brokers = append(resp.Brokers, b)
	})
	if o.ClusterID != "" {
		id := o.ClusterID
		resp.ClusterID = &id
	}
	resp.ControllerID = o.controllerID(img)
	return resp, create
}

func containsID(ts []kmsg.MetadataResponseTopic, id [16]byte) bool {
	for i := range ts {
		if ts[i].TopicID == id {
			return true
		}
	}
	return false
}

// dedupNames returns the requested names without repeats, in request order
// (Kafka takes them as a set).
func dedupNames(ts []kmsg.MetadataRequestTopic) []string {
	out := make([]string, 0, len(ts))
	var seen map[string]struct{}
	if len(ts) > 16 {
		seen = make(map[string]struct{}, len(ts))
	}
	for i := range ts {
		n := ""
		if ts[i].Topic != nil {
			n = *ts[i].Topic
		}
		if seen != nil {
			if _, ok := seen[n]; ok {
				continue
			}
			seen[n] = struct{}{}
		} else if slices.Contains(out, n) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// sortedTopics returns the image's topics sorted by name (the image keeps
// the order, computed once per set of topics).
func sortedTopics(t *image.Topics) []*image.Topic {
	out := make([]*image.Topic, 0, t.Len())
	for tp := range t.AllByName() {
		out = append(out, tp)
	}
	return out
}

func errorTopic(code int16, name string, internal bool) kmsg.MetadataResponseTopic {
	e := kmsg.NewMetadataResponseTopic()
	e.ErrorCode = code
	e.Topic = &name
	e.IsInternal = internal
	return e
}

// invalidMetadataRequest is MetadataRequest.getErrorResponse for
// InvalidRequestException.
func invalidMetadataRequest(req *kmsg.MetadataRequest, resp *kmsg.MetadataResponse) *kmsg.MetadataResponse {
	for i := range req.Topics {
		n := ""
		if req.Topics[i].Topic != nil {
			n = *req.Topics[i].Topic
		}
		e := kmsg.NewMetadataResponseTopic()
		e.ErrorCode = ErrInvalidRequest
		e.Topic = &n
		e.TopicID = req.Topics[i].TopicID
		resp.Topics = append(resp.Topics, e)
	}
	resp.ControllerID = -1
	resp.AuthorizedOperations = noAuthorizedOps
	return resp
}

// topicMetadata is one found topic's entry (KRaftMetadataCache
// .getPartitionMetadata, spec §6.2) with name pointing at *name.
func topicMetadata(t *image.Topic, name *string, bt *brokers, v int16, al *alloc) kmsg.MetadataResponseTopic {
	e := kmsg.NewMetadataResponseTopic()
	e.Topic = name
	e.TopicID = t.ID()
	e.IsInternal = IsInternal(*name)
	n := t.NumPartitions()
	parts := al.parts[:n:n]
	al.parts = al.parts[n:]
	arena := al.ids[:0]
	errorUnavailableEndpoints := v == 0
	errorUnavailableListeners := v >= 6
	for i := 0; i < n; i++ {
		p := t.PartitionAt(i)
		mp := &parts[i]
		mp.Partition = p.ID()
		mp.LeaderEpoch = p.LeaderEpoch()
		mp.Leader = -1

		start := len(arena)
		if errorUnavailableEndpoints {
			for j := 0; j < p.NumReplicas(); j++ {
				if r := p.Replica(j); bt.aliveNode(r) != nil {
					arena = append(arena, r)
				}
			}
		} else {
			arena = p.AppendReplicas(arena)
		}
		mp.Replicas = arena[start:len(arena):len(arena)]
		start = len(arena)
		if errorUnavailableEndpoints {
			for j := 0; j < p.NumISR(); j++ {
				if r := p.ISRMember(j); bt.aliveNode(r) != nil {
					arena = append(arena, r)
				}
			}
		} else {
			arena = p.AppendISR(arena)
		}
		mp.ISR = arena[start:len(arena):len(arena)]
		start = len(arena)
		arena = bt.appendOffline(arena, p)
		mp.OfflineReplicas = arena[start:len(arena):len(arena)]

		leader := bt.get(p.Leader())
		switch {
		case leader == nil:
			mp.ErrorCode = ErrLeaderNotAvailable
		case !leader.hasEP:
			if errorUnavailableListeners {
				mp.ErrorCode = ErrListenerNotFound
			} else {
				mp.ErrorCode = ErrLeaderNotAvailable
			}
		default:
			mp.Leader = p.Leader()
			if len(mp.Replicas) < p.NumReplicas() || len(mp.ISR) < p.NumISR() {
				mp.ErrorCode = ErrReplicaNotAvailable
			}
		}
	}
	al.ids = arena[len(arena):]
	e.Partitions = parts
	return e
}

// alloc is the memory of one answer's partitions, taken in two allocations
// for all of its topics: the partition entries and every id list.
type alloc struct {
	parts []kmsg.MetadataResponseTopicPartition
	ids   []int32
}

func newAlloc(ts []*image.Topic) *alloc {
	np, ni := 0, 0
	for _, t := range ts {
		n := t.NumPartitions()
		np += n
		for i := 0; i < n; i++ {
			p := t.PartitionAt(i)
			ni += 2*p.NumReplicas() + p.NumISR()
		}
	}
	return &alloc{parts: make([]kmsg.MetadataResponseTopicPartition, np), ids: make([]int32, 0, ni)}
}
