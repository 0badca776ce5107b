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
// is rewritten to the proxy's own listen address, so clients keep talking to
// the proxy (the proxy use case). The cluster id is -cluster-id, else the
// cluster.id of meta.properties beside the metadata directory, else
// "kmeta-proxy".
//
// -demo serves a simulated cluster instead (delta/deltatest: three brokers,
// topics orders, payments and __consumer_offsets, as Kafka's controller
// would have written them) and implies -advertise, since the simulated brokers'
// hosts do not exist.
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/answer"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record"
)

// DefaultClusterID is the cluster id when neither -cluster-id nor
// meta.properties gives one.
const DefaultClusterID = "kmeta-proxy"

func main() {
	log.SetFlags(0)
	if err := run(os.Args[1:], nil); err != nil {
		log.Fatal("proxy: ", err)
	}
}

// Server answers clients from the latest image a loader published to it.
// It is a publisher: install it in a publisher.Loader.
type Server struct {
	img       atomic.Pointer[image.Image] // as served (endpoints rewritten with -advertise)
	opts      answer.Options
	advertise string // the listen address, with -advertise
	memo      answer.Memo
}

// run parses args, loads the image and serves until the listener fails. If
// ready is non-nil it receives the listening address (for tests).
func run(args []string, ready chan<- net.Addr) error {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:9092", "address to listen on")
	advertise := fs.Bool("advertise", false, "rewrite every broker's endpoint on the listener to the listen address")
	listener := fs.String("listener", "", "listener whose endpoints to answer with (default: first listener of the lowest broker id)")
	clusterID := fs.String("cluster-id", "", "cluster id (default: meta.properties beside the directory, else "+DefaultClusterID+")")
	demo := fs.Bool("demo", false, "serve a simulated three-broker cluster instead of a directory")
	follow := fs.Bool("follow", false, "keep following the directory for new records")
	up := upstreamFlags(fs) // -upstream: forward to a real cluster (upstream.go)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if up.seeds != "" {
		return runUpstream(*listen, up, ready)
	}
	if *demo != (fs.NArg() == 0) || fs.NArg() > 1 {
		return errors.New("usage: proxy -listen HOST:PORT [-advertise] [-listener NAME] [-cluster-id ID] [-follow] (METADATA_DIR | -demo)")
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	defer ln.Close()

	loader := publisher.NewLoader(publisher.Options{})
	defer loader.Close()
	var dir string
	if *demo {
		*advertise = true
		if err := loadDemo(loader); err != nil {
			return err
		}
	} else {
		dir = fs.Arg(0)
		if st, err := os.Stat(filepath.Join(dir, record.MetadataPartitionDir)); err == nil && st.IsDir() {
			dir = filepath.Join(dir, record.MetadataPartitionDir) // a log directory holding the partition
		}
		if err := dirfollow.Load(loader, dir); err != nil {
			return err
		}
	}
	if *clusterID == "" {
		*clusterID = DefaultClusterID
		if dir != "" {
			*clusterID = readClusterID(dir)
		}
	}
	if *listener == "" {
		*listener = defaultListener(loader.Image())
	}
	addr := ""
	if *advertise {
		addr = ln.Addr().String()
	}
	s := NewServer(*listener, *clusterID, addr)
	if err := loader.Install(s); err != nil {
		return err
	}
	if *follow && dir != "" {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			if err := dirfollow.Follow(ctx, loader, dir, dirfollow.Options{}); err != nil && !errors.Is(err, context.Canceled) {
				log.Printf("proxy: following %s: %v", dir, err)
			}
		}()
	}
	img := s.img.Load()
	log.Printf("proxy: %d brokers, %d topics, listener %q, cluster %q, on %s", img.Cluster().NumBrokers(), img.Topics().Len(), s.opts.Listener, s.opts.ClusterID, ln.Addr())
	if ready != nil {
		ready <- ln.Addr()
	}
	return s.Serve(ln)
}

