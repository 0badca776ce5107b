package proxy

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	"golang.org/x/sync/semaphore"

	"github.com/kmeta-go/kmeta/epoch/clientview"
	"github.com/kmeta-go/kmeta/image/authz"
)

// Forwarder is the proxy in front of a real cluster (-upstream). It keeps a
// cluster view built from upstream Metadata answers (clientview.Refresher: the
// view never goes back on a leader epoch, takes KIP-951 hints and refreshes
// by clientview.Policy), advertises one port per upstream broker id
// (Map, through brokerPorts), answers ApiVersions, Metadata,
// DescribeCluster, FindCoordinator and DescribeTopicPartitions itself from
// the view with rewritten endpoints where the view holds the answer
// (viewcoord.go says when it does not), and forwards every other request
// to the broker whose port the client dialled
// (any broker on the bootstrap port), rewriting the addresses of the
// responses (Rewriter).
//
// Its Metadata requests go where a clientview.Rebootstrap sends them
// (KIP-899): each attempt dials the view's brokers, each address once, then
// the seeds (the configured bootstrap servers) when none answers, and an
// attempt in which every address failed backs the next one off (capped,
// exponential, jittered) and starts it at the seeds, so that a cluster
// whose every node moved is found again through its bootstrap servers. A
// topic the view does not hold is looked up with a refresh before a client
// is told it does not exist (lookupMissing).
type Forwarder struct {
	seeds    []string
	timeout  time.Duration
	clientID string
	dial     func(ctx context.Context, network, addr string) (net.Conn, error)

	ref   *clientview.Refresher
	rb    *clientview.Rebootstrap // where ref's Metadata requests go
	gate  dialGate                // one dial of a failing address per backoff step
	amap  *Map
	rw    *Rewriter
	ports *brokerPorts

	versions atomic.Pointer[kmsg.ApiVersionsResponse] // upstream's, intersected

	clusterID atomic.Pointer[string]

	// onResponse, if set, sees every response frame body the proxy sends
	// (after the response header), for tests.
	onResponse func(key, version int16, body []byte)

	stats FwdStats

	lim     Limits
	obs     Observer
	traffic TrafficObserver     // obs, if it is one (observer.go)
	acc     *acceptor           // the accept policy of every port (accept.go)
	budget  *semaphore.Weighted // Limits.UpstreamBufferBytes, across connections
	share   int                 // the most one answer may take of it
	kept    atomic.Int64        // bytes of it in buffers kept between answers
	fatal   fatalErrs
	connLog connLog

	authz       authz.Authorizer // nil: pass-through (ForwarderConfig.PassThrough)
	passThrough bool
	sasl        *SASLConfig // nil: no SASL on the client listeners
}

// setLimits sets the forwarder's limits (DefaultLimits where unset): its
// accept policy, its upstream budget and the broker ids it advertises.
func (f *Forwarder) setLimits(l Limits) {
	f.lim = l.orDefaults()
	f.acc = newAcceptor(f.lim, fwdStatsObserver{f}, &f.connLog)
	f.budget = semaphore.NewWeighted(int64(f.lim.UpstreamBufferBytes))
	f.share = f.lim.UpstreamBufferBytes / 4
	f.amap.SetMaxBrokers(f.lim.MaxBrokers)
}

// writeTimeout bounds writing an answer to a client: the request timeout
// where set, else the upstream timeout.
func (f *Forwarder) writeTimeout() time.Duration {
	if f.lim.RequestTimeout > 0 {
		return f.lim.RequestTimeout
	}
	return f.timeout
}

// fwdStatsObserver counts the forwarder's connections into FwdStats, then
// tells its Observer.
type fwdStatsObserver struct{ f *Forwarder }

func (o fwdStatsObserver) ConnOpened(a net.Addr) {
	o.f.stats.Accepted.Add(1)
	o.f.stats.Open.Add(1)
	o.f.obs.ConnOpened(a)
}

func (o fwdStatsObserver) ConnClosed(a net.Addr, why error) {
	o.f.stats.Open.Add(-1)
	o.f.obs.ConnClosed(a, why)
}

