package answer

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
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
// (getTopicMetadata, partitionMetadata), and returns the topics the embedder
// should ask its controller to create (AutoTopicCreationManager).
//
// Order (Kafka iterates hash sets; kmeta fixes an order):
// entries for unknown topic ids in request order; then the topics found, in
// request order (all-topics requests: by name); then the requested topics
// that do not exist (invalid names first, then the auto-created ones, each
// in request order, then a null name); then TOPIC_AUTHORIZATION_FAILED entries for CREATE,
// then for DESCRIBE, in request order. Partitions are in ascending id order.
// Brokers are the alive brokers with the listener, by id.
//
// The answer shares nothing with the image. Its id lists (Replicas, ISR,
// OfflineReplicas) may share memory with each other: partitions of the same
// assignment, and an ISR equal to its replicas, hold one slice. Every list
// is capped, so appending to one copies it; a caller that changes a list's
// elements in place must copy it first.
//
// A request Kafka rejects with InvalidRequestException (a null name or a
// topic id before v12) is answered as Kafka's MetadataRequest.getErrorResponse
// answers it: every requested topic with INVALID_REQUEST. A null name at
// v12 or later, on which Kafka 4.3 throws NullPointerException
// (Topic.validate(null)) and answers UNKNOWN_SERVER_ERROR for the whole
// request, is answered as Kafka would answer it without the exception: an
// INVALID_TOPIC_EXCEPTION entry with a null name, the rest of the request
// answered as usual.
func (r *Responder) Metadata(img *image.Image, req *kmsg.MetadataRequest, rq Request) (*kmsg.MetadataResponse, []CreateTopic) {
	o := r.call(rq)
	return metadata(img, req, &o)
}

// metadata is Metadata.
func metadata(img *image.Image, req *kmsg.MetadataRequest, o *call) (*kmsg.MetadataResponse, []CreateTopic) {
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

	bt := o.r.brokersFor(img, o.Listener)
	topics := img.Topics()

	var out []kmsg.MetadataResponseTopic
	var create []CreateTopic
	var rt requestedTopics
	var denied deniedTopics
	if all {
		out = allTopicsMetadata(topics, bt, v, o)
	} else {
		rt = resolveRequestedTopics(req, topics)
		var authorized []string
		authorized, denied = authorizeTopics(rt.candidates, req, topics, o)
		out = make([]kmsg.MetadataResponseTopic, 0, len(rt.unknownIDs)+len(authorized)+len(denied.create)+len(denied.describe))
		out = append(out, rt.unknownIDs...)
		out, create = namedTopicsMetadata(out, topics, authorized, bt, v, req, o)
		if rt.nullName {
			// A null name (v12+, without a topic id): Kafka 4.3 throws
			// NullPointerException from Topic.validate(null) and answers
			// UNKNOWN_SERVER_ERROR for the whole request
			// (MetadataRequest.getErrorResponse). kmeta answers as
			// getTopicMetadata would without the exception: Topic.validate
			// rejects the name, INVALID_TOPIC_EXCEPTION, name null, nothing
			// created, no authorization asked (Kafka's authorizer cannot
			// take a null name either).
			e := kmsg.NewMetadataResponseTopic()
			e.ErrorCode = int16(kafkaerr.InvalidTopic)
			out = append(out, e)
		}
	}

	// Authorized operations (v8+), for the entries built above (not the
	// unknown ids).
	if v >= 8 && req.IncludeTopicAuthorizedOperations {
		for i := len(rt.unknownIDs); i < len(out); i++ {
			name := ""
			if out[i].Topic != nil {
				name = *out[i].Topic
			}
			out[i].AuthorizedOperations = o.authorizedOps(authz.ResourceTopic, name)
		}
	}
	resp.Topics = denied.appendTo(out, topics, rt.useIDs)
	resp.AuthorizedOperations = clusterAuthorizedOps(req, o)
	resp.Brokers = bt.metadataBrokers()
	if o.ClusterID != "" {
		id := o.ClusterID
		resp.ClusterID = &id
	}
	resp.ControllerID = o.controllerIDOf(bt.alive)
	return resp, create
}

