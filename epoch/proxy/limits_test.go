package proxy

import (
	"net"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func shortLimits() Limits {
	l := DefaultLimits()
	l.IdleTimeout = 300 * time.Millisecond
	l.RequestTimeout = 400 * time.Millisecond
	return l
}

// closedWithin reports whether the server closes conn within d, reading
// whatever it sends.
func closedWithin(conn net.Conn, d time.Duration) bool {
	conn.SetReadDeadline(time.Now().Add(d))
	buf := make([]byte, 512)
	for {
		if _, err := conn.Read(buf); err != nil {
			ne, ok := err.(net.Error)
			return !(ok && ne.Timeout())
		}
	}
}

// TestIdleClientsCut: 200 connections that never send a byte, and one that
// goes quiet after a request, are closed once connections.max.idle.ms
// passes (300 ms here), not before.
func TestIdleClientsCut(t *testing.T) {
	s, addr := demoServer(t, shortLimits())
	var conns []net.Conn
	for i := 0; i < 200; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	checkDemoMetadata(t, conns[0]) // then idle
	start := time.Now()
	for i, c := range conns {
		if !closedWithin(c, 5*time.Second) {
			t.Fatalf("idle connection %d not closed after 5 s", i)
		}
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("idle connections closed after %v, before the idle timeout", d)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.stats.Idle.Load() < 200 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := s.stats.Idle.Load(); got != 200 {
		t.Fatalf("%d idle closes counted, want 200", got)
	}
}

// TestSlowClientCut: a 1 MiB frame trickled a byte every 20 ms is cut at the
// request read timeout (400 ms here), as is a client that stops after half a
// size; a client that keeps each request quick is served across many idle
// periods' worth of requests.
func TestSlowClientCut(t *testing.T) {
	s, addr := demoServer(t, shortLimits())
	trickle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer trickle.Close()
	start := time.Now()
	trickle.Write([]byte{0, 0x10, 0, 0})
	cut := make(chan time.Duration, 1)
	go func() {
		for {
			time.Sleep(20 * time.Millisecond)
			if _, err := trickle.Write([]byte{0}); err != nil {
				cut <- time.Since(start)
				return
			}
			if time.Since(start) > 10*time.Second {
				cut <- 0
				return
			}
		}
	}()
	if d := <-cut; d == 0 || d < 300*time.Millisecond {
		t.Fatalf("trickling client cut after %v", d)
	}
	half, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer half.Close()
	half.Write([]byte{0, 0})
	if !closedWithin(half, 5*time.Second) {
		t.Fatal("half a frame size held for 5 s")
	}
	if got := s.stats.Slow.Load(); got != 2 {
		t.Fatalf("%d slow closes counted, want 2", got)
	}
	quick, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer quick.Close()
	for i := 0; i < 8; i++ {
		checkDemoMetadata(t, quick)
		time.Sleep(100 * time.Millisecond)
	}
}

// TestMaxConnections: with max.connections 2, a third client waits to be
// accepted until one of the two closes, and is then served.
func TestMaxConnections(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxConnections = 2
	_, addr := demoServer(t, lim)
	a, _ := net.Dial("tcp", addr)
	b, _ := net.Dial("tcp", addr)
	checkDemoMetadata(t, a)
	checkDemoMetadata(t, b)
	c, err := net.Dial("tcp", addr) // the kernel's backlog takes it
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := kmsg.NewPtrApiVersionsRequest()
	c.Write(requestFrame(req, 1))
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if n, _ := c.Read(make([]byte, 1)); n != 0 {
		t.Fatal("a third connection was served beyond max.connections 2")
	}
	a.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(make([]byte, 4)); n == 0 {
		t.Fatalf("the waiting connection was not served after one closed: %v", err)
	}
	b.Close()
}

// TestThousandConnections: 1 000 concurrent connections on loopback, all
// open at once, each answered.
func TestThousandConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	s, addr := demoServer(t, DefaultLimits())
	conns := make([]net.Conn, 1000)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(conns))
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := kmsg.NewPtrMetadataRequest()
			req.Version = 12
			resp := kmsg.NewPtrMetadataResponse()
			resp.Version = 12
			if err := roundTrip(c, req, resp, int32(i)); err != nil {
				errs <- err
				return
			}
			if len(resp.Brokers) != 3 {
				errs <- net.UnknownNetworkError("wrong answer")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if open := s.stats.Open.Load(); open != 1000 {
		t.Fatalf("%d connections open, want 1000", open)
	}
}

// TestNonReadingClientCut: a client that sends requests and never reads the
// answers is cut once writing an answer has waited the request timeout
// (400 ms here), instead of holding its connection for ever.
func TestNonReadingClientCut(t *testing.T) {
	s, addr := demoServer(t, shortLimits())
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetReadBuffer(4 << 10)
	}
	var frames []byte
	for i := 0; i < 5000; i++ {
		frames = append(frames, requestFrame(metadataV12(), int32(i))...)
	}
	go c.Write(frames) // the server stops reading once its writes block
	deadline := time.Now().Add(20 * time.Second)
	for s.stats.Slow.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if s.stats.Slow.Load() != 1 {
		t.Fatalf("a client not reading its answers was not cut (answered %d requests)", s.stats.Requests.Load())
	}
}