func (o fwdStatsObserver) ConnRefused(a net.Addr, why error) {
	o.f.stats.ConnRefused.Add(1)
	o.f.obs.ConnRefused(a, why)
}

func (o fwdStatsObserver) Request(k, v, ec int16)          { o.f.obs.Request(k, v, ec) }
func (o fwdStatsObserver) AuthDenied(k, v int16, p string) { o.f.obs.AuthDenied(k, v, p) }
func (o fwdStatsObserver) UpstreamLatency(k, v int16, d time.Duration) {
	o.f.obs.UpstreamLatency(k, v, d)
}

// FwdStats counts what the forwarder did; the counters only grow.
type FwdStats struct {
	Forwarded     atomic.Int64 // requests forwarded
	Rewritten     atomic.Int64 // forwarded responses rewritten
	Local         atomic.Int64 // requests answered from the view
	Refused       atomic.Int64 // requests refused (UNSUPPORTED_VERSION or closed)
	UpstreamFails atomic.Int64 // connections closed on an upstream failure
	Refreshes     atomic.Int64 // metadata refreshes that reached upstream
	Accepted      atomic.Int64 // client connections accepted
	Open          atomic.Int64 // client connections open now
	ConnRefused   atomic.Int64 // connections closed at once (max.connections.per.ip), and accept errors retried
	Idle          atomic.Int64 // connections closed after connections.max.idle.ms without a request
	Slow          atomic.Int64 // connections closed on a request or answer slower than the request timeout
	BudgetRefused atomic.Int64 // upstream answers refused for the upstream budget
	BadBrokers    atomic.Int64 // upstream brokers refused (invalid, or over MaxBrokers), counted per refresh
	Denied        atomic.Int64 // resources denied by authorization (requests answered with authorization errors)
	Lookups       atomic.Int64 // topics not in the view looked up with a refresh before being answered (lookupMissing)
	DialsHeld     atomic.Int64 // upstream dials not made: the address failed in the current backoff step (dialGate)
	UpstreamWaits atomic.Int64 // client connections' upstream dials that failed and waited for a refresh (connectUpstream)
}

