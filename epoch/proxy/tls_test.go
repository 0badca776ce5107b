package proxy

import (
	"bufio"
	"crypto/tls"
	"crypto/x509/pkix"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/internal/proxytest"
)

// tlsSetup is a forwarder whose client ports are TLS listeners (client
// certificates required) in front of a fake upstream that speaks TLS
// too; it returns the forwarder, broker 1's port and the client's TLS
// configuration.
func tlsSetup(tb testing.TB, records int) (*Forwarder, string, *tls.Config) {
	return tlsSetupSides(tb, records, true)
}

// tlsSetupSides is tlsSetup, with TLS upstream only if upstreamTLS.
func tlsSetupSides(tb testing.TB, records int, upstreamTLS bool) (*Forwarder, string, *tls.Config) {
	certs := proxytest.WriteCerts(tb, tb.TempDir())
	listen, err := ListenerTLS(certs.ServerCert, certs.ServerKey, ClientAuthRequired, certs.CA)
	require.NoError(tb, err)
	upCfg, err := UpstreamTLS(certs.CA, certs.ClientCert, certs.ClientKey, "")
	require.NoError(tb, err)
	upServer, err := ListenerTLS(certs.ServerCert, certs.ServerKey, ClientAuthRequired, certs.CA)
	require.NoError(tb, err)
	u := newFakeUpstreamWith(tb, records, func(u *fakeUpstream, _ *kmsg.MetadataResponse, _ *kmsg.ApiVersionsResponse) {
		if upstreamTLS {
			u.ln = tls.NewListener(u.ln, upServer)
		}
	})
	mapper, err := ParsePrincipalMappingRules("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L,DEFAULT")
	require.NoError(tb, err)
	f, addr := benchForwarderWith(tb, u, func(f *Forwarder) {
		f.acc.tls, f.acc.mapper = listen, mapper
		if upstreamTLS {
			f.dial = tlsDialer(f.dial, upCfg)
		}
	})
	client, err := UpstreamTLS(certs.CA, certs.ClientCert, certs.ClientKey, "")
	require.NoError(tb, err)
	return f, addr, client
}

// TestForwardOverTLS: a client with a certificate reaches the forwarder
// over TLS, is User:alice by the mapping rule, and its Metadata and
// Produce are answered (the Produce through the TLS upstream); a client
// without a certificate, and one sending garbage instead of a handshake,
// are closed.
func TestForwardOverTLS(t *testing.T) {
	f, addr, client := tlsSetup(t, 0)
	cfg := client.Clone()
	cfg.ServerName = "127.0.0.1"
	c, err := tls.Dial("tcp", addr, cfg)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, roundTrip(c, metadataV12(), newMetadataV12Response(), 1))
	pr := kmsg.NewPtrProduceRequest()
	pr.Version, pr.Acks, pr.TimeoutMillis = 11, -1, 1000
	resp := kmsg.NewPtrProduceResponse()
	resp.Version = 11
	require.NoError(t, roundTrip(c, pr, resp, 2))
	require.Equal(t, int64(1), f.stats.Forwarded.Load())

	noCert := &tls.Config{RootCAs: client.RootCAs, ServerName: "127.0.0.1"}
	nc, err := tls.Dial("tcp", addr, noCert)
	if err == nil {
		defer nc.Close()
		require.Error(t, roundTrip(nc, metadataV12(), newMetadataV12Response(), 1), "a client without a certificate was served")
	}
	g, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer g.Close()
	g.Write(requestFrame(metadataV12(), 1)) // a Kafka frame, not a ClientHello
	require.True(t, closedWithin(g, 5*time.Second))
}

// TestTLSPrincipalOfConnection: the session of a TLS connection carries
// the principal the mapping rules give its certificate.
func TestTLSPrincipalOfConnection(t *testing.T) {
	certs := proxytest.WriteCerts(t, t.TempDir())
	listen, err := ListenerTLS(certs.ServerCert, certs.ServerKey, ClientAuthRequested, certs.CA)
	require.NoError(t, err)
	client, err := UpstreamTLS(certs.CA, certs.ClientCert, certs.ClientKey, "127.0.0.1")
	require.NoError(t, err)
	for _, c := range []struct{ rules, want string }{
		{"", "User:CN=alice,OU=ServiceUsers,O=kmeta"},
		{"RULE:^CN=(.*?),OU=(.*?),.*$/$1@$2/U", "User:ALICE@SERVICEUSERS"},
	} {
		m, err := ParsePrincipalMappingRules(c.rules)
		require.NoError(t, err)
		a := newAcceptor(DefaultLimits(), nil, &connLog{})
		a.tls, a.mapper = listen, m
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		got := make(chan string, 1)
		go a.serve(ln, func(conn net.Conn, s *session) { got <- s.principal; conn.Close() })
		conn, err := tls.Dial("tcp", ln.Addr().String(), client)
		require.NoError(t, err)
		require.Equal(t, c.want, <-got)
		conn.Close()
		ln.Close()
	}
}

