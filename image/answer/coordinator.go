package answer

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/internal/javahash"
)

// Coordinator key types (FindCoordinatorRequest.CoordinatorType).
const (
	CoordinatorGroup       int8 = 0
	CoordinatorTransaction int8 = 1
	CoordinatorShare       int8 = 2
)

// JavaHashCode is Java's String.hashCode of s: h = 31*h + c over the UTF-16
// code units of s, with int32 wrap-around. Bytes of s that are not valid
// UTF-8 count as U+FFFD, as Kafka's UTF-8 decoder replaces them.
func JavaHashCode(s string) int32 { return javahash.String(s) }

// CoordinatorPartition is the partition of an internal topic with n
// partitions that coordinates key: Utils.abs(key.hashCode()) % n, where
// Utils.abs maps Integer.MIN_VALUE to 0 (GroupCoordinator.partitionFor,
// TransactionStateManager.partitionFor, ShareCoordinator.partitionFor).
func CoordinatorPartition(key string, n int32) int32 {
	h := JavaHashCode(key)
	if h == -2147483648 {
		h = 0
	} else if h < 0 {
		h = -h
	}
	return h % n
}

// coordinatorTopic is the internal topic of key type t and the partition
// count fixed by the options (0: from the image).
func (o *call) coordinatorTopic(t int8) (string, int32) {
	switch t {
	case CoordinatorGroup:
		return GroupTopic, o.GroupCoordinatorPartitions
	case CoordinatorTransaction:
		return TransactionTopic, o.TransactionCoordinatorPartitions
	}
	return ShareStateTopic, o.ShareCoordinatorPartitions
}

// Coordinator is one key's answer.
type Coordinator struct {
	Key       string
	ErrorCode kafkaerr.Code
	NodeID    int32 // -1 on error
	Host      string
	Port      int32 // -1 on error
}

// FindCoordinatorKey answers one key of type keyType for a request of
// version v, as KafkaApis.getCoordinator does, and says whether
// the internal topic should be created (it does not exist yet).
//
// Two of getCoordinator's outcomes are exceptions in Kafka that fail the
// whole request (KafkaApis answers them with FindCoordinatorRequest
// .getErrorResponse): a share key without CLUSTER_ACTION on the cluster
// (AuthHelper.authorizeClusterOperation throws ClusterAuthorizationException)
// and an unknown key type (CoordinatorType.forId throws
// InvalidRequestException). For one key they are answered here as that key's
// error; FindCoordinator answers every key of the request with it.
func (r *Responder) FindCoordinatorKey(img *image.Image, v int16, keyType int8, key string, rq Request) (Coordinator, *CreateTopic) {
	o := r.call(rq)
	c, ct, _ := findCoordinatorKey(img, v, keyType, key, &o)
	return c, ct
}

// findCoordinatorKey is KafkaApis.getCoordinator for one key; whole says
// that Kafka throws here and the error is the whole request's.
func findCoordinatorKey(img *image.Image, v int16, keyType int8, key string, o *call) (Coordinator, *CreateTopic, bool) {
	fail := func(code kafkaerr.Code) Coordinator {
		return Coordinator{Key: key, ErrorCode: code, NodeID: -1, Port: -1}
	}
	hashKey := key
	switch keyType {
	case CoordinatorGroup:
		if !o.authorize(authz.OpDescribe, authz.ResourceGroup, key) {
			return fail(kafkaerr.GroupAuthorizationFailed), nil, false
		}
	case CoordinatorTransaction:
		if !o.authorize(authz.OpDescribe, authz.ResourceTransactionalID, key) {
			return fail(kafkaerr.TransactionalIDAuthorizationFailed), nil, false
		}
	case CoordinatorShare:
		if v < 6 {
			return fail(kafkaerr.InvalidRequest), nil, false
		}
		if !o.authorize(authz.OpClusterAction, authz.ResourceCluster, authz.ClusterName) {
			return fail(kafkaerr.ClusterAuthorizationFailed), nil, true
		}
		k, ok := ShareCoordinatorKey(key)
		if !ok {
			return fail(kafkaerr.InvalidRequest), nil, false
		}
		hashKey = k
	default:
		return fail(kafkaerr.InvalidRequest), nil, true
	}
	name, n := o.coordinatorTopic(keyType)
	t, ok := img.Topic(name)
	if !ok {
		ct := o.createTopic(name)
		return fail(kafkaerr.CoordinatorNotAvailable), &ct, false
	}
	if n <= 0 {
		n = int32(t.NumPartitions())
		if n == 0 {
			n = 50
		}
	}
	p, ok := t.Partition(CoordinatorPartition(hashKey, n))
	if !ok || p.Leader() == image.NoLeader {
		return fail(kafkaerr.CoordinatorNotAvailable), nil, false
	}
	b, ok := img.Cluster().Broker(p.Leader())
	if !ok || b.Fenced() {
		return fail(kafkaerr.CoordinatorNotAvailable), nil, false
	}
	ep, ok := b.Listener(o.Listener)
	if !ok {
		return fail(kafkaerr.CoordinatorNotAvailable), nil, false
	}
	return Coordinator{Key: key, NodeID: b.ID(), Host: ep.Host, Port: int32(ep.Port)}, nil, false
}

