package proxy

import (
	"bufio"
	"crypto/tls"
	"crypto/x509/pkix"
	"encoding/binary"
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

// benchTLSRoundTrips is benchRoundTrips over TLS.
func benchTLSRoundTrips(b *testing.B, addr string, cfg *tls.Config, frame []byte) {
	rt, done := roundTripper(b, addr, cfg, frame)
	defer done()
	respBytes := rt()
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

// TestForwardTLSAllocations: a forwarded Produce and Fetch over TLS to the
// client allocate at most one more time per request in the proxy than in
// plaintext. With TLS upstream too, crypto/tls allocates once more per
// record it reads from the network (Conn.readFromUntil's atLeastReader):
// one more for a Produce answer, one per 16 KiB record of a Fetch answer
// at most. The proxy's own allocations are told from the test client's
// and the fake upstream's (which run in the same process, and over TLS
// allocate too: crypto/tls allocates once per record read) by the stacks
// of the runtime's memory profile: those under the forwarder's connection
// goroutines, over 3 000 requests after 100 to warm up.
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
		t.Logf("%s: allocations in the proxy per request: %.3f in plaintext, %.3f with TLS to clients, %.3f with TLS upstream too", c.name, pa, ca, ba)
		require.LessOrEqual(t, ca, pa+1.05, "%s with TLS to clients", c.name)
		// Upstream, the answer is read as TLS records of up to 16 KiB.
		upRecords := float64(c.records/(16<<10) + 1)
		require.LessOrEqual(t, ba, pa+1+upRecords+0.05, "%s with TLS on both sides: one per TLS record read (crypto/tls)", c.name)
	}
}

// proxyAllocsPerOp is the allocations per round trip to addr whose stacks
// pass through the forwarder's connection goroutines.
func proxyAllocsPerOp(t *testing.T, addr string, cfg *tls.Config, frame []byte) float64 {
	rt, done := roundTripper(t, addr, cfg, frame)
	defer done()
	for range 100 {
		rt()
	}
	before := proxyAllocs(t)
	const n = 3000
	for range n {
		rt()
	}
	return float64(proxyAllocs(t)-before) / n
}

// proxyAllocs counts the allocations so far whose stacks pass through
// fconn's methods.
func proxyAllocs(t *testing.T) int64 {
	for range 3 { // the profile is published two collections late
		runtime.GC()
	}
	recs := make([]runtime.MemProfileRecord, 1<<16)
	n, ok := runtime.MemProfile(recs, true)
	require.True(t, ok, "memory profile larger than the buffer")
	var total int64
	for _, r := range recs[:n] {
		frames := runtime.CallersFrames(r.Stack())
		for {
			fr, more := frames.Next()
			if strings.Contains(fr.Function, "epoch/proxy.(*fconn)") {
				total += r.AllocObjects
				break
			}
			if !more {
				break
			}
		}
	}
	return total
}