// NewServer returns a server answering on listener for the cluster id; a
// non-empty advertise address replaces every broker's endpoint on the
// listener. It serves once a loader has published to it.
func NewServer(listener, clusterID, advertise string) *Server {
	return &Server{opts: answer.Options{Listener: listener, ClusterID: clusterID}, advertise: advertise}
}

// Name, OnUpdate and Close make the server a publisher.
func (s *Server) Name() string { return "proxy" }

// OnUpdate takes the new image, rewritten with -advertise.
func (s *Server) OnUpdate(_ *delta.Delta, img *image.Image, _ publisher.Manifest) error {
	if s.advertise != "" {
		var err error
		if img, err = rewrite(img, s.opts.Listener, s.advertise); err != nil {
			return err
		}
	}
	s.img.Store(img)
	return nil
}

// Close does nothing: the server's listener is closed by its owner.
func (s *Server) Close() error { return nil }

// defaultListener is the first listener name of the lowest broker id.
func defaultListener(img *image.Image) string {
	lowest := int32(-1)
	name := ""
	for b := range img.Cluster().Brokers() {
		if b.NumListeners() > 0 && (lowest < 0 || b.ID() < lowest) {
			lowest, name = b.ID(), b.ListenerAt(0).Name
		}
	}
	return name
}

// loadDemo feeds the loader a simulated cluster: three brokers in three
// racks, and the topics orders (6 partitions), payments (3) and
// __consumer_offsets (50, so that FindCoordinator has coordinators).
func loadDemo(l *publisher.Loader) error {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 6, 3)
	sim.MustCreateTopic("payments", 3, 3)
	sim.MustCreateTopic("__consumer_offsets", 50, 3)
	var batches []publisher.Batch
	for _, b := range sim.Batches() {
		pb := publisher.Batch{BaseOffset: b.BaseOffset, Epoch: b.LeaderEpoch, AppendTime: b.AppendTime}
		for _, r := range b.Records {
			pb.Records = append(pb.Records, r.Record)
		}
		if b.Control != nil {
			pb.Control = []record.ControlRecord{b.Control}
		}
		batches = append(batches, pb)
	}
	if err := l.HandleCommit(batches...); err != nil {
		return err
	}
	l.SetHighWatermark(sim.NextOffset())
	return nil
}

// readClusterID reads cluster.id from meta.properties beside dir (in its
// parent, where Kafka keeps it), or returns DefaultClusterID.
func readClusterID(dir string) string {
	for _, p := range []string{filepath.Join(filepath.Dir(filepath.Clean(dir)), "meta.properties"), filepath.Join(dir, "meta.properties")} {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "cluster.id="); ok {
				return strings.TrimSpace(v)
			}
		}
	}
	return DefaultClusterID
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
	c := img.Components()
	c.Cluster = c.Cluster.UpdateCluster(changed, nil)
	return image.New(c, img.Provenance()), nil
}

// Serve accepts connections until ln is closed.
func (s *Server) Serve(ln net.Listener) error {
	for {
		conn, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		go s.serveConn(conn)
	}
}

// supported are the APIs and versions the proxy answers.
var supported = []struct{ key, min, max int16 }{
	{3, 0, 13}, // Metadata
	{10, 0, 6}, // FindCoordinator
	{18, 0, 3}, // ApiVersions
	{60, 0, 2}, // DescribeCluster
	{75, 0, 0}, // DescribeTopicPartitions
}

func (s *Server) serveConn(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	var out []byte
	for {
		var sz [4]byte
		if _, err := io.ReadFull(r, sz[:]); err != nil {
			return
		}
		n := int(int32(binary.BigEndian.Uint32(sz[:])))
		if n < 8 || n > 100<<20 {
			return
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			return
		}
		var err error
		out, err = s.handle(out[:0], buf)
		if err != nil {
			log.Printf("proxy: %v: %v", conn.RemoteAddr(), err)
			return
		}
		if _, err := conn.Write(out); err != nil {
			return
		}
	}
}