// FindCoordinator answers a FindCoordinator request (v0-v6) as Kafka's
// KafkaApis.handleFindCoordinatorRequest does: before v4 one key
// in the top-level fields (handleFindCoordinatorRequestLessThanV4: the
// error's Errors.message() as ErrorMessage, "NONE" on success, v1+); from v4
// one Coordinator entry per key, in request order
// (handleFindCoordinatorRequestV4AndAbove), whose ErrorMessage Kafka never
// sets: the schema default "". The key type is GROUP at v0. When a key fails
// the whole request (a share key without CLUSTER_ACTION, an unknown key
// type), every key is answered with that error and its Errors.message(), as
// FindCoordinatorResponse.prepareErrorResponse does. It returns the internal
// topics to create (at most once each) when one does not exist yet (Kafka
// auto-creates it regardless of auto.create.topics.enable).
func (r *Responder) FindCoordinator(img *image.Image, req *kmsg.FindCoordinatorRequest, rq Request) (*kmsg.FindCoordinatorResponse, []CreateTopic) {
	o := r.call(rq)
	return findCoordinator(img, req, &o)
}

// findCoordinator is FindCoordinator.
func findCoordinator(img *image.Image, req *kmsg.FindCoordinatorRequest, o *call) (*kmsg.FindCoordinatorResponse, []CreateTopic) {
	resp := kmsg.NewPtrFindCoordinatorResponse()
	resp.Version = req.Version
	keyType := req.CoordinatorType
	if req.Version == 0 {
		keyType = CoordinatorGroup
	}
	var create []CreateTopic
	add := func(ct *CreateTopic) {
		if ct == nil {
			return
		}
		for _, c := range create {
			if c.Name == ct.Name {
				return
			}
		}
		create = append(create, *ct)
	}
	if req.Version < 4 {
		c, ct, _ := findCoordinatorKey(img, req.Version, keyType, req.CoordinatorKey, o)
		add(ct)
		resp.ErrorCode = int16(c.ErrorCode)
		if req.Version >= 1 {
			msg := c.ErrorCode.Message()
			resp.ErrorMessage = &msg
		}
		resp.NodeID, resp.Host, resp.Port = c.NodeID, c.Host, c.Port
		return resp, create
	}
	resp.Coordinators = make([]kmsg.FindCoordinatorResponseCoordinator, len(req.CoordinatorKeys))
	empty := ""
	for i, k := range req.CoordinatorKeys {
		c, ct, whole := findCoordinatorKey(img, req.Version, keyType, k, o)
		if whole {
			// Kafka's exception ends the request: every key gets the
			// error, and no topic is created.
			msg := c.ErrorCode.Message()
			for j, k := range req.CoordinatorKeys {
				e := &resp.Coordinators[j]
				e.Default()
				e.Key, e.ErrorCode, e.ErrorMessage, e.NodeID, e.Host, e.Port = k, int16(c.ErrorCode), &msg, -1, "", -1
			}
			return resp, nil
		}
		add(ct)
		e := &resp.Coordinators[i]
		e.Default()
		e.Key, e.ErrorCode, e.ErrorMessage, e.NodeID, e.Host, e.Port = c.Key, int16(c.ErrorCode), &empty, c.NodeID, c.Host, c.Port
	}
	return resp, create
}
