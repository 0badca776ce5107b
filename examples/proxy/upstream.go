package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/epoch/advertise"
	"github.com/kmeta-go/kmeta/epoch/clientview"
	"github.com/kmeta-go/kmeta/internal/wire"
)

// upstreamConfig are the flags of the forwarding mode (-upstream).
type upstreamConfig struct {
	seeds      string
	brokerBase int
	timeout    time.Duration
	rackFirst  bool
	hosts      advertise.ClientHosts // -client-host
	verify     bool
}

func upstreamFlags(fs *flag.FlagSet) *upstreamConfig {
	c := &upstreamConfig{}
	fs.StringVar(&c.seeds, "upstream", "", "forward to the Kafka cluster at HOST:PORT[,HOST:PORT...] instead of answering from a directory")
	fs.IntVar(&c.brokerBase, "broker-ports", 0, "advertise broker id N on port BASE+N (default: a free port per broker, kept for the life of the proxy)")
	fs.DurationVar(&c.timeout, "upstream-timeout", 30*time.Second, "longest wait for an upstream answer (request.timeout.ms)")
	fs.BoolVar(&c.rackFirst, "rack-first", false, "order each client's broker list with its rack's brokers first (client.rack from Fetch requests)")
	fs.Func("client-host", "PREFIX=HOST: advertise HOST (with the proxy's ports) to clients whose client.id starts with PREFIX, the longest prefix winning (repeatable; Bufstream-style host overrides by client id)", func(v string) error {
		r, err := parseHostRule(v)
		if err == nil {
			c.hosts = append(c.hosts, r)
		}
		return err
	})
	fs.BoolVar(&c.verify, "verify", false, "decode every answer sent and log any broker address that is not one of the proxy's ports; log every upstream connection's local address")
	return c
}

// Forwarder is the proxy in front of a real cluster (-upstream). It keeps a
// cluster view built from upstream Metadata answers (clientview.Refresher: the
// view never goes back on a leader epoch, takes KIP-951 hints and refreshes
// by clientview.Policy), advertises one port per upstream broker id
// (advertise.Map, through brokerPorts), answers ApiVersions, Metadata,
// DescribeCluster, FindCoordinator and DescribeTopicPartitions itself from
// the view with rewritten endpoints where the view holds the answer
// (viewcoord.go says when it does not), and forwards every other request
// to the broker whose port the client dialled
// (any broker on the bootstrap port), rewriting the addresses of the
// responses (advertise.Rewriter).
type Forwarder struct {
	seeds    []string
	timeout  time.Duration
	clientID string
	dial     func(ctx context.Context, network, addr string) (net.Conn, error)

	ref   *clientview.Refresher
	amap  *advertise.Map
	rw    *advertise.Rewriter
	ports *brokerPorts

	versions atomic.Pointer[kmsg.ApiVersionsResponse] // upstream's, intersected

	clusterID atomic.Pointer[string]

	// onResponse, if set, sees every response frame body the proxy sends
	// (after the response header), for tests.
	onResponse func(key, version int16, body []byte)

	stats FwdStats
}

// FwdStats counts what the forwarder did; the counters only grow.
type FwdStats struct {
	Forwarded     atomic.Int64 // requests forwarded
	Rewritten     atomic.Int64 // forwarded responses rewritten
	Local         atomic.Int64 // requests answered from the view
	Refused       atomic.Int64 // requests refused (UNSUPPORTED_VERSION or closed)
	UpstreamFails atomic.Int64 // connections closed on an upstream failure
	Refreshes     atomic.Int64 // metadata refreshes that reached upstream
}

// newForwarder returns a forwarder for the seeds; ports opens the listeners
// of broker ids as the view learns them.
func newForwarder(seeds []string, timeout time.Duration, ports *brokerPorts) *Forwarder {
	f := &Forwarder{seeds: seeds, timeout: timeout, clientID: "kmeta-proxy", ports: ports}
	var d net.Dialer
	f.dial = d.DialContext
	f.amap = advertise.NewMap(ports)
	f.rw = &advertise.Rewriter{Map: f.amap}
	f.ref = clientview.NewRefresher(clientview.RefresherConfig{
		Fetch:          f.fetchMetadata,
		Policy:         clientview.Policy{MaxAge: 30 * time.Second},
		AllTopics:      true,
		RequestVersion: 12,
	})
	return f
}

// start asks upstream for its ApiVersions and a first view.
func (f *Forwarder) start(ctx context.Context) error {
	if err := f.loadVersions(ctx); err != nil {
		return err
	}
	_, err := f.refresh(ctx, true)
	return err
}

// upstreamAddrs are the addresses to try for a request to any broker: the
// brokers the view knows (upstream endpoints), then the seeds.
func (f *Forwarder) upstreamAddrs() []struct {
	id   int32
	addr string
} {
	var out []struct {
		id   int32
		addr string
	}
	for _, b := range f.ref.View().Brokers() {
		out = append(out, struct {
			id   int32
			addr string
		}{b.NodeID(), advertise.Endpoint{Host: b.Host(), Port: b.Port()}.String()})
	}
	for _, s := range f.seeds {
		out = append(out, struct {
			id   int32
			addr string
		}{-1, s})
	}
	return out
}

