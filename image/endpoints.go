package image

// Node is Kafka's Node as a broker registration hands it out for one
// listener (BrokerRegistration.node): the broker id, the listener's host and
// port, and the broker's rack. The zero Node with ID -1 is Node.noNode().
type Node struct {
	ID      int32
	Host    string
	Port    int32
	Rack    string
	HasRack bool // false: the broker has no rack (Node.rack() is null)
}

// NoNode is Kafka's Node.noNode(): id -1, empty host, port -1.
var NoNode = Node{ID: -1, Port: -1}

// IsEmpty is Node.isEmpty: no host or a negative port.
func (n Node) IsEmpty() bool { return n.Host == "" || n.Port < 0 }

// Node returns the node of listener name (BrokerRegistration.node), false
// when the broker has no such listener.
func (b *Broker) Node(listener string) (Node, bool) {
	ep, ok := b.Listener(listener)
	if !ok {
		return Node{}, false
	}
	n := Node{ID: b.id, Host: ep.Host, Port: int32(ep.Port)}
	if b.rack != nil {
		n.Rack, n.HasRack = *b.rack, true
	}
	return n, true
}

// LeaderLookup is the outcome of Image.LeaderEndpoint, the three answers of
// KRaftMetadataCache.getPartitionLeaderEndpoint.
type LeaderLookup int8

const (
	// LeaderUnknown: the topic or partition does not exist, the partition
	// has no leader, or its leader is not registered (Optional.empty()).
	LeaderUnknown LeaderLookup = iota
	// LeaderFound: the leader is registered and has the listener
	// (Optional.of(node)).
	LeaderFound
	// LeaderListenerMissing: the leader is registered but has no such
	// listener (Optional.of(Node.noNode())); KafkaApis answers
	// LEADER_NOT_AVAILABLE or LISTENER_NOT_FOUND here, not
	// NOT_LEADER_OR_FOLLOWER.
	LeaderListenerMissing
)

// String names the outcome.
func (l LeaderLookup) String() string {
	switch l {
	case LeaderFound:
		return "found"
	case LeaderListenerMissing:
		return "listener missing"
	}
	return "unknown"
}

// LeaderEndpoint is KRaftMetadataCache.getPartitionLeaderEndpoint: the node
// of the leader of partition p of topic name on listener. The leader's
// fencing is ignored, as in Kafka. With LeaderListenerMissing the node is
// NoNode; with LeaderUnknown the zero Node.
func (img *Image) LeaderEndpoint(name string, p int32, listener string) (Node, LeaderLookup) {
	leader, _, ok := img.Leader(name, p)
	if !ok {
		return Node{}, LeaderUnknown
	}
	b, ok := img.cluster.brokers.Get(leader)
	if !ok {
		return Node{}, LeaderUnknown
	}
	n, ok := b.Node(listener)
	if !ok {
		return NoNode, LeaderListenerMissing
	}
	return n, LeaderFound
}

// AppendReplicaEndpoints is KRaftMetadataCache.getPartitionReplicaEndpoints:
// it appends to dst the node on listener of every replica of partition p of
// topic t (the zero Topic: the topic does not exist) whose broker is registered, not
// fenced, has the listener and a non-empty node (Node.isEmpty), in replica
// order (Kafka returns them as a map by broker id). It appends nothing when
// the partition does not exist.
func (img *Image) AppendReplicaEndpoints(dst []Node, t Topic, p int32, listener string) []Node {
	if t.t == nil {
		return dst
	}
	part, ok := t.Partition(p)
	if !ok {
		return dst
	}
	for i := range part.NumReplicas() {
		b, ok := img.cluster.brokers.Get(part.Replica(i))
		if !ok || b.fenced {
			continue
		}
		if n, ok := b.Node(listener); ok && !n.IsEmpty() {
			dst = append(dst, n)
		}
	}
	return dst
}

// AppendPartitionRacks is KRaftCoordinatorMetadataImage's
// TopicMetadata.partitionRacks, the racks the group coordinator's assignors
// and topic hash see: it appends to dst the rack of every replica of
// partition p of t whose broker is registered (fenced or not) and has a
// rack, in replica order, duplicates kept. Nothing for a partition t does
// not have.
func (img *Image) AppendPartitionRacks(dst []string, t Topic, p int32) []string {
	part, ok := t.Partition(p)
	if !ok {
		return dst
	}
	for i := range part.NumReplicas() {
		if b, ok := img.cluster.brokers.Get(part.Replica(i)); ok && b.rack != nil {
			dst = append(dst, *b.rack)
		}
	}
	return dst
}
