package main

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/delta/deltatest/kafkalog"
)

// metadata sends one Metadata v12 request (all topics) to addr and returns
// the response.
func metadata(t *testing.T, addr string) *kmsg.MetadataResponse {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 12
	body := binary.BigEndian.AppendUint16(nil, 3)
	body = binary.BigEndian.AppendUint16(body, 12)
	body = binary.BigEndian.AppendUint32(body, 7)
	body = binary.BigEndian.AppendUint16(body, 0xffff)
	body = append(body, 0)
	body = md.AppendTo(body)
	if _, err := conn.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)); err != nil {
		t.Fatal(err)
	}
	var size [4]byte
	if _, err := io.ReadFull(conn, size[:]); err != nil {
		t.Fatal(err)
	}
	resp := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(conn, resp); err != nil {
		t.Fatal(err)
	}
	mr := kmsg.NewPtrMetadataResponse()
	mr.Version = 12
	if err := mr.ReadFrom(resp[5:]); err != nil {
		t.Fatal(err)
	}
	return mr
}

// TestAdvertiseEveryDirectoryState: `proxy -advertise DIR` starts and
// answers Metadata on every state a live node's directory passes through
// (delta/deltatest/kafkalog writes them as Kafka's log layer does): the brokers and
// topics the directory holds, none for a directory with no record yet. (With
// -follow, a directory with no record yet is waited for instead, as a broker
// waits for its first metadata: TestFollowWaitsForFirstImage.)
func TestAdvertiseEveryDirectoryState(t *testing.T) {
	states, err := kafkalog.BuildStates(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range states {
		t.Run(s.Name, func(t *testing.T) {
			ready := make(chan net.Addr, 1)
			errc := make(chan error, 1)
			go func() { errc <- run([]string{"-listen", "127.0.0.1:0", "-advertise", s.Dir}, ready) }()
			var addr net.Addr
			select {
			case addr = <-ready:
			case err := <-errc:
				t.Fatal(err)
			case <-time.After(20 * time.Second):
				t.Fatal("the proxy did not start")
			}
			mr := metadata(t, addr.String())
			if s.Records != (len(mr.Brokers) == 3 && len(mr.Topics) > 0) {
				t.Errorf("%d brokers, %d topics; want records %v", len(mr.Brokers), len(mr.Topics), s.Records)
			}
			if !s.Records && (len(mr.Brokers) != 0 || len(mr.Topics) != 0) {
				t.Errorf("%d brokers, %d topics from a directory with no record", len(mr.Brokers), len(mr.Topics))
			}
		})
	}
}
