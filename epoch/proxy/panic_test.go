package proxy

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/image"
)

// TestPanicClosesOneConnection: a panic from below the connection loop (here
// the answer code handed a zero image.Image, whose components are nil)
// closes that connection only, is logged once with the remote address and
// counted; the server keeps serving the connections it has and new ones.
func TestPanicClosesOneConnection(t *testing.T) {
	s, addr := demoServer(t, DefaultLimits())
	logs := captureLog(t)
	other, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	checkDemoMetadata(t, other)

	good := s.img.Load()
	s.img.Store(new(image.Image))
	victim, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()
	md := requestFrame(metadataV12(), 9)
	victim.Write(md)
	if !closedWithin(victim, 5*time.Second) {
		t.Fatal("the connection that panicked was not closed")
	}
	s.img.Store(good)

	if got := s.stats.Panics.Load(); got != 1 {
		t.Fatalf("%d panics counted, want 1", got)
	}
	local := victim.LocalAddr().String()
	if n := strings.Count(logs.String(), local+": closed after a panic"); n != 1 {
		t.Fatalf("the panic is logged %d times with %s:\n%s", n, local, logs)
	}
	checkDemoMetadata(t, other) // the other connection lives on
	fresh, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	checkDemoMetadata(t, fresh)
}
