package main

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/publisher"
)

// demoServer is the -demo cluster served in-process with lim on 127.0.0.1
// (closed at the end of the test); it returns the server and its address.
func demoServer(tb testing.TB, lim Limits) (*Server, string) {
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
	s := NewServer(defaultListener(loader.Image()), "demo-cluster", ln.Addr().String())
	s.setLimits(lim)
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

// requestFrame is a whole frame (size included) for req with correlation id
// corr and client id "kmeta-test", header v2 where req's version is flexible.
func requestFrame(req kmsg.Request, corr int32) []byte {
	f := make([]byte, 4, 64)
	f = binary.BigEndian.AppendUint16(f, uint16(req.Key()))
	f = binary.BigEndian.AppendUint16(f, uint16(req.GetVersion()))
	f = binary.BigEndian.AppendUint32(f, uint32(corr))
	f = binary.BigEndian.AppendUint16(f, 10)
	f = append(f, "kmeta-test"...)
	if req.IsFlexible() {
		f = append(f, 0)
	}
	f = req.AppendTo(f)
	binary.BigEndian.PutUint32(f, uint32(len(f)-4))
	return f
}

// roundTrip writes req on conn and reads its response into resp (whose
// Version must be set), checking the correlation id.
func roundTrip(conn net.Conn, req kmsg.Request, resp kmsg.Response, corr int32) error {
	return roundTripAs(conn, req, resp, corr, "kmeta-test")
}

// roundTripAs is roundTrip with the request header's client id.
func roundTripAs(conn net.Conn, req kmsg.Request, resp kmsg.Response, corr int32, clientID string) error {
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write(appendRequest(nil, req, corr, clientID)); err != nil {
		return err
	}
	var size [4]byte
	if _, err := io.ReadFull(conn, size[:]); err != nil {
		return err
	}
	b := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(conn, b); err != nil {
		return err
	}
	if len(b) < 4 || int32(binary.BigEndian.Uint32(b)) != corr {
		return errors.New("wrong correlation id")
	}
	b = b[4:]
	if resp.IsFlexible() && req.Key() != 18 {
		b = b[1:]
	}
	return resp.ReadFrom(b)
}

// checkDemoMetadata asks for every topic at v12 and checks the demo
// cluster's answer.
func checkDemoMetadata(tb testing.TB, conn net.Conn) {
	tb.Helper()
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 12
	resp := kmsg.NewPtrMetadataResponse()
	resp.Version = 12
	if err := roundTrip(conn, req, resp, 77); err != nil {
		tb.Fatal(err)
	}
	parts := map[string]int{}
	for _, t := range resp.Topics {
		parts[*t.Topic] = len(t.Partitions)
	}
	if len(resp.Brokers) != 3 || parts["orders"] != 6 || parts["payments"] != 3 || parts["__consumer_offsets"] != 50 {
		tb.Fatalf("metadata: %d brokers, topics %v", len(resp.Brokers), parts)
	}
}

func metadataV12() *kmsg.MetadataRequest {
	r := kmsg.NewPtrMetadataRequest()
	r.Version = 12
	return r
}