// newForwarder returns a forwarder for the seeds; ports opens the listeners
// of broker ids as the view learns them.
func newForwarder(seeds []string, timeout time.Duration, ports *brokerPorts) *Forwarder {
	f := &Forwarder{seeds: seeds, timeout: timeout, clientID: "kmeta-proxy", ports: ports}
	var d net.Dialer
	f.dial = d.DialContext
	f.amap = NewMap(ports)
	f.rw = &Rewriter{Map: f.amap}
	f.rb = f.newRebootstrap(nil)
	f.ref = clientview.NewRefresher(clientview.RefresherConfig{
		Fetch:          f.fetchMetadata,
		Policy:         clientview.Policy{MaxAge: 30 * time.Second},
		AllTopics:      true,
		RequestVersion: 12,
	})
	f.obs = NopObserver{}
	f.traffic = nopTraffic{}
	f.fatal = make(fatalErrs, 1)
	f.passThrough = true // NewForwarder sets the configured authorization
	f.setLimits(Limits{})
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
// brokers the view knows (upstream endpoints), then the seeds, each address
// once, so that one attempt never dials an address twice (a seed that is
// also a known broker, or a seed listed twice).
func (f *Forwarder) upstreamAddrs() []struct {
	id   int32
	addr string
} {
	var out []struct {
		id   int32
		addr string
	}
	seen := map[string]bool{}
	add := func(id int32, addr string) {
		if !seen[addr] {
			seen[addr] = true
			out = append(out, struct {
				id   int32
				addr string
			}{id, addr})
		}
	}
	for _, b := range f.ref.View().Brokers() {
		add(b.NodeID(), Endpoint{Host: b.Host(), Port: b.Port()}.String())
	}
	for _, s := range f.seeds {
		add(-1, s)
	}
	return out
}

// newRebootstrap is the policy of the forwarder's Metadata requests: the
// seeds are its bootstrap servers, the view's brokers its known ones, and
// sendMetadata its networking; edit, if set, changes the configuration
// first (tests: a clock, a sleep, a jitter source).
func (f *Forwarder) newRebootstrap(edit func(*clientview.RebootstrapConfig)) *clientview.Rebootstrap {
	cfg := clientview.RebootstrapConfig{
		Bootstrap: f.seeds,
		Send:      f.sendMetadata,
		View:      func() *clientview.View { return f.ref.View() },
	}
	if edit != nil {
		edit(&cfg)
	}
	return clientview.NewRebootstrap(cfg)
}

// fetchMetadata is the refresher's FetchFunc: one Rebootstrap attempt (after
// the backoff a failed one left), answered by the first upstream address
// that answers.
func (f *Forwarder) fetchMetadata(ctx context.Context, req *kmsg.MetadataRequest) (*kmsg.MetadataResponse, int32, error) {
	resp, node, err := f.rb.Fetch(ctx, req)
	if err != nil {
		return nil, -1, fmt.Errorf("no upstream broker answered Metadata: %w", err)
	}
	f.stats.Refreshes.Add(1)
	return resp, node, nil
}

// sendMetadata is the Rebootstrap's SendFunc: one Metadata round trip to
// addr (roundTrip: the forwarder's dialler, with its TLS and SASL, and its
// limits), answered by the view's broker at addr (-1 for a seed the view
// does not name).
func (f *Forwarder) sendMetadata(ctx context.Context, addr string, req *kmsg.MetadataRequest) (*kmsg.MetadataResponse, int32, error) {
	resp, err := f.roundTrip(ctx, addr, req)
	if err != nil {
		return nil, -1, err
	}
	node := int32(-1)
	for _, b := range f.ref.View().Brokers() {
		if (Endpoint{Host: b.Host(), Port: b.Port()}).String() == addr {
			node = b.NodeID()
			break
		}
	}
	return resp.(*kmsg.MetadataResponse), node, nil
}

// RebootstrapStats are the counters of the forwarder's Metadata attempts
// (clientview.Rebootstrap): attempts, failed ones, the attempts that went
// back to the seeds, dials, and the current backoff.
func (f *Forwarder) RebootstrapStats() clientview.RebootstrapStats { return f.rb.Stats() }

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
	f.observeView(v)
	return v, err
}

// observeView gives every broker of v its advertised port, counting and
// logging the brokers refused, and keeps v's cluster id.
func (f *Forwarder) observeView(v *clientview.View) {
	bad := 0
	for _, b := range v.Brokers() {
		if _, oerr := f.amap.Observe(b.NodeID(), Endpoint{Host: b.Host(), Port: b.Port()}, rackOf(b)); oerr != nil {
			bad++
			f.connLog.printf("proxy: broker %d from upstream: not advertised: %v", b.NodeID(), oerr)
		}
	}
	f.stats.BadBrokers.Add(int64(bad))
	if id, ok := v.ClusterID(); ok {
		f.clusterID.Store(&id)
	}
}

// awaitRefresh asks for a refresh and waits, within ctx, for the policy to
// allow it (clientview.Refresher.Wait: MinInterval, and the backoff after
// failures and answers that told nothing new), then refreshes (joining a
// refresh in flight); it returns the refresh's error.
func (f *Forwarder) awaitRefresh(ctx context.Context) error {
	f.ref.RequestUpdate()
	t := time.NewTimer(max(f.ref.Wait(), 10*time.Millisecond))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	}
	_, err := f.refresh(ctx, false)
	return err
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
		av.ApiKeys = Intersect(av.ApiKeys, RewritableVersions, localVersions)
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
		for _, a := range Supported {
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
	conn, err := f.dialUpstream(ctx, addr)
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
	if n < 4 || n > f.share/3 {
		return nil, fmt.Errorf("response size %d (a third of the upstream budget's share: %d)", n, f.share/3)
	}
	// The answer, then its decoded form: three times its size from the
	// upstream budget while it is held.
	if err := f.budget.Acquire(ctx, 3*int64(n)); err != nil {
		return nil, fmt.Errorf("response size %d: not free in the upstream budget: %w", n, err)
	}
	defer f.budget.Release(3 * int64(n))
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
	flexible, _ := IsFlexible(key, version)
	return flexible
}