// TestCertificateReloaded: a listener's certificate files replaced on disk
// are served from the next handshake a second or more later, without a
// restart.
func TestCertificateReloaded(t *testing.T) {
	dir := t.TempDir()
	certs := proxytest.WriteCerts(t, dir)
	listen, err := ListenerTLS(certs.ServerCert, certs.ServerKey, ClientAuthNone, "")
	require.NoError(t, err)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", listen)
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { c.(*tls.Conn).Handshake(); c.Close() }()
		}
	}()
	serial := func() int64 {
		c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{InsecureSkipVerify: true})
		require.NoError(t, err)
		defer c.Close()
		return c.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
	}
	require.Equal(t, int64(2), serial())
	time.Sleep(1100 * time.Millisecond)
	certs.Issue(t, dir, "server", pkix.Name{CommonName: "localhost"}, 77)
	require.Eventually(t, func() bool { return serial() == 77 }, 5*time.Second, 200*time.Millisecond)
}

// roundTripper dials addr (over TLS with cfg, if not nil) and returns a
// function sending frame and reading its answer, and the answer's size.
func roundTripper(tb testing.TB, addr string, cfg *tls.Config, frame []byte) (func() int, func()) {
	var c net.Conn
	var err error
	if cfg != nil {
		cfg = cfg.Clone()
		cfg.ServerName = "127.0.0.1"
		c, err = tls.Dial("tcp", addr, cfg)
	} else {
		c, err = net.Dial("tcp", addr)
	}
	if err != nil {
		tb.Fatal(err)
	}
	r := bufio.NewReaderSize(c, 64<<10)
	buf := make([]byte, 0, 64<<10)
	var size [4]byte
	return func() int {
		if _, err := c.Write(frame); err != nil {
			tb.Fatal(err)
		}
		if _, err := io.ReadFull(r, size[:]); err != nil {
			tb.Fatal(err)
		}
		n := int(binary.BigEndian.Uint32(size[:]))
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		if _, err := io.ReadFull(r, buf[:n]); err != nil {
			tb.Fatal(err)
		}
		return n + 4
	}, func() { c.Close() }
}

// benchWarmup is how many round trips a forwarding benchmark makes before
// its timer starts: the first dials upstream (and makes the TLS handshake
// there); the others read TLS 1.3's session tickets on both connections and
// take crypto/tls's records past their small first sizes (dynamic record
// sizing), so that the timed loop is the steady state.
const benchWarmup = 32

// benchTLSRoundTrips sends frame b.N times on one connection to addr (over
// TLS with cfg, if not nil; the handshake and benchWarmup round trips
// before the timer), reading each answer into a reused buffer, and reports
// the bytes through the proxy (request and answer) per operation.
func benchTLSRoundTrips(b *testing.B, addr string, cfg *tls.Config, frame []byte) {
	rt, done := roundTripper(b, addr, cfg, frame)
	defer done()
	respBytes := rt()
	for range benchWarmup - 1 {
		rt()
	}
	b.SetBytes(int64(len(frame) + respBytes))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rt()
	}
}

// BenchmarkForwardProduceTLS is BenchmarkForwardProduce with TLS between
// the client and the proxy and between the proxy and upstream.
func BenchmarkForwardProduceTLS(b *testing.B) {
	_, addr, cfg := tlsSetup(b, 0)
	benchTLSRoundTrips(b, addr, cfg, fwdRequestFrame(benchProduceRequest()))
}

// BenchmarkForwardFetchTLS is BenchmarkForwardFetch over TLS on both sides.
func BenchmarkForwardFetchTLS(b *testing.B) {
	_, addr, cfg := tlsSetup(b, 64<<10)
	benchTLSRoundTrips(b, addr, cfg, fwdRequestFrame(benchFetchRequest()))
}

// BenchmarkForwardProduceClientTLS is BenchmarkForwardProduce with TLS
// between the client and the proxy only (plaintext upstream).
func BenchmarkForwardProduceClientTLS(b *testing.B) {
	_, addr, cfg := tlsSetupSides(b, 0, false)
	benchTLSRoundTrips(b, addr, cfg, fwdRequestFrame(benchProduceRequest()))
}

// BenchmarkForwardFetchClientTLS is BenchmarkForwardFetch with TLS between
// the client and the proxy only.
func BenchmarkForwardFetchClientTLS(b *testing.B) {
	_, addr, cfg := tlsSetupSides(b, 64<<10, false)
	benchTLSRoundTrips(b, addr, cfg, fwdRequestFrame(benchFetchRequest()))
}

