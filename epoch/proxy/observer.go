package proxy

import (
	"encoding/binary"
	"net"
	"time"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// Observer sees what a Server or Forwarder does, for metrics: every method
// is called on the connection's goroutine and must not block. A nil
// Observer is allowed everywhere (nothing is reported). Embed NopObserver
// to implement only some of the methods.
type Observer interface {
	// ConnOpened is called when a connection is accepted on a listener;
	// ConnClosed when it ends, with why (nil for an orderly close).
	ConnOpened(remote net.Addr)
	ConnClosed(remote net.Addr, why error)
	// ConnRefused is called when a connection is closed at once for a
	// limit (max.connections.per.ip, the descriptor limit), with why.
	ConnRefused(remote net.Addr, why error)
	// Request is called once per request answered or forwarded, with
	// its API key and version, and its error code where the proxy
	// answered it itself with an error (0 otherwise: an error in a
	// forwarded answer is upstream's and not decoded); and once for a
	// request that closes its connection unanswered because it could not
	// be decoded or served, with INVALID_REQUEST.
	Request(key, version int16, errorCode int16)
	// AuthDenied is called for each request (or part of one) refused by
	// authorization or authentication, with the principal it was refused to.
	AuthDenied(key, version int16, principal string)
	// UpstreamLatency is called when a forwarded request's answer has
	// arrived, with the time from writing it upstream to its last byte.
	UpstreamLatency(key, version int16, d time.Duration)
}

// NopObserver is an Observer that does nothing.
type NopObserver struct{}

// ConnOpened does nothing.
func (NopObserver) ConnOpened(net.Addr) {}

// ConnClosed does nothing.
func (NopObserver) ConnClosed(net.Addr, error) {}

// ConnRefused does nothing.
func (NopObserver) ConnRefused(net.Addr, error) {}

// Request does nothing.
func (NopObserver) Request(int16, int16, int16) {}

// AuthDenied does nothing.
func (NopObserver) AuthDenied(int16, int16, string) {}

// UpstreamLatency does nothing.
func (NopObserver) UpstreamLatency(int16, int16, time.Duration) {}

// observer returns o, or NopObserver for nil.
func observer(o Observer) Observer {
	if o == nil {
		return NopObserver{}
	}
	return o
}

// TrafficObserver is an optional extension of Observer: an Observer that
// also implements it is told the size of every request frame read from a
// client and of every answer frame written to one (the 4-byte size prefix
// included), with the request's API key and version (-1 and -1 for a
// frame too short to name them, or a bare SASL token), as Kafka's
// RequestMetrics counts RequestBytes and ResponseBytes. Like Observer's,
// its methods are called on the connection's goroutines and must not
// block.
type TrafficObserver interface {
	BytesIn(key, version int16, n int)
	BytesOut(key, version int16, n int)
}

// nopTraffic is the TrafficObserver of an Observer that is not one.
type nopTraffic struct{}

func (nopTraffic) BytesIn(int16, int16, int)  {}
func (nopTraffic) BytesOut(int16, int16, int) {}

// traffic returns o as a TrafficObserver, or one that does nothing.
func traffic(o Observer) TrafficObserver {
	if t, ok := o.(TrafficObserver); ok {
		return t
	}
	return nopTraffic{}
}

// frameAPI returns the API key and version a request frame (without its
// size) starts with, or -1 and -1 for a frame too short to hold them.
func frameAPI(frame []byte) (key, version int16) {
	if len(frame) < 4 {
		return -1, -1
	}
	return int16(binary.BigEndian.Uint16(frame)), int16(binary.BigEndian.Uint16(frame[2:]))
}

// answerCode is the error code of the image mode's answer to a request the
// Server answered (Observer.Request): UNSUPPORTED_VERSION for ApiVersions at
// a version it does not know (answered at v0, KIP-511), else 0.
func answerCode(key, version int16) int16 {
	if IsUnsupportedApiVersions(Header{APIKey: key, APIVersion: version}) {
		return kafkaerr.UnsupportedVersion.Int16()
	}
	return 0
}

// countIn tells the Observer a request frame's size (TrafficObserver);
// a bare SASL token names no API.
func (c *fconn) countIn(frame []byte) {
	key, ver := frameAPI(frame)
	if c.sasl != nil && c.sasl.raw {
		key, ver = -1, -1
	}
	c.f.traffic.BytesIn(key, ver, len(frame)+4)
}

// answered is a request the proxy answered itself with out, counted
// (Observer.Request) with its error code.
func (c *fconn) answered(h Header, out []byte, code int16) pending {
	c.f.obs.Request(h.APIKey, h.APIVersion, code)
	return pending{local: out, key: h.APIKey, ver: h.APIVersion}
}
