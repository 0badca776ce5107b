package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/kmeta-go/kmeta/internal/wire"
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
	// MemoBytes bounds the memory the Metadata answer cache holds
	// (answer.Config.MetadataCacheBytes).
	MemoBytes int
}

// DefaultLimits are Kafka's defaults, a 30 s request read timeout, and a
// 64 MiB answer cache.
func DefaultLimits() Limits {
	return Limits{
		MaxRequestBytes: wire.DefaultMaxRequestBytes,
		IdleTimeout:     wire.DefaultIdleTimeout,
		RequestTimeout:  30 * time.Second,
		MaxConnections:  math.MaxInt32,
		MemoBytes:       64 << 20,
	}
}

// limitFlags registers the limits' flags on fs, filled in when fs is parsed.
func limitFlags(fs *flag.FlagSet) *Limits {
	l := DefaultLimits()
	fs.IntVar(&l.MaxRequestBytes, "socket.request.max.bytes", l.MaxRequestBytes, "largest request accepted, in bytes (Kafka's socket.request.max.bytes)")
	fs.Func("connections.max.idle.ms", "close a connection idle this long, in ms (Kafka's connections.max.idle.ms; default 600000)", msFlag(&l.IdleTimeout))
	fs.Func("request.read.timeout.ms", "close a connection whose request takes longer than this to arrive, or its response to be written, in ms; 0 disables (default 30000)", msFlag(&l.RequestTimeout))
	fs.IntVar(&l.MaxConnections, "max.connections", l.MaxConnections, "connections served at once; more wait to be accepted (Kafka's max.connections)")
	fs.IntVar(&l.MemoBytes, "metadata.cache.max.bytes", l.MemoBytes, "memory the Metadata answer cache may hold, in bytes")
	return &l
}

func msFlag(d *time.Duration) func(string) error {
	return func(s string) error {
		ms, err := strconv.ParseInt(s, 10, 64)
		if err != nil || ms < 0 {
			return fmt.Errorf("want milliseconds, got %q", s)
		}
		*d = time.Duration(ms) * time.Millisecond
		return nil
	}
}

// limits are the server's limits, Kafka's defaults where unset.
func (s *Server) limits() Limits {
	l, d := s.lim, DefaultLimits()
	if l.MaxRequestBytes <= 0 {
		l.MaxRequestBytes = d.MaxRequestBytes
	}
	if l.MaxConnections <= 0 {
		l.MaxConnections = d.MaxConnections
	}
	return l
}
