package proxy

import (
	"math"
	"time"
)

// Limits bound what one client, or all of them, can make the proxy hold.
// The flags carry Kafka's broker config names and defaults where Kafka has
// the setting (SocketServerConfigs); the request read timeout has no Kafka
// equivalent (a broker lets a client trickle a request for as long as bytes
// keep coming).
type Limits struct {
	// MaxRequestBytes is socket.request.max.bytes: a larger frame closes
	// the connection before anything is allocated for it.
	MaxRequestBytes int
	// IdleTimeout is connections.max.idle.ms: a connection with no byte
	// of a next request for this long is closed.
	IdleTimeout time.Duration
	// RequestTimeout bounds the time from a request's first byte to its
	// last, and the time to write its response.
	RequestTimeout time.Duration
	// MaxConnections is max.connections: beyond it, new connections wait
	// to be accepted until one closes, as Kafka's Acceptor waits in
	// ConnectionQuotas.inc.
	MaxConnections int
	// MaxConnectionsPerIP is max.connections.per.ip: a connection from an
	// address that has this many open is closed at once
	// (ConnectionQuotas.inc's TooManyConnectionsException).
	MaxConnectionsPerIP int
	// UpstreamBufferBytes is the one memory budget of every upstream
	// answer being read, rewritten or written back at once, across all
	// connections: an answer takes its size from it while it is held (and
	// twice that again while it is decoded and re-encoded for rewriting).
	// An answer larger than a quarter of the budget (its share) is refused
	// at once, and one that cannot get its bytes within the upstream
	// timeout is refused too: the client gets an error answer where the
	// API has a top-level error code, else its connection is closed.
	UpstreamBufferBytes int
	// MaxBrokers bounds the broker ids the proxy advertises, each a
	// listener of its own (Map.SetMaxBrokers).
	MaxBrokers int
	// MemoBytes bounds the memory the Metadata answer cache holds
	// (answer.Config.MetadataCacheBytes).
	MemoBytes int
}

// DefaultLimits are Kafka's defaults, a 30 s request read timeout, and a
// 64 MiB answer cache.
func DefaultLimits() Limits {
	return Limits{
		MaxRequestBytes: DefaultMaxRequestBytes,
		IdleTimeout:     DefaultIdleTimeout,
		RequestTimeout:  30 * time.Second,
		MaxConnections:  math.MaxInt32,
		MemoBytes:       64 << 20,

		MaxConnectionsPerIP: math.MaxInt32,
		UpstreamBufferBytes: 512 << 20,
		MaxBrokers:          DefaultMaxBrokers,
	}
}

// limits are the server's limits, the defaults where unset.
func (s *Server) limits() Limits { return s.lim.orDefaults() }

// orDefaults is l with DefaultLimits where a size or count is zero or
// less (timeouts of zero stay: they disable).
func (l Limits) orDefaults() Limits {
	d := DefaultLimits()
	for _, f := range []struct {
		v *int
		d int
	}{
		{&l.MaxRequestBytes, d.MaxRequestBytes}, {&l.MaxConnections, d.MaxConnections},
		{&l.MaxConnectionsPerIP, d.MaxConnectionsPerIP}, {&l.UpstreamBufferBytes, d.UpstreamBufferBytes},
		{&l.MaxBrokers, d.MaxBrokers},
	} {
		if *f.v <= 0 {
			*f.v = f.d
		}
	}
	return l
}