// fetchMetadata is the refresher's FetchFunc: one Metadata round trip to the
// first upstream broker that answers.
func (f *Forwarder) fetchMetadata(ctx context.Context, req *kmsg.MetadataRequest) (*kmsg.MetadataResponse, int32, error) {
	var errs []error
	for _, u := range f.upstreamAddrs() {
		resp, err := f.roundTrip(ctx, u.addr, req)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", u.addr, err))
			continue
		}
		f.stats.Refreshes.Add(1)
		return resp.(*kmsg.MetadataResponse), u.id, nil
	}
	return nil, -1, fmt.Errorf("no upstream broker answered Metadata: %w", errors.Join(errs...))
}

// refresh refreshes the view if the policy says so (or now with force), and
// gives every broker of the view its advertised port.
func (f *Forwarder) refresh(ctx context.Context, force bool) (*clientview.View, error) {
	var v *clientview.View
	var err error
	if force {
		v, err = f.ref.Refresh(ctx)
	} else {
		v, err = f.ref.MaybeRefresh(ctx)
	}
	for _, b := range v.Brokers() {
		if _, oerr := f.amap.Observe(b.NodeID(), advertise.Endpoint{Host: b.Host(), Port: b.Port()}, rackOf(b)); oerr != nil {
			log.Printf("proxy: broker %d: no port to advertise: %v", b.NodeID(), oerr)
		}
	}
	if id, ok := v.ClusterID(); ok {
		f.clusterID.Store(&id)
	}
	return v, err
}

// refreshLoop keeps the view fresh while nothing asks: it sleeps until the
// policy wants a refresh (clientview.Refresher.Wait) and refreshes. The library
// has no goroutine of its own; this one is the proxy's.
func (f *Forwarder) refreshLoop(ctx context.Context) {
	for {
		d := min(max(f.ref.Wait(), 50*time.Millisecond), 5*time.Second)
		select {
		case <-ctx.Done():
			return
		case <-time.After(d):
		}
		if _, err := f.refresh(ctx, false); err != nil && ctx.Err() == nil {
			log.Printf("proxy: metadata refresh: %v", err)
		}
	}
}

// loadVersions asks upstream which APIs it offers and keeps the
// intersection with what the proxy can rewrite and answer.
func (f *Forwarder) loadVersions(ctx context.Context) error {
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 3
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kmeta-proxy", "0"
	var errs []error
	for _, u := range f.upstreamAddrs() {
		resp, err := f.roundTrip(ctx, u.addr, req)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", u.addr, err))
			continue
		}
		av := resp.(*kmsg.ApiVersionsResponse)
		if av.ErrorCode != 0 {
			errs = append(errs, fmt.Errorf("%s: ApiVersions error %d", u.addr, av.ErrorCode))
			continue
		}
		av.ApiKeys = advertise.Intersect(av.ApiKeys, advertise.RewritableVersions, localVersions)
		f.versions.Store(av)
		return nil
	}
	return fmt.Errorf("no upstream broker answered ApiVersions: %w", errors.Join(errs...))
}

// localVersions are the versions of the APIs the proxy answers itself (what
// internal/wire decodes); other APIs are limited by upstream and the
// rewriter only.
func localVersions(key int16) (lo, hi int16, ok bool) {
	switch key {
	case 3, 18:
		for _, a := range wire.Supported {
			if a.Key == key {
				return a.Min, a.Max, true
			}
		}
		return 0, 0, false
	}
	return 0, 32767, true
}

// allowed reports whether the proxy offers key at version.
func (f *Forwarder) allowed(key, version int16) bool {
	av := f.versions.Load()
	if av == nil {
		return false
	}
	for _, k := range av.ApiKeys {
		if k.ApiKey == key {
			return version >= k.MinVersion && version <= k.MaxVersion
		}
	}
	return false
}

// roundTrip sends one request on a new connection to addr and reads its
// answer.
func (f *Forwarder) roundTrip(ctx context.Context, addr string, req kmsg.Request) (kmsg.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	conn, err := f.dial(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if _, err := conn.Write(appendRequest(nil, req, 1, f.clientID)); err != nil {
		return nil, err
	}
	var size [4]byte
	if _, err := io.ReadFull(conn, size[:]); err != nil {
		return nil, err
	}
	n := int(int32(binary.BigEndian.Uint32(size[:])))
	if n < 4 || n > 64<<20 {
		return nil, fmt.Errorf("response size %d", n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(conn, buf); err != nil {
		return nil, err
	}
	if corr := int32(binary.BigEndian.Uint32(buf)); corr != 1 {
		return nil, fmt.Errorf("correlation id %d, want 1", corr)
	}
	body, err := responseBody(req.Key(), req.GetVersion(), buf)
	if err != nil {
		return nil, err
	}
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	if err := resp.ReadFrom(body); err != nil {
		return nil, fmt.Errorf("api %d v%d answer: %w", req.Key(), req.GetVersion(), err)
	}
	return resp, nil
}

// appendRequest appends a request frame: size, header (v1, or v2 with an
// empty tagged-field section for flexible versions) and body.
func appendRequest(dst []byte, req kmsg.Request, corr int32, clientID string) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint16(dst, uint16(req.Key()))
	dst = binary.BigEndian.AppendUint16(dst, uint16(req.GetVersion()))
	dst = binary.BigEndian.AppendUint32(dst, uint32(corr))
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(clientID)))
	dst = append(dst, clientID...)
	if req.IsFlexible() {
		dst = append(dst, 0)
	}
	dst = req.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}