// requestedTopics is what a named request asks for: the entries of the
// topic ids the image does not have, the names of the topics to answer
// (by id or by name, deduplicated, in request order), whether the request
// named its topics by id (v10+, honoured from v12) and whether it held a
// null name.
type requestedTopics struct {
	unknownIDs       []kmsg.MetadataResponseTopic
	candidates       []string
	useIDs, nullName bool
}

// resolveRequestedTopics resolves a named request's topic ids, or its names
// when it has no id.
func resolveRequestedTopics(req *kmsg.MetadataRequest, topics *image.Topics) requestedTopics {
	var rt requestedTopics
	for i := range req.Topics {
		id := req.Topics[i].TopicID
		if id == [16]byte{} {
			continue
		}
		rt.useIDs = true
		if t, ok := topics.ByID(record.UUID(id)); ok {
			if !slices.Contains(rt.candidates, t.Name()) {
				rt.candidates = append(rt.candidates, t.Name())
			}
		} else if !containsID(rt.unknownIDs, id) {
			e := kmsg.NewMetadataResponseTopic()
			e.ErrorCode = int16(kafkaerr.UnknownTopicID)
			e.TopicID = id
			rt.unknownIDs = append(rt.unknownIDs, e)
		}
	}
	if !rt.useIDs {
		rt.candidates, rt.nullName = dedupNames(req.Topics)
	}
	return rt
}

// deniedTopics are the names refused DESCRIBE, and the missing topics
// refused CREATE, in request order.
type deniedTopics struct {
	describe, create []string
}

// authorizeTopics splits candidates into the topics the principal may
// DESCRIBE and those it may not, then (when the request may auto-create
// and the principal may not CREATE on the cluster) drops the missing
// topics it may not CREATE (KafkaApis.handleTopicMetadataRequest). Without
// an authorizer every candidate is authorized.
func authorizeTopics(candidates []string, req *kmsg.MetadataRequest, topics *image.Topics, o *call) ([]string, deniedTopics) {
	if o.Authorizer == nil {
		return candidates, deniedTopics{}
	}
	var authorized []string
	var denied deniedTopics
	for _, n := range candidates {
		if o.authorize(authz.OpDescribe, authz.ResourceTopic, n) {
			authorized = append(authorized, n)
		} else {
			denied.describe = append(denied.describe, n)
		}
	}
	if len(authorized) > 0 && allowAutoTopicCreation(req) && !o.DisableAutoCreateTopics &&
		!o.authorize(authz.OpCreate, authz.ResourceCluster, authz.ClusterName) {
		kept := authorized[:0:0]
		for _, n := range authorized {
			if _, ok := topics.ByName(n); !ok && !o.authorize(authz.OpCreate, authz.ResourceTopic, n) {
				denied.create = append(denied.create, n)
			} else {
				kept = append(kept, n)
			}
		}
		authorized = kept
	}
	return authorized, denied
}

// appendTo appends the TOPIC_AUTHORIZATION_FAILED entries: for CREATE,
// then for DESCRIBE (named by id when the request used ids).
func (d deniedTopics) appendTo(out []kmsg.MetadataResponseTopic, topics *image.Topics, useIDs bool) []kmsg.MetadataResponseTopic {
	for _, n := range d.create {
		out = append(out, errorTopic(kafkaerr.TopicAuthorizationFailed, n, IsInternal(n)))
	}
	for _, n := range d.describe {
		e := kmsg.NewMetadataResponseTopic()
		e.ErrorCode = int16(kafkaerr.TopicAuthorizationFailed)
		if useIDs {
			id, _ := topics.IDOf(n)
			e.TopicID = id
		} else {
			s := n
			e.Topic = &s
		}
		out = append(out, e)
	}
	return out
}

