// Command proxy answers Kafka clients from a metadata image: it loads a
// __cluster_metadata-0 directory and serves ApiVersions, Metadata,
// DescribeCluster, DescribeTopicPartitions and FindCoordinator on a TCP
// address, as a Kafka broker on the chosen listener would answer them.
// Other APIs are absent from its ApiVersions answer.
//
//	go run ./examples/proxy -listen 127.0.0.1:9092 [-advertise] [-listener NAME] [-cluster-id ID] [-follow] METADATA_DIR
//	go run ./examples/proxy -listen 127.0.0.1:9092 -demo
//
// The directory is loaded through kmeta's loader (publisher.Loader fed by
// publisher/dirfollow: the latest snapshot, then the log after it), and the
// proxy answers from the image the loader publishes; with -follow it keeps
// following the directory, so a live Kafka node's metadata log is served as
// it changes (each request reads the current image; memoised answers are
// dropped when the image changes).
//
// The listener defaults to the first listener name (in name order) of the
// lowest broker id. With -advertise every broker's endpoint on that listener
// is rewritten to a port of the proxy's own, one listening port per broker
// id (free ports, or BASE+id with -broker-ports BASE), so clients keep
// talking to the proxy and still see distinct brokers (librdkafka keys its
// connections by address); the -listen address answers the same, as a
// bootstrap address. With -serve-fenced an image of a stopped cluster
// (every broker fenced) is answered as if its brokers were alive
// (proxy.Server.SetServeFenced), and the output says so.
//
// With -upstream HOST:PORT[,...] it is instead a forwarding proxy in front
// of a real cluster (proxy.Forwarder): its cluster view comes from
// upstream Metadata answers (clientview.Refresher); ApiVersions, Metadata,
// DescribeCluster, FindCoordinator and DescribeTopicPartitions are answered
// from it where it holds the answer, and
// every other request is forwarded to the broker whose port the client
// dialled, with every broker address of the answers rewritten to the
// proxy's ports (epoch/proxy's Rewriter). When every broker it knows fails
// it goes back to the -upstream bootstrap servers, with a capped jittered
// backoff (KIP-899's rebootstrap: clientview.Rebootstrap), so a cluster
// whose nodes all moved is found again through them. -rack-first and -client-host PREFIX=HOST
// give each client its own view of the broker list (proxy.Shaper). The
// cluster id is -cluster-id, else the cluster.id of meta.properties beside
// the metadata directory, else "kmeta-proxy".
//
// -metrics.addr HOST:PORT serves Prometheus metrics on /metrics (the
// proxy's requests, errors, denials, bytes, connections and upstream
// latency as kmeta_proxy_*, and the metadata loader's Stats under Kafka's
// metric names; see README.md), and -pprof adds net/http/pprof's profiles
// under /debug/pprof/ on that address. Both are off by default.
//
// -demo serves a simulated cluster instead (delta/deltatest: three brokers,
// topics orders, payments and __consumer_offsets, as Kafka's controller
// would have written them) and implies -advertise, since the simulated brokers'
// hosts do not exist.
//
// The listeners speak TLS with -tls.cert and -tls.key (ssl.client.auth,
// ssl.principal.mapping.rules), and in upstream mode clients authenticate
// with -sasl.enabled.mechanisms (PLAIN, SCRAM from -metadata.dir) and every
// request is authorized against -acls or -metadata.dir's ACLs before it is
// forwarded (-authz.pass-through turns that off, loudly); the proxy's own
// identity upstream is -upstream.tls* and -upstream.sasl.*. See the
// README's "What the proxy authenticates, authorizes and forwards".
//
// Nothing a network sends ends the proxy. Requests are read and decoded by
// epoch/proxy (bounded framing, header and bodies; an undecodable request,
// an unknown API key or an unserved API or version closes that connection,
// as Kafka's SocketServer does; ApiVersions at an unknown version is
// answered at v0 with UNSUPPORTED_VERSION). A panic while serving a
// connection closes it, is logged with the remote address and counted
// (lines about closed connections: at most 20 a second). The
// limits are flags named after Kafka's broker configs:
// -socket.request.max.bytes (100 MiB), -connections.max.idle.ms (10 min),
// -max.connections (2147483647), -max.connections.per.ip, plus -request.read.timeout.ms (30 s from a
// request's first byte to its last, and for writing its answer) and
// -metadata.cache.max.bytes (64 MiB of memoised Metadata answers, keys
// included). A directory with nothing to load yet (missing, empty, or only a
// .checkpoint.part) is served as an empty cluster, or with -follow waited
// for until Kafka writes a segment or snapshot.
package main

