package proxy

import (
	"crypto/tls"
	"log"
	"net"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/answer"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/publisher"
)

// DefaultClusterID is the cluster id a proxy answers with when it is given
// none.
const DefaultClusterID = "kmeta-proxy"

// Server answers clients from the latest image a loader published to it:
// ApiVersions, Metadata, DescribeCluster, DescribeTopicPartitions and
// FindCoordinator, as a broker on its listener would (image/answer). It is
// a publisher: install it in a publisher.Loader, then Serve a listener.
type Server struct {
	img       atomic.Pointer[image.Image] // as served (endpoints rewritten with an advertise address)
	ans       *answer.Responder           // built from the cluster id and Limits.MemoBytes
	rq        answer.Request              // the listener every request is answered on
	advertise string                      // the advertised address, if any
	lim       Limits                      // see limits.go
	stats     Stats                       // see conn.go
	connLog   connLog
	obs       Observer // see observer.go
	accOnce   sync.Once
	acc       *acceptor // see accept.go
	fatal     fatalErrs // the first listener that failed for good
	tlsCfg    *tls.Config
	mapper    *PrincipalMapper

	// SetAuthorization's: the authorizer's configuration, and the
	// Responder of the latest image with its authorizer.
	authzCfg *authz.Config
	authAns  atomic.Pointer[answer.Responder]

	// AdvertisePerBroker's ports and SetServeFenced (imagemode.go)
	ports       *Map
	closePorts  func()
	serveFenced bool
}

// NewServer returns a server answering on listener for the cluster id; a
// non-empty advertise address replaces every broker's endpoint on the
// listener. It serves once a loader has published to it (or ServeEmpty).
func NewServer(listener, clusterID, advertise string) *Server {
	return &Server{
		ans:       answer.New(answer.Config{ClusterID: clusterID}),
		rq:        answer.Request{Listener: listener},
		advertise: advertise,
	}
}

// SetLimits sets the server's limits; the answers' Responder is rebuilt
// with the Metadata cache bound. Call it before serving.
func (s *Server) SetLimits(l Limits) {
	s.lim = l
	cfg := s.ans.Config()
	cfg.MetadataCacheBytes = l.MemoBytes
	s.ans = answer.New(cfg)
}

// SetServeFenced makes the server answer an image of a stopped cluster
// (every broker fenced) as if its brokers were alive: brokers unfenced,
// leaderless partitions led by their first ISR (else eligible leader)
// replica. Call it before the first image is published.
func (s *Server) SetServeFenced(on bool) { s.serveFenced = on }

// SetTLS makes every listener of the server a TLS listener with cfg
// (ListenerTLS), client certificates mapped to principals by m (nil:
// DEFAULT). Call it before serving.
func (s *Server) SetTLS(cfg *tls.Config, m *PrincipalMapper) { s.tlsCfg, s.mapper = cfg, m }

// SetAuthorization makes the server answer as a broker with Kafka's
// StandardAuthorizer over each image's own ACLs (cfg's super users and
// allow.everyone.if.no.acl.found; the metadata.version the image's): the
// Metadata topics a client may not DESCRIBE are left out or answered
// TOPIC_AUTHORIZATION_FAILED, and the authorized operations asked for are
// the client's (image/answer), for the principal of its TLS certificate
// or User:ANONYMOUS. Call it before the first image is published.
func (s *Server) SetAuthorization(cfg authz.Config) { s.authzCfg = &cfg }

// responder is the Responder answering now: the latest image's, with its
// authorizer, under SetAuthorization.
func (s *Server) responder() *answer.Responder {
	if a := s.authAns.Load(); a != nil {
		return a
	}
	return s.ans
}

// SetObserver makes o see the server's connections and requests. Call it
// before serving.
func (s *Server) SetObserver(o Observer) { s.obs = o }

// Stats are the server's counters.
func (s *Server) Stats() *Stats { return &s.stats }

// ClosePorts closes the per-broker listeners of AdvertisePerBroker, if any.
func (s *Server) ClosePorts() {
	if s.closePorts != nil {
		s.closePorts()
	}
}

// ServeEmpty makes the server answer from an empty cluster while no image
// has been published, and reports whether it did so (false: an image was
// already there).
func (s *Server) ServeEmpty() bool {
	return s.img.CompareAndSwap(nil, image.Empty())
}

// LogStart logs what the server serves on addr, and that SetServeFenced's
// answers are not the cluster's state.
func (s *Server) LogStart(addr net.Addr) {
	img := s.img.Load()
	if img == nil {
		img = image.Empty()
	}
	log.Printf("proxy: %d brokers, %d topics, listener %q, cluster %q, on %s", img.Cluster().NumBrokers(), img.Topics().Len(), s.rq.Listener, s.ans.Config().ClusterID, addr)
	s.logFenced(img) // fenced.go
	if s.serveFenced {
		log.Printf("proxy: -serve-fenced: fenced brokers are answered as alive and leaderless partitions as led by their first ISR (else eligible leader) replica; this is not the cluster's state")
	}
}

// Name is the server's publisher name.
func (s *Server) Name() string { return "proxy" }

// OnUpdate takes the new image, rewritten to the advertised addresses.
func (s *Server) OnUpdate(u publisher.Update) error {
	if old := s.img.Load(); old != nil && !allFenced(old) {
		s.logFenced(u.Image) // fenced.go
	}
	img, err := s.prepare(u.Image) // imagemode.go
	if err != nil {
		return err
	}
	if s.authzCfg != nil {
		cfg := *s.authzCfg
		if mv, ok := u.Image.Features().MetadataVersion(); ok {
			cfg.MetadataVersion = mv
		}
		acfg := s.ans.Config()
		acfg.Authorizer = authz.New(u.Image.ACLs(), cfg)
		s.authAns.Store(answer.New(acfg))
	}
	s.img.Store(img)
	return nil
}

// Close does nothing: the server's listeners are closed by their owner
// (and ClosePorts).
func (s *Server) Close() error { return nil }

// DefaultListener is the listener a proxy answers on when it is given none:
// the first listener name (in name order) of the lowest broker id.
func DefaultListener(img *image.Image) string {
	lowest := int32(-1)
	name := ""
	for b := range img.Cluster().Brokers() {
		if b.NumListeners() > 0 && (lowest < 0 || b.ID() < lowest) {
			lowest, name = b.ID(), b.ListenerAt(0).Name
		}
	}
	return name
}

// rewrite returns img with every broker's endpoint on listener moved to addr.
func rewrite(img *image.Image, listener, addr string) (*image.Image, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, err
	}
	changed := map[int32]*image.Broker{}
	for b := range img.Cluster().Brokers() {
		r := b.Record()
		for i := range r.EndPoints {
			if r.EndPoints[i].Name == listener {
				r.EndPoints[i].Host, r.EndPoints[i].Port = host, uint16(port)
			}
		}
		nb, err := image.NewBroker(r)
		if err != nil {
			return nil, err
		}
		changed[b.ID()] = nb
	}
	b := image.NewBuilder(img)
	b.PutCluster(changed, nil)
	return b.Image(img.Provenance()), nil
}