// clusterAuthorizedOps is the answer's cluster authorized operations:
// asked for at v8-v10 only, 0 without DESCRIBE on the cluster.
func clusterAuthorizedOps(req *kmsg.MetadataRequest, o *call) int32 {
	if req.Version < 8 || req.Version > 10 || !req.IncludeClusterAuthorizedOperations {
		return noAuthorizedOps
	}
	if !o.authorize(authz.OpDescribe, authz.ResourceCluster, authz.ClusterName) {
		return 0
	}
	return o.authorizedOps(authz.ResourceCluster, authz.ClusterName)
}

// allTopicsMetadata is the entries of an all-topics request: every topic
// the principal may DESCRIBE, by name.
func allTopicsMetadata(topics *image.Topics, bt *brokers, v int16, o *call) []kmsg.MetadataResponseTopic {
	n, np := topics.Len(), topics.NumPartitions()
	var found []image.Topic
	if o.Authorizer != nil {
		np = 0
		for i := range n {
			if t := topics.ByNameAt(i); o.authorize(authz.OpDescribe, authz.ResourceTopic, t.Name()) {
				found = append(found, t)
				np += t.NumPartitions()
			}
		}
		n = len(found)
	}
	out := make([]kmsg.MetadataResponseTopic, n)
	names := make([]string, n)
	var pb partsBuilder
	var small smallTables
	tabs := shapeTables{shapes: small.shapes[:], table: small.table[:]}
	pb.init(np, &tabs)
	if o.Authorizer != nil {
		for i, t := range found {
			names[i] = t.Name()
			out[i] = topicMetadata(t, &names[i], bt, v, &pb, &tabs)
		}
		return out
	}
	for i := range n {
		t := topics.ByNameAt(i)
		names[i] = t.Name()
		out[i] = topicMetadata(t, &names[i], bt, v, &pb, &tabs)
	}
	return out
}