import (
	"errors"
	"flag"
	"log"
	"net"
	"os"
	"runtime/debug"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/epoch/proxy"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record/metaprops"
)

func main() {
	log.SetFlags(0)
	if err := run(os.Args[1:], nil); err != nil {
		log.Print("proxy: ", err)
		os.Exit(1)
	}
}

// memOverhead is the memory the proxy may use beyond its budgets (the
// upstream answer budget and the Metadata answer cache): the runtime, the
// image or view, and each connection's fixed buffers.
const memOverhead = 64 << 20

// setMemoryLimit sets the runtime's soft memory limit to the mode's budget
// (the upstream answer budget, or the image mode's Metadata answer cache)
// plus memOverhead, so that the collector runs before the heap
// grows past them (GOGC alone lets it reach twice the live heap), unless
// GOMEMLIMIT says otherwise.
func setMemoryLimit(lim proxy.Limits, upstream bool) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	budget := int64(lim.MemoBytes) // the image mode's answer cache
	if upstream {
		budget = int64(lim.UpstreamBufferBytes)
	}
	debug.SetMemoryLimit(budget + memOverhead)
}

// run parses args, loads the image and serves until the listener fails. If
// ready is non-nil it receives the listening address (for tests).
func run(args []string, ready chan<- net.Addr) error { return runWith(args, ready, nil) }

