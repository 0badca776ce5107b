package epoch

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/record"
)

// NoEpoch is the current leader epoch of a request that carries none
// (RecordBatch.NO_PARTITION_LEADER_EPOCH): no epoch check is made.
const NoEpoch int32 = -1

// Result is the outcome of a check. LeaderID and LeaderEpoch are the KIP-951
// CurrentLeader of the partition in the image (-1, -1 when unknown); a
// response carries them only for NOT_LEADER_OR_FOLLOWER and
// FENCED_LEADER_EPOCH (HasLeaderHint).
type Result struct {
	ErrorCode   kafkaerr.Code
	LeaderID    int32
	LeaderEpoch int32
}

// HasLeaderHint reports whether a response should carry CurrentLeader and the
// leader's node endpoint (KafkaApis: ProduceResponse v10+ for
// NOT_LEADER_OR_FOLLOWER; FetchResponse v16+ for NOT_LEADER_OR_FOLLOWER and
// FENCED_LEADER_EPOCH).
func (r Result) HasLeaderHint() bool {
	return r.ErrorCode == kafkaerr.NotLeaderOrFollower || r.ErrorCode == kafkaerr.FencedLeaderEpoch
}

var unknown = Result{ErrorCode: kafkaerr.UnknownTopicOrPartition, LeaderID: -1, LeaderEpoch: -1}

// Check validates a Fetch (v9+), ListOffsets (v4+) or OffsetForLeaderEpoch
// (v2+) request for partition p of topic t (nil when the topic is not in the
// image) at broker local, carrying currentLeaderEpoch (NoEpoch when absent):
//
//   - partition not in the image: UNKNOWN_TOPIC_OR_PARTITION
//     (ReplicaManager.getPartitionOrError, not in the metadata cache);
//   - local not a replica: NOT_LEADER_OR_FOLLOWER (not hosted here but known);
//   - image's leader epoch > request's: FENCED_LEADER_EPOCH (the client is
//     behind); < request's: UNKNOWN_LEADER_EPOCH (this broker is behind)
//     (Partition.checkCurrentLeaderEpoch);
//   - needLeader and local is not the leader: NOT_LEADER_OR_FOLLOWER
//     (Partition.getLocalLog with requireLeader).
//
// needLeader is true for fetches from followers and from consumers that
// sent no rack (KIP-392), and for ListOffsets and OffsetForLeaderEpoch from
// clients.
func Check(t image.Topic, p int32, currentLeaderEpoch int32, local int32, needLeader bool) Result {
	if t.IsZero() {
		return unknown
	}
	part, ok := t.Partition(p)
	if !ok {
		return unknown
	}
	r := Result{LeaderID: part.Leader(), LeaderEpoch: part.LeaderEpoch()}
	switch {
	case !part.HasReplica(local):
		r.ErrorCode = kafkaerr.NotLeaderOrFollower
	case currentLeaderEpoch != NoEpoch && part.LeaderEpoch() > currentLeaderEpoch:
		r.ErrorCode = kafkaerr.FencedLeaderEpoch
	case currentLeaderEpoch != NoEpoch && part.LeaderEpoch() < currentLeaderEpoch:
		r.ErrorCode = kafkaerr.UnknownLeaderEpoch
	case needLeader && part.Leader() != local:
		r.ErrorCode = kafkaerr.NotLeaderOrFollower
	}
	return r
}

// CheckProduce validates a Produce request for partition p of topic t at
// broker local: Produce carries no leader epoch, so only existence and
// leadership are checked (UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER).
func CheckProduce(t image.Topic, p int32, local int32) Result {
	return Check(t, p, NoEpoch, local, true)
}

// CheckName is Check for a topic given by name (requests before topic ids).
// It looks the topic up in the name index on every call;
// a request handler resolves each requested topic once with img.Topic and
// calls Check for each of its partitions, as Kafka's fetch handling does
// (see the package doc and BenchmarkCheckFetchRequest).
func CheckName(img *image.Image, topic string, p, currentLeaderEpoch, local int32, needLeader bool) Result {
	t, _ := img.Topic(topic)
	return Check(t, p, currentLeaderEpoch, local, needLeader)
}

var unknownID = Result{ErrorCode: kafkaerr.UnknownTopicID, LeaderID: -1, LeaderEpoch: -1}

// CheckID is Check for a topic given by id (Fetch v13+, Produce v13+). A
// topic id the image does not hold (the zero id included) answers
// UNKNOWN_TOPIC_ID, as KafkaApis does: handleFetchRequest for a partition
// whose topic name the fetch session could not resolve, handleProduceRequest
// (v13+) for a topic id metadataCache.getTopicName does not know. A known
// topic without the partition still answers UNKNOWN_TOPIC_OR_PARTITION
// (metadataCache.contains fails).
func CheckID(img *image.Image, id record.UUID, p, currentLeaderEpoch, local int32, needLeader bool) Result {
	t, ok := img.TopicByID(id)
	if !ok {
		return unknownID
	}
	return Check(t, p, currentLeaderEpoch, local, needLeader)
}

// LeaderNode returns the node of broker id on listener when it is an alive
// (registered, unfenced) broker with that listener: the only case in which
// Kafka adds it to a response's NodeEndpoints (KIP-951).
func LeaderNode(img *image.Image, id int32, listener string) (host string, port int32, rack *string, ok bool) {
	b, found := img.Cluster().Broker(id)
	if !found || b.Fenced() {
		return "", 0, nil, false
	}
	ep, found := b.Listener(listener)
	if !found {
		return "", 0, nil, false
	}
	if r, has := b.Rack(); has {
		rack = &r
	}
	return ep.Host, int32(ep.Port), rack, true
}

// AppendProduceNode adds the leader's node to a ProduceResponse's
// NodeEndpoints (v10+), once per node id.
func AppendProduceNode(dst []kmsg.ProduceResponseBroker, img *image.Image, id int32, listener string) []kmsg.ProduceResponseBroker {
	for i := range dst {
		if dst[i].NodeID == id {
			return dst
		}
	}
	host, port, rack, ok := LeaderNode(img, id, listener)
	if !ok {
		return dst
	}
	b := kmsg.NewProduceResponseBroker()
	b.NodeID, b.Host, b.Port, b.Rack = id, host, port, rack
	return append(dst, b)
}

// AppendFetchNode adds the leader's node to a FetchResponse's NodeEndpoints
// (v16+), once per node id.
func AppendFetchNode(dst []kmsg.FetchResponseBroker, img *image.Image, id int32, listener string) []kmsg.FetchResponseBroker {
	for i := range dst {
		if dst[i].NodeID == id {
			return dst
		}
	}
	host, port, rack, ok := LeaderNode(img, id, listener)
	if !ok {
		return dst
	}
	b := kmsg.NewFetchResponseBroker()
	b.NodeID, b.Host, b.Port, b.Rack = id, host, port, rack
	return append(dst, b)
}