// namedTopicsMetadata appends the entries of the authorized names of a
// request for named topics: the topics found, in request order; then the
// missing ones (invalid names first, then those to auto-create, each in
// request order). It returns the topics to create.
func namedTopicsMetadata(out []kmsg.MetadataResponseTopic, topics *image.Topics, authorized []string, bt *brokers, v int16, req *kmsg.MetadataRequest, o *call) ([]kmsg.MetadataResponseTopic, []CreateTopic) {
	var buf [8]image.Topic
	found := buf[:0]
	if len(authorized) > len(buf) {
		found = make([]image.Topic, 0, len(authorized))
	}
	np, missing := 0, 0
	for _, n := range authorized {
		t, ok := topics.ByName(n)
		found = append(found, t)
		if ok {
			np += t.NumPartitions()
		} else {
			missing++
		}
	}
	var pb partsBuilder
	var small smallTables
	tabs := shapeTables{shapes: small.shapes[:], table: small.table[:]}
	if np > 0 {
		pb.init(np, &tabs)
	}
	// Entries point at the elements of authorized, a slice of this answer.
	for i, t := range found {
		if !t.IsZero() {
			out = append(out, topicMetadata(t, &authorized[i], bt, v, &pb, &tabs))
		}
	}
	if missing == 0 {
		return out, nil
	}
	var create []CreateTopic
	allowCreate := !o.DisableAutoCreateTopics && allowAutoTopicCreation(req)
	if allowCreate {
		for i, n := range authorized {
			if found[i].IsZero() && !ValidTopicName(n) {
				out = append(out, errorTopic(kafkaerr.InvalidTopic, n, IsInternal(n)))
			}
		}
		for i, n := range authorized {
			if found[i].IsZero() && ValidTopicName(n) {
				out = append(out, errorTopic(kafkaerr.UnknownTopicOrPartition, n, IsInternal(n)))
				create = append(create, o.createTopic(n))
			}
		}
	} else {
		for i, n := range authorized {
			if !found[i].IsZero() {
				continue
			}
			code := kafkaerr.UnknownTopicOrPartition
			if !ValidTopicName(n) {
				code = kafkaerr.InvalidTopic
			}
			out = append(out, errorTopic(code, n, IsInternal(n)))
		}
	}
	return out, create
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
// (Kafka takes them as a set), and whether a null name was among them.
func dedupNames(ts []kmsg.MetadataRequestTopic) ([]string, bool) {
	out := make([]string, 0, len(ts))
	null := false
	var seen map[string]struct{}
	if len(ts) > 16 {
		seen = make(map[string]struct{}, len(ts))
	}
	for i := range ts {
		if ts[i].Topic == nil {
			null = true
			continue
		}
		n := *ts[i].Topic
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
	return out, null
}

func errorTopic(code kafkaerr.Code, name string, internal bool) kmsg.MetadataResponseTopic {
	e := kmsg.NewMetadataResponseTopic()
	e.ErrorCode = int16(code)
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
		e.ErrorCode = int16(kafkaerr.InvalidRequest)
		e.Topic = &n
		e.TopicID = req.Topics[i].TopicID
		resp.Topics = append(resp.Topics, e)
	}
	resp.ControllerID = -1
	resp.AuthorizedOperations = noAuthorizedOps
	return resp
}

// topicMetadata is one found topic's entry (KRaftMetadataCache
// .partitionMetadata) with name pointing at *name.
func topicMetadata(t image.Topic, name *string, bt *brokers, v int16, ids *partsBuilder, tabs *shapeTables) kmsg.MetadataResponseTopic {
	e := kmsg.NewMetadataResponseTopic()
	e.Topic = name
	e.TopicID = t.ID()
	e.IsInternal = IsInternal(*name)
	n := t.NumPartitions()
	parts := ids.parts[:n:n]
	ids.parts = ids.parts[n:]
	for i := range parts {
		p := t.PartitionAt(i)
		mp := &parts[i]
		s := &tabs.shapes[p.AssignmentHash()&tabs.shapeMask]
		if s.src.IsZero() || !p.SameAssignment(s.src) {
			ids.fill(tabs, s, p, bt, v)
		}
		mp.Partition = p.ID()
		mp.LeaderEpoch = p.LeaderEpoch()
		mp.Leader = s.leader
		mp.ErrorCode = s.errorCode
		mp.Replicas = s.replicas
		mp.ISR = s.isr
		mp.OfflineReplicas = s.offline
	}
	e.Partitions = parts
	return e
}

// shape is what a partition's entry holds besides its id and leader epoch:
// it depends only on the partition's assignment (image.Partition
// .SameAssignment) and on the brokers, so an answer computes it once per
// distinct assignment.
type shape struct {
	src       image.Partition // an image partition of this assignment; nil: empty slot
	replicas  []int32
	isr       []int32
	offline   []int32
	leader    int32
	errorCode int16
}

// fill makes s the shape of p (a partition whose assignment is not in the
// table, or whose slot another assignment holds).
func (ids *partsBuilder) fill(tabs *shapeTables, s *shape, p image.Partition, bt *brokers, v int16) {
	s.src = p

	// Replicas and ISR, only the alive ones at v0
	// (errorUnavailableEndpoints); an ISR equal to the replicas shares
	// their list.
	var arr [16]int32
	buf := p.AppendReplicas(arr[:0])
	nr := len(buf)
	buf = p.AppendISR(buf)
	reps, isr := buf[:nr:nr], buf[nr:]
	if v == 0 {
		reps, isr = bt.keepAlive(reps), bt.keepAlive(isr)
	}
	s.replicas = ids.intern(tabs, reps)
	if slices.Equal(isr, reps) {
		s.isr = s.replicas
	} else {
		s.isr = ids.intern(tabs, isr)
	}
	var off [8]int32
	s.offline = ids.intern(tabs, bt.appendOffline(off[:0], p))

	s.leader, s.errorCode = -1, int16(kafkaerr.None)
	leader := bt.get(p.Leader())
	switch {
	case leader == nil:
		s.errorCode = int16(kafkaerr.LeaderNotAvailable)
	case !leader.hasEP:
		if v >= 6 { // errorUnavailableListeners
			s.errorCode = int16(kafkaerr.ListenerNotFound)
		} else {
			s.errorCode = int16(kafkaerr.LeaderNotAvailable)
		}
	default:
		s.leader = p.Leader()
		if len(reps) < p.NumReplicas() || len(isr) < p.NumISR() {
			s.errorCode = int16(kafkaerr.ReplicaNotAvailable)
		}
	}
}

// partsBuilder is the memory of one answer's partition entries: one array
// of entries for all of its topics, and the id lists; its shapeTables hold
// the shapes (one per distinct assignment) and find the lists again. Equal lists are one slice: most partitions
// of a cluster share a handful of replica sets (5 brokers and replication
// factor 3 give at most 60), so an answer of 250 000 partitions holds a few
// lists instead of 750 000, and an ISR equal to its replicas is the
// replicas' slice. The lists never alias the image, but they alias each
// other: a caller that changes a list in place must copy it first
// (appending is safe: every list is capped).
//
// Shapes and lists are found again through small direct-mapped tables keyed
// by a hash (no map, no allocation per lookup); a list not in its table is
// copied into a chunk of ids and replaces the table's entry.
type partsBuilder struct {
	parts     []kmsg.MetadataResponseTopicPartition
	chunk     []int32 // free room for new lists
	chunkSize int     // the size of a new chunk
}

// shapeTables are a partsBuilder's tables of shapes and lists. They are
// passed beside the builder, never inside it: the builder's parts and
// chunks go into the answer, and Go's escape analysis, which does not tell
// fields apart, would send everything the builder points at to the heap
// with them, so the small tables of a small answer (smallTables) could not
// stay on the caller's stack.
type shapeTables struct {
	shapes    []shape // a power of two, at most maxShapes
	shapeMask uint32
	table     [][]int32 // a power of two, at most maxIDTable
}

// smallTables are the tables of an answer of at most smallParts
// partitions, kept on the caller's stack.
type smallTables struct {
	shapes [4]shape
	table  [8][]int32
}

const (
	maxShapes  = 64
	maxIDTable = 256
	idChunk    = 1024
	smallParts = 64
)

// init readies pb and tabs for an answer of np partitions: the tables grow
// with the answer up to their maximum sizes; a small answer keeps the small
// tables tabs was made with.
func (pb *partsBuilder) init(np int, tabs *shapeTables) {
	pb.parts = make([]kmsg.MetadataResponseTopicPartition, np)
	if np <= smallParts {
		pb.chunkSize = 16
	} else {
		ns := min(maxShapes, pow2(np/16))
		tabs.shapes = make([]shape, ns)
		tabs.table = make([][]int32, 4*ns)
		pb.chunkSize = min(idChunk, 16*ns)
	}
	tabs.shapeMask = uint32(len(tabs.shapes) - 1)
}

// pow2 is the least power of two ≥ n (1 for n ≤ 1).
func pow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

// intern returns a list equal to l that the answer owns (l is not kept).
func (ids *partsBuilder) intern(tabs *shapeTables, l []int32) []int32 {
	if len(l) == 0 {
		// Not nil, and zero-sized: no allocation, no element to change,
		// and appending to it allocates.
		return []int32{}
	}
	h := uint32(len(l))
	for _, x := range l {
		h = (h ^ uint32(x)) * 0x9E3779B1
	}
	e := &tabs.table[(h^h>>16)&uint32(len(tabs.table)-1)]
	if slices.Equal(*e, l) {
		return *e
	}
	if cap(ids.chunk)-len(ids.chunk) < len(l) {
		ids.chunk = make([]int32, 0, max(ids.chunkSize, len(l)))
	}
	n := len(ids.chunk)
	ids.chunk = append(ids.chunk, l...)
	s := ids.chunk[n:len(ids.chunk):len(ids.chunk)]
	*e = s
	return s
}