// runWith is run whose metricsReady, if non-nil, receives the address of
// -metrics.addr's endpoint first (for tests).
func runWith(args []string, ready, metricsReady chan<- net.Addr) error {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:9092", "address to listen on")
	advertise := fs.Bool("advertise", false, "advertise each broker at a port of its own on the listen host (one listener per broker id; -broker-ports BASE for BASE+id)")
	listener := fs.String("listener", "", "listener whose endpoints to answer with (default: first listener of the lowest broker id)")
	clusterID := fs.String("cluster-id", "", "cluster id (default: meta.properties beside the directory, else "+proxy.DefaultClusterID+")")
	demo := fs.Bool("demo", false, "serve a simulated three-broker cluster instead of a directory")
	follow := fs.Bool("follow", false, "keep following the directory for new records")
	lim := limitFlags(fs)
	tlsf := newTLSFlags(fs)
	azf := newAuthzFlags(fs)
	saslf := newSASLFlags(fs)
	up := upstreamFlags(fs) // -upstream: forward to a real cluster (upstream.go)
	mf := newMetricsFlags(fs)
	serveFenced := fs.Bool("serve-fenced", false, "answer as if every fenced broker were alive (an image of a stopped cluster): brokers unfenced, leaderless partitions led by their first ISR (else eligible leader) replica")
	if err := fs.Parse(args); err != nil {
		return err
	}
	setMemoryLimit(*lim, up.seeds != "")
	mx, err := mf.start(metricsReady) // see metricsflags.go
	if err != nil {
		return err
	}
	defer mx.close()
	if up.seeds != "" {
		return runUpstream(*listen, up, *lim, tlsf, azf, saslf, mx, ready)
	}
	if *demo != (fs.NArg() == 0) || fs.NArg() > 1 {
		return errors.New("usage: proxy -listen HOST:PORT [-advertise] [-listener NAME] [-cluster-id ID] [-follow] (METADATA_DIR | -demo)")
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	defer ln.Close()
	loader := publisher.NewLoader(publisher.Config{})
	defer loader.Close()
	mx.loader(loader)
	// The loader is single-goroutine and -follow feeds it from a goroutine
	// of its own, so the server is reached through a relay installed now
	// (startup.go).
	relay, setRelay := newRelay()
	if err := loader.Install(relay); err != nil {
		return err
	}
	dir := fs.Arg(0)
	*advertise = *advertise || *demo // the simulated brokers' hosts do not exist
	stop, err := loadSource(loader, dir, *demo, *follow)
	defer stop() // before loader.Close
	if err != nil {
		return err
	}
	if *clusterID == "" {
		*clusterID = proxy.DefaultClusterID
		if dir != "" {
			*clusterID = readClusterID(dir)
		}
	}
	if *listener == "" && loader.Image() != nil {
		*listener = proxy.DefaultListener(loader.Image())
	}
	s := newImageServer(ln, *listener, *clusterID, *advertise, up.brokerBase, *serveFenced, *lim)
	defer s.ClosePorts()
	mx.server(s)
	if err := secure(s, tlsf, azf); err != nil {
		return err
	}
	if err := setRelay(s); err != nil {
		log.Printf("proxy: %v", err) // as the loader reports a publisher's fault
	}
	if s.ServeEmpty() {
		log.Printf("proxy: %s holds no metadata snapshot or log yet: serving an empty cluster", dir)
	}
	s.LogStart(ln.Addr())
	if ready != nil {
		ready <- ln.Addr()
	}
	return s.Serve(ln)
}

// secure applies the TLS and authorization flags to the image mode's server.
func secure(s *proxy.Server, tlsf *tlsFlags, azf *authzFlags) error {
	tlsCfg, mapper, err := tlsf.listener()
	if err != nil {
		return err
	}
	s.SetTLS(tlsCfg, mapper)
	if azf.imageAuthz {
		s.SetAuthorization(azf.config())
	}
	return nil
}

// newImageServer is the server of the image mode on ln: with advertise,
// one port per broker id on ln's host (BASE+id with -broker-ports).
func newImageServer(ln net.Listener, listener, clusterID string, advertise bool, base int, serveFenced bool, lim proxy.Limits) *proxy.Server {
	addr := ""
	if advertise {
		addr = ln.Addr().String()
	}
	s := proxy.NewServer(listener, clusterID, addr)
	s.SetServeFenced(serveFenced)
	s.SetLimits(lim)
	if advertise {
		host, _, _ := net.SplitHostPort(addr)
		s.AdvertisePerBroker(host, base)
	}
	return s
}

// loadDemo feeds the loader a simulated cluster: three brokers in three
// racks, and the topics orders (6 partitions), payments (3) and
// __consumer_offsets (50, so that FindCoordinator has coordinators).
func loadDemo(l *publisher.Loader) error {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 6, 3)
	sim.MustCreateTopic("payments", 3, 3)
	sim.MustCreateTopic("__consumer_offsets", 50, 3)
	if err := l.HandleCommit(sim.Batches()...); err != nil {
		return err
	}
	l.SetHighWatermark(sim.NextOffset())
	return nil
}

// readClusterID is the cluster.id of the meta.properties beside dir (in its
// parent, where Kafka keeps it, else inside it), or proxy.DefaultClusterID
// when there is none; a file that cannot be read or fails Kafka's checks is
// logged (metaprops.Error names it) and the default used.
func readClusterID(dir string) string {
	p, err := metaprops.FindFor(dir)
	switch {
	case errors.Is(err, metaprops.ErrNotFound):
	case err != nil:
		log.Printf("proxy: %v: cluster id %s", err, proxy.DefaultClusterID)
	case p.HasClusterID:
		return p.ClusterID
	}
	return proxy.DefaultClusterID
}
