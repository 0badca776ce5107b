package proxy

import (
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/internal/proxytest"
	"github.com/kmeta-go/kmeta/publisher"
)

// demoServer is the -demo cluster served in-process with lim on 127.0.0.1
// (closed at the end of the test); it returns the server and its address.
func demoServer(tb testing.TB, lim Limits) (*Server, string) {
	tb.Helper()
	return demoServerWith(tb, lim, nil)
}

// demoServerWith is demoServer with edit applied to the server before it
// serves.
func demoServerWith(tb testing.TB, lim Limits, edit func(*Server)) (*Server, string) {
	tb.Helper()
	loader := publisher.NewLoader(publisher.Config{})
	tb.Cleanup(func() { loader.Close() })
	if err := loadDemo(loader); err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := NewServer(DefaultListener(loader.Image()), "demo-cluster", ln.Addr().String())
	s.SetLimits(lim)
	if edit != nil {
		edit(s)
	}
	if err := loader.Install(s); err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	tb.Cleanup(func() {
		ln.Close()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			tb.Error("Serve did not return after its listener closed")
		}
	})
	return s, ln.Addr().String()
}

// The shared test helpers (internal/proxytest) under this package's
// tests' names.
func requestFrame(req kmsg.Request, corr int32) []byte { return proxytest.RequestFrame(req, corr) }

func roundTrip(conn net.Conn, req kmsg.Request, resp kmsg.Response, corr int32) error {
	return proxytest.RoundTrip(conn, req, resp, corr)
}

func roundTripAs(conn net.Conn, req kmsg.Request, resp kmsg.Response, corr int32, clientID string) error {
	return proxytest.RoundTripAs(conn, req, resp, corr, clientID)
}

func checkDemoMetadata(tb testing.TB, conn net.Conn) {
	tb.Helper()
	proxytest.CheckDemoMetadata(tb, conn)
}

func metadataV12() *kmsg.MetadataRequest { return proxytest.MetadataV12() }

func validFrames() [][]byte { return proxytest.ValidFrames() }

func captureLog(t *testing.T) *proxytest.Log { return proxytest.CaptureLog(t) }

// loadDemo feeds the loader a simulated cluster: three brokers in three
// racks, and the topics orders (6 partitions), payments (3) and
// __consumer_offsets (50, so that FindCoordinator has coordinators).
func loadDemo(l *publisher.Loader) error {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 6, 3)
	sim.MustCreateTopic("payments", 3, 3)
	sim.MustCreateTopic("__consumer_offsets", 50, 3)
	batches := sim.Batches()
	if err := l.HandleCommit(batches...); err != nil {
		return err
	}
	l.SetHighWatermark(sim.NextOffset())
	return nil
}

func newMetadataV12Response() *kmsg.MetadataResponse {
	r := kmsg.NewPtrMetadataResponse()
	r.Version = 12
	return r
}