// responseBody returns the body of a response frame (after the size): past
// the correlation id and, for flexible versions other than ApiVersions',
// the header's tagged fields.
func responseBody(key, version int16, frame []byte) ([]byte, error) {
	n, err := responseHeaderSize(key, version, frame)
	if err != nil {
		return nil, err
	}
	return frame[n:], nil
}

func responseHeaderSize(key, version int16, frame []byte) (int, error) {
	if len(frame) < 4 {
		return 0, errors.New("response shorter than its header")
	}
	if !flexibleResponseHeader(key, version) {
		return 4, nil
	}
	off := 4
	nTags, k := binary.Uvarint(frame[off:])
	if k <= 0 {
		return 0, errors.New("bad response header tags")
	}
	off += k
	for range nTags {
		_, k = binary.Uvarint(frame[off:])
		if k <= 0 {
			return 0, errors.New("bad response header tag")
		}
		off += k
		l, k := binary.Uvarint(frame[off:])
		if k <= 0 || l > uint64(len(frame)-off-k) {
			return 0, errors.New("bad response header tag size")
		}
		off += k + int(l)
	}
	return off, nil
}

// flexibleResponseHeader is ApiKeys.responseHeaderVersion == 1.
func flexibleResponseHeader(key, version int16) bool {
	if key == 18 {
		return false
	}
	flexible, _ := wire.IsFlexible(key, version)
	return flexible
}

// parseHostRule parses -client-host's PREFIX=HOST (an empty prefix: every
// client without a longer match).
func parseHostRule(v string) (advertise.HostRule, error) {
	prefix, host, ok := strings.Cut(v, "=")
	if !ok || host == "" || strings.ContainsAny(host, " :/") {
		return advertise.HostRule{}, fmt.Errorf("-client-host %q: want PREFIX=HOST", v)
	}
	return advertise.HostRule{ClientIDPrefix: prefix, Host: host}, nil
}

// shaperFor is the per-client view the flags ask for: -rack-first's order,
// then -client-host's hosts; nil for neither.
func shaperFor(cfg *upstreamConfig) advertise.Shaper {
	var ss []advertise.Shaper
	if cfg.rackFirst {
		ss = append(ss, advertise.RackFirst{})
	}
	if len(cfg.hosts) > 0 {
		ss = append(ss, cfg.hosts)
	}
	switch len(ss) {
	case 0:
		return nil
	case 1:
		return ss[0]
	}
	return advertise.Chain(ss...)
}

func splitSeeds(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// runUpstream is the -upstream mode: a bootstrap port on listen (requests
// to any broker), one port per upstream broker id, and the view refreshed by
// the proxy's own goroutine (refreshLoop). It serves until SIGINT or
// SIGTERM, then logs what it did.
func runUpstream(listen string, cfg *upstreamConfig, ready chan<- net.Addr) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	defer ln.Close()
	var f *Forwarder
	ports := newBrokerPorts(host, cfg.brokerBase, func(ln net.Listener, id int32) { f.serveBroker(ln, id) })
	defer ports.Close()
	f = newForwarder(splitSeeds(cfg.seeds), cfg.timeout, ports)
	f.rw.Shaper = shaperFor(cfg)
	var ver *verifier
	if cfg.verify {
		ver = newVerifier(f, ln.Addr().String(), cfg.hosts)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := f.start(ctx); err != nil {
		return err
	}
	go f.refreshLoop(ctx)
	v := f.ref.View()
	cid, _ := v.ClusterID()
	log.Printf("proxy: forwarding to %s: %d brokers, %d topics, cluster %q, on %s", cfg.seeds, len(v.Brokers()), v.NumTopics(), cid, ln.Addr())
	if ready != nil {
		ready <- ln.Addr()
	}
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	f.serveBroker(ln, -1)
	s := &f.stats
	log.Printf("proxy: stopped: %d forwarded, %d rewritten, %d answered from the view, %d refused, %d upstream failures, %d refreshes",
		s.Forwarded.Load(), s.Rewritten.Load(), s.Local.Load(), s.Refused.Load(), s.UpstreamFails.Load(), s.Refreshes.Load())
	if ver != nil {
		ver.summary()
	}
	return nil
}
