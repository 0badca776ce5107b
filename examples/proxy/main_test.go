package main

import (
	"encoding/binary"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/internal/wire"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
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
	if got := readClusterID(t.TempDir()); got != DefaultClusterID {
		t.Errorf("got %q", got)
	}
}

// TestHandle answers ApiVersions and a flexible Metadata request frame with
// the advertised address.
func TestHandle(t *testing.T) {
	dir := sharedtest.Path(t, "vectors", "snapshots", "mv-4.0-IV0-kraft0", "__cluster_metadata-0")
	img, err := dirfollow.LoadImage(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(defaultListener(img), "cid", "127.0.0.1:7777")
	if _, err := s.handle(nil, nil); err == nil {
		t.Fatal("a server with no image yet must refuse")
	}
	if err := s.OnUpdate(publisher.Update{Image: img}); err != nil {
		t.Fatal(err)
	}
	frame := func(key, v int16, body []byte, flexible bool) []byte {
		f := binary.BigEndian.AppendUint16(nil, uint16(key))
		f = binary.BigEndian.AppendUint16(f, uint16(v))
		f = binary.BigEndian.AppendUint32(f, 42)
		f = binary.BigEndian.AppendUint16(f, 0xffff) // null client id
		if flexible {
			f = append(f, 0)
		}
		return append(f, body...)
	}
	av := kmsg.NewPtrApiVersionsRequest()
	av.Version = 3
	av.ClientSoftwareName, av.ClientSoftwareVersion = "kmeta-test", "1.0"
	out, err := s.handle(nil, frame(18, 3, av.AppendTo(nil), true))
	if err != nil {
		t.Fatal(err)
	}
	avr := kmsg.NewPtrApiVersionsResponse()
	avr.Version = 3
	if err := avr.ReadFrom(out[8:]); err != nil || len(avr.ApiKeys) != len(wire.Supported) {
		t.Fatalf("ApiVersions: %v %+v", err, avr)
	}
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 12
	out, err = s.handle(nil, frame(3, 12, md.AppendTo(nil), true))
	if err != nil {
		t.Fatal(err)
	}
	if binary.BigEndian.Uint32(out[4:]) != 42 || out[8] != 0 {
		t.Fatal("response header")
	}
	mr := kmsg.NewPtrMetadataResponse()
	mr.Version = 12
	if err := mr.ReadFrom(out[9:]); err != nil {
		t.Fatal(err)
	}
	if len(mr.Brokers) == 0 || *mr.ClusterID != "cid" {
		t.Fatalf("metadata %+v", mr)
	}
	for _, b := range mr.Brokers {
		if b.Host != "127.0.0.1" || b.Port != 7777 {
			t.Errorf("broker %d not advertised as the proxy: %s:%d", b.NodeID, b.Host, b.Port)
		}
	}
}
