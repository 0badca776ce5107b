package answer

import (
	"sync/atomic"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
)

// Config is a broker's configuration as its answers need it: what a Kafka
// broker reads from server.properties and meta.properties when it starts.
// The zero value is a broker with Kafka's default configuration and no
// authorizer.
type Config struct {
	// ClusterID is the broker's cluster id (meta.properties cluster.id;
	// it is not in the image). Empty answers null (Metadata) or "".
	ClusterID string

	// Authorizer decides DESCRIBE, CREATE and the authorized operations
	// from a request's principal and host. Nil is a broker without
	// authorizer.class.name: everything allowed. authz.New builds Kafka's
	// StandardAuthorizer from an image's ACLs; an embedder whose ACLs
	// change builds a new Responder with the new authorizer, as the
	// Responder's Metadata cache assumes that the authorizer decides from
	// the image and the request alone.
	Authorizer authz.Authorizer

	// DisableAutoCreateTopics is auto.create.topics.enable=false (Kafka's
	// default is true).
	DisableAutoCreateTopics bool

	// ControllerID picks the ControllerId of Metadata and DescribeCluster
	// answers among the alive (unfenced) broker ids, given in ascending
	// order and never empty. Kafka picks one at random (KIP-590:
	// getRandomAliveBrokerId). Nil picks the lowest id, so that answers
	// are deterministic and memoisable.
	ControllerID func(alive []int32) int32

	// GroupCoordinatorPartitions, TransactionCoordinatorPartitions and
	// ShareCoordinatorPartitions are the partition counts FindCoordinator
	// hashes keys over. Kafka fixes them when the coordinator starts
	// (BrokerMetadataPublisher starts them): the internal topic's partition
	// count then, or the config default (offsets.topic.num.partitions,
	// transaction.state.log.num.partitions,
	// share.coordinator.state.topic.num.partitions, all 50) when the topic
	// did not exist. Zero uses the internal topic's current partition count
	// in the image, or 50 when it does not exist; an embedder that wants
	// Kafka's exact behaviour snapshots the count when its coordinator
	// starts and sets it here.
	GroupCoordinatorPartitions       int32
	TransactionCoordinatorPartitions int32
	ShareCoordinatorPartitions       int32

	// MaxRequestPartitionSizeLimit is max.request.partition.size.limit, the
	// broker's bound on DescribeTopicPartitions' response (default 2000).
	MaxRequestPartitionSizeLimit int32

	// Creation parameters for auto-created topics (num.partitions 1,
	// default.replication.factor 1, offsets.topic.replication.factor 3,
	// transaction.state.log.replication.factor 3,
	// share.coordinator.state.topic.replication.factor 3); zero means
	// Kafka's default. The internal topics' partition counts are 50.
	NumPartitions                  int32
	DefaultReplicationFactor       int16
	InternalTopicReplicationFactor int16

	// MetadataCacheBytes bounds the memory AppendMetadata's cache of
	// encoded answers keeps per image (zero: 64 MiB). What counts is what
	// an entry really holds: its key (the request's topic list is part of
	// it), its answer's buffer, the topics to create, and the map's
	// per-entry overhead.
	MetadataCacheBytes int
}

// Request is what a Kafka broker takes from the connection a request came on
// (RequestContext): the listener and who sent it. It is passed by value and
// the Responder keeps nothing of it.
type Request struct {
	// Listener is the name of the listener the request arrived on
	// (RequestContext.listenerName): every endpoint in the answer is the
	// broker's endpoint on this listener.
	Listener string

	// Principal and Host identify the client for the Authorizer
	// (KafkaPrincipal.toString, e.g. "User:alice", and the client address).
	Principal string
	Host      string

	// Controller non-nil says the request arrived on a controller's
	// listener (ControllerApis); only DescribeCluster answers differently.
	Controller *ViaController
}

// A Responder answers requests as one Kafka broker: it is built once from
// the broker's Config (as kfake builds its cluster from options once) and
// answers any number of requests, against any images, from any number of
// goroutines. It owns what it caches: the broker tables of the last few
// images' clusters (a Cluster never changes, and an image that did not
// change its brokers shares its base's, so a table is built once per broker
// change and listener instead of once per request) and the encoded Metadata
// answers of AppendMetadata.
//
// Every answer is a pure function of the Config, the image, the request and
// its Request: the caches change how fast an answer comes, never what it is.
type Responder struct {
	cfg Config

	tables struct {
		next  atomic.Uint32
		slots [4]atomic.Pointer[brokers]
	}
	memo memo
}

// New returns a Responder for a broker configured as cfg. The Responder
// keeps a copy of cfg; cfg's Authorizer and ControllerID are called from the
// goroutines that call the Responder.
func New(cfg Config) *Responder {
	r := &Responder{cfg: cfg}
	r.memo.maxBytes = cfg.MetadataCacheBytes
	return r
}

// Config returns the configuration the Responder was built with.
func (r *Responder) Config() Config { return r.cfg }

// call is one request's inputs: the broker's configuration and the request's
// identity.
type call struct {
	*Config
	Request
	r *Responder
}

func (r *Responder) call(rq Request) call {
	return call{Config: &r.cfg, Request: rq, r: r}
}

// brokersFor returns the table of img's brokers on listener, from the
// Responder's last few tables when img's Cluster is among them.
func (r *Responder) brokersFor(img *image.Image, listener string) *brokers {
	c := img.Cluster()
	for i := range r.tables.slots {
		if t := r.tables.slots[i].Load(); t != nil && t.cluster == c && t.listener == listener {
			return t
		}
	}
	t := newBrokers(c, listener)
	r.tables.slots[r.tables.next.Add(1)%uint32(len(r.tables.slots))].Store(t)
	return t
}
