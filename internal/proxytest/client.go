package proxytest

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// RequestFrame is a whole frame (size included) for req with correlation id
// corr and client id "kmeta-test", header v2 where req's version is flexible.
func RequestFrame(req kmsg.Request, corr int32) []byte {
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

// RoundTrip writes req on conn and reads its response into resp (whose
// Version must be set), checking the correlation id.
func RoundTrip(conn net.Conn, req kmsg.Request, resp kmsg.Response, corr int32) error {
	return RoundTripAs(conn, req, resp, corr, "kmeta-test")
}

// RoundTripAs is roundTrip with the request header's client id.
func RoundTripAs(conn net.Conn, req kmsg.Request, resp kmsg.Response, corr int32, clientID string) error {
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write(AppendRequest(nil, req, corr, clientID)); err != nil {
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

// CheckDemoMetadata asks for every topic at v12 and checks the demo
// cluster's answer.
func CheckDemoMetadata(tb testing.TB, conn net.Conn) {
	tb.Helper()
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 12
	resp := kmsg.NewPtrMetadataResponse()
	resp.Version = 12
	if err := RoundTrip(conn, req, resp, 77); err != nil {
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

// MetadataV12 is a Metadata v12 request for every topic.
func MetadataV12() *kmsg.MetadataRequest {
	r := kmsg.NewPtrMetadataRequest()
	r.Version = 12
	return r
}

// AppendRequest appends a request frame: size, header (v1, or v2 with an
// empty tagged-field section for flexible versions) and body.
func AppendRequest(dst []byte, req kmsg.Request, corr int32, clientID string) []byte {
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
