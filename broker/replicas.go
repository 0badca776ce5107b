package broker

import (
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// IsStrayReplica is the rule BrokerMetadataPublisher.initializeManagers
// hands LogManager at startup (LogManager.isStrayReplica over
// TopicsImage.partitionReplicas): a local log of partition p is stray, to
// be deleted, when it has no topic id (hasTopicID false: its
// partition.metadata was never written), when the image has no such topic
// id or partition, or when broker is not among the partition's replicas.
func IsStrayReplica(img *image.Image, topicID record.UUID, hasTopicID bool, p, broker int32) bool {
	if !hasTopicID {
		return true
	}
	t, ok := img.TopicByID(topicID)
	if !ok {
		return true
	}
	part, ok := t.Partition(p)
	if !ok || part.NumReplicas() == 0 {
		return true
	}
	return !part.HasReplica(broker)
}

// ReplicaState is what a leader knows of one of its followers
// (Replica.stateSnapshot).
type ReplicaState struct {
	BrokerID           int32
	LogEndOffset       int64
	LogStartOffset     int64
	LastCaughtUpTimeMs int64
}

// ReadReplicaRequest is a fetch as ReplicaManager.findPreferredReadReplica
// sees it.
type ReadReplicaRequest struct {
	// ReplicaID is the fetch's replica id: a broker id (>= 0) for a
	// follower, negative for a consumer.
	ReplicaID int32
	// ClientRack is the consumer's rack (FetchRequest v11+ RackId, KIP-392);
	// "" means none.
	ClientRack string
	// Listener is the listener the request came in on.
	Listener    string
	FetchOffset int64
	NowMs       int64
	// LeaderLogEndOffset is the leader's own log end offset.
	LeaderLogEndOffset int64
	// Followers are the states of the partition's other replicas
	// (Partition.remoteReplicas).
	Followers []ReplicaState
}

// PreferredReadReplica is ReplicaManager.findPreferredReadReplica with
// Kafka's RackAwareReplicaSelector (replica.selector.class, KIP-392): the
// replica a leader tells a consumer to fetch partition p of t from, false
// for none (the consumer keeps fetching from the leader).
//
// There is none unless local leads the partition in img, the fetch comes
// from a consumer with a rack, and the leader is not in that rack. The
// candidates are the followers in the image's ISR whose log holds the fetch
// offset and whose broker is alive with a node on the listener
// (Image.AppendReplicaEndpoints) in the consumer's rack; the chosen one has
// the highest log end offset, then the most recent catch-up, then the
// highest broker id (ReplicaView.comparator).
func PreferredReadReplica(img *image.Image, t image.Topic, p, local int32, req ReadReplicaRequest) (int32, bool) {
	if t.IsZero() {
		return 0, false
	}
	part, ok := t.Partition(p)
	if !ok || part.Leader() != local || req.ReplicaID >= 0 || req.ClientRack == "" {
		return 0, false
	}
	var scratch [8]image.Node
	nodes := img.AppendReplicaEndpoints(scratch[:0], t, p, req.Listener)
	inRack := func(id int32) bool {
		for _, n := range nodes {
			if n.ID == id {
				return n.HasRack && n.Rack == req.ClientRack
			}
		}
		return false // Node.noNode() has no rack
	}
	if inRack(local) {
		return 0, false // the leader is in the client's rack
	}
	best, found := ReplicaState{}, false
	for _, f := range req.Followers {
		if f.BrokerID == local || !part.InISR(f.BrokerID) || f.LogEndOffset < req.FetchOffset ||
			f.LogStartOffset > req.FetchOffset || !inRack(f.BrokerID) {
			continue
		}
		if !found || better(f, best, req.NowMs) {
			best, found = f, true
		}
	}
	return best.BrokerID, found
}

// better is ReplicaView.comparator's order (a > b): log end offset, then
// the shorter time since the last catch-up, then the broker id.
func better(a, b ReplicaState, now int64) bool {
	if a.LogEndOffset != b.LogEndOffset {
		return a.LogEndOffset > b.LogEndOffset
	}
	if la, lb := now-a.LastCaughtUpTimeMs, now-b.LastCaughtUpTimeMs; la != lb {
		return la < lb
	}
	return a.BrokerID > b.BrokerID
}