// handle answers one request frame (without its size), appending the
// response frame to out.
func (s *Server) handle(out, frame []byte) ([]byte, error) {
	img := s.img.Load()
	if img == nil {
		return nil, errors.New("no image published yet")
	}
	if len(frame) < 8 {
		return nil, errors.New("short request header")
	}
	key := int16(binary.BigEndian.Uint16(frame))
	version := int16(binary.BigEndian.Uint16(frame[2:]))
	corr := binary.BigEndian.Uint32(frame[4:])
	body := frame[8:]
	if len(body) < 2 {
		return nil, errors.New("short request header")
	}
	idLen := int(int16(binary.BigEndian.Uint16(body)))
	body = body[2:]
	if idLen > 0 {
		if idLen > len(body) {
			return nil, errors.New("bad client id")
		}
		body = body[idLen:]
	}
	req := kmsg.RequestForKey(key)
	if req == nil {
		return nil, fmt.Errorf("unknown api key %d", key)
	}
	ok := false
	for _, a := range supported {
		if a.key == key && version >= a.min && version <= a.max {
			ok = true
		}
	}
	if !ok && key != 18 {
		return nil, fmt.Errorf("unsupported api key %d version %d", key, version)
	}
	if key == 18 && !ok {
		// ApiVersions at a version we do not know: answer v0 with
		// UNSUPPORTED_VERSION and our versions (KIP-511), header v0.
		resp := apiVersions(0)
		resp.ErrorCode = 35
		return frameResponse(out, corr, false, resp.AppendTo(nil)), nil
	}
	req.SetVersion(version)
	flexibleHeader := req.IsFlexible() && key != 18 // ApiVersions responses always use header v0
	if req.IsFlexible() {
		// Request header v2: tagged fields after the client id.
		nTags, n := binary.Uvarint(body)
		if n <= 0 {
			return nil, errors.New("bad header tags")
		}
		body = body[n:]
		for i := uint64(0); i < nTags; i++ {
			_, n = binary.Uvarint(body)
			body = body[n:]
			l, m := binary.Uvarint(body)
			body = body[m+int(l):]
		}
	}
	if err := req.ReadFrom(body); err != nil {
		return nil, fmt.Errorf("api %d v%d: %w", key, version, err)
	}
	var resp []byte
	switch r := req.(type) {
	case *kmsg.ApiVersionsRequest:
		resp = apiVersions(version).AppendTo(nil)
	case *kmsg.MetadataRequest:
		resp, _ = s.memo.AppendMetadata(nil, img, r, &s.opts)
	case *kmsg.DescribeClusterRequest:
		resp = answer.DescribeCluster(img, r, &s.opts, nil).AppendTo(nil)
	case *kmsg.DescribeTopicPartitionsRequest:
		resp = answer.DescribeTopicPartitions(img, r, &s.opts).AppendTo(nil)
	case *kmsg.FindCoordinatorRequest:
		fr, _ := answer.FindCoordinator(img, r, &s.opts)
		resp = fr.AppendTo(nil)
	default:
		return nil, fmt.Errorf("api %d not served", key)
	}
	return frameResponse(out, corr, flexibleHeader, resp), nil
}

func apiVersions(v int16) *kmsg.ApiVersionsResponse {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = v
	for _, a := range supported {
		k := kmsg.NewApiVersionsResponseApiKey()
		k.ApiKey, k.MinVersion, k.MaxVersion = a.key, a.min, a.max
		resp.ApiKeys = append(resp.ApiKeys, k)
	}
	return resp
}

func frameResponse(out []byte, corr uint32, flexible bool, body []byte) []byte {
	size := 4 + len(body)
	if flexible {
		size++
	}
	out = binary.BigEndian.AppendUint32(out, uint32(size))
	out = binary.BigEndian.AppendUint32(out, corr)
	if flexible {
		out = append(out, 0)
	}
	return append(out, body...)
}
