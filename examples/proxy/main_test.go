package main

import (
	"github.com/kmeta-go/kmeta/epoch/proxy"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestDemo serves the simulated cluster: three brokers, all advertised as the
// proxy itself, and the demo topics with their leaders.
func TestDemo(t *testing.T) {
	ready := make(chan net.Addr, 1)
	errc := make(chan error, 1)
	go func() { errc <- run([]string{"-listen", "127.0.0.1:0", "-demo"}, ready) }()
	var addr net.Addr
	select {
	case addr = <-ready:
	case err := <-errc:
		t.Fatal(err)
	case <-time.After(20 * time.Second):
		t.Fatal("the proxy did not start")
	}
	mr := metadata(t, addr.String())
	host, port, _ := net.SplitHostPort(addr.String())
	if len(mr.Brokers) != 3 {
		t.Fatalf("want 3 brokers, got %+v", mr.Brokers)
	}
	// -advertise (implied by -demo): each broker at a proxy port of its own
	// on the listen host, none at the bootstrap port.
	seen := map[int32]bool{}
	for _, b := range mr.Brokers {
		if b.Host != host || strconv.Itoa(int(b.Port)) == port || seen[b.Port] {
			t.Errorf("broker %d at %s:%d, not a proxy port of its own on %s", b.NodeID, b.Host, b.Port, host)
		}
		seen[b.Port] = true
		c, err := net.DialTimeout("tcp", net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port))), 5*time.Second)
		if err != nil {
			t.Errorf("broker %d's port: %v", b.NodeID, err)
			continue
		}
		c.Close()
	}
	topics := map[string]int{}
	for _, tp := range mr.Topics {
		topics[*tp.Topic] = len(tp.Partitions)
		for _, p := range tp.Partitions {
			if p.Leader < 1 || p.Leader > 3 {
				t.Errorf("%s-%d has leader %d", *tp.Topic, p.Partition, p.Leader)
			}
		}
	}
	if topics["orders"] != 6 || topics["payments"] != 3 || topics["__consumer_offsets"] != 50 {
		t.Errorf("topics %v", topics)
	}
}

func TestClusterIDFromMetaProperties(t *testing.T) {
	dir := t.TempDir()
	part := filepath.Join(dir, "__cluster_metadata-0")
	os.Mkdir(part, 0o755)
	os.WriteFile(filepath.Join(dir, "meta.properties"), []byte("version=1\ncluster.id=abc123\nnode.id=1\n"), 0o644)
	if got := readClusterID(part); got != "abc123" {
		t.Errorf("got %q", got)
	}
	if got := readClusterID(t.TempDir()); got != proxy.DefaultClusterID {
		t.Errorf("got %q", got)
	}
}
