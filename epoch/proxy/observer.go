package proxy

import (
	"net"
	"time"
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
	// answered it itself with an error (0 otherwise).
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