// TestForwardTLSAllocations: a forwarded Produce and Fetch over TLS
// allocate nothing more in the proxy's own code than in plaintext, and at
// most one allocation more in all with TLS to the client. What TLS adds is
// crypto/tls's, before Go 1.27 (tlsReadAllocates): one allocation each
// time Conn.readFromUntil reads from the network, that is once per request
// from a TLS client and, with TLS upstream too, once per burst of records
// of the answer (one for a Produce's, at most one per 16 KiB record of a
// Fetch's); from Go 1.27 none, and TLS on both sides is within one
// allocation of plaintext too. The proxy's allocations are told from the
// test client's and the fake upstream's (which run in the same process,
// and over TLS allocate too) by the stacks of the runtime's memory
// profile: those under the forwarder's connection goroutines, over 3 000
// requests after benchWarmup.
func TestForwardTLSAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = old }()
	for _, c := range []struct {
		name    string
		records int
		frame   []byte
	}{{"Produce", 0, fwdRequestFrame(benchProduceRequest())}, {"Fetch", 64 << 10, fwdRequestFrame(benchFetchRequest())}} {
		_, plainAddr := benchForwarder(t, newFakeUpstream(t, c.records))
		_, clientAddr, cfg := tlsSetupSides(t, c.records, false)
		_, bothAddr, cfg2 := tlsSetupSides(t, c.records, true)
		pa := proxyAllocsPerOp(t, plainAddr, nil, c.frame)
		ca := proxyAllocsPerOp(t, clientAddr, cfg, c.frame)
		ba := proxyAllocsPerOp(t, bothAddr, cfg2, c.frame)
		t.Logf("%s: allocations in the proxy per request (its own + crypto/tls's network reads): plaintext %v, TLS to clients %v, TLS upstream too %v", c.name, pa, ca, ba)
		require.Zero(t, pa.tlsRead, "%s in plaintext", c.name)
		require.LessOrEqual(t, ca.own, pa.own+0.05, "%s with TLS to clients: the proxy's own allocations", c.name)
		require.LessOrEqual(t, ba.own, pa.own+0.05, "%s with TLS on both sides: the proxy's own allocations", c.name)
		require.LessOrEqual(t, ca.total(), pa.total()+1.05, "%s with TLS to clients", c.name)
		if !tlsReadAllocates {
			require.LessOrEqual(t, ca.tlsRead+ba.tlsRead, 0.05, "%s: crypto/tls allocates reading", c.name)
			require.LessOrEqual(t, ba.total(), pa.total()+1.05, "%s with TLS on both sides", c.name)
			continue
		}
		require.LessOrEqual(t, ca.tlsRead, 1.05, "%s with TLS to clients: one network read per request", c.name)
		// Upstream, the answer is read as TLS records of up to 16 KiB.
		upRecords := float64(c.records/(16<<10) + 1)
		require.LessOrEqual(t, ba.tlsRead, 1+upRecords+0.05, "%s with TLS on both sides: one per network read (crypto/tls)", c.name)
	}
}

// proxyAllocCount is a run's allocations per request in the forwarder's
// connection goroutines: the proxy's own, and crypto/tls's in
// Conn.readFromUntil.
type proxyAllocCount struct{ own, tlsRead float64 }

func (a proxyAllocCount) total() float64 { return a.own + a.tlsRead }

func (a proxyAllocCount) String() string {
	return fmt.Sprintf("%.3f (%.3f + %.3f)", a.total(), a.own, a.tlsRead)
}

// proxyAllocsPerOp is the allocations per round trip to addr whose stacks
// pass through the forwarder's connection goroutines.
func proxyAllocsPerOp(t *testing.T, addr string, cfg *tls.Config, frame []byte) proxyAllocCount {
	rt, done := roundTripper(t, addr, cfg, frame)
	defer done()
	for range benchWarmup {
		rt()
	}
	own0, read0 := proxyAllocs(t)
	const n = 3000
	for range n {
		rt()
	}
	own, read := proxyAllocs(t)
	return proxyAllocCount{float64(own-own0) / n, float64(read-read0) / n}
}

// proxyAllocs counts the allocations so far whose stacks pass through
// fconn's methods: those of crypto/tls's Conn.readFromUntil apart.
func proxyAllocs(t *testing.T) (own, tlsRead int64) {
	for range 3 { // the profile is published two collections late
		runtime.GC()
	}
	recs := make([]runtime.MemProfileRecord, 1<<16)
	n, ok := runtime.MemProfile(recs, true)
	require.True(t, ok, "memory profile larger than the buffer")
	for _, r := range recs[:n] {
		frames := runtime.CallersFrames(r.Stack())
		read := false
		for {
			fr, more := frames.Next()
			if fr.Function == "crypto/tls.(*Conn).readFromUntil" {
				read = true
			}
			if strings.Contains(fr.Function, "epoch/proxy.(*fconn)") {
				if read {
					tlsRead += r.AllocObjects
				} else {
					own += r.AllocObjects
				}
				break
			}
			if !more {
				break
			}
		}
	}
	return own, tlsRead
}
