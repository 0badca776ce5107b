package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kmeta-go/kmeta/epoch/proxy"
)

// upstreamConfig are the flags of the forwarding mode (-upstream).
type upstreamConfig struct {
	seeds      string
	brokerBase int
	timeout    time.Duration
	rackFirst  bool
	hosts      proxy.ClientHosts // -client-host
	verify     bool
}

func upstreamFlags(fs *flag.FlagSet) *upstreamConfig {
	c := &upstreamConfig{}
	fs.StringVar(&c.seeds, "upstream", "", "forward to the Kafka cluster at HOST:PORT[,HOST:PORT...] instead of answering from a directory")
	fs.IntVar(&c.brokerBase, "broker-ports", 0, "advertise broker id N on port BASE+N (default: a free port per broker, kept for the life of the proxy)")
	fs.DurationVar(&c.timeout, "upstream-timeout", 30*time.Second, "longest wait for an upstream answer (request.timeout.ms)")
	fs.BoolVar(&c.rackFirst, "rack-first", false, "order each client's broker list with its rack's brokers first (client.rack from Fetch requests)")
	fs.Func("client-host", "PREFIX=HOST: advertise HOST (with the proxy's ports) to clients whose client.id starts with PREFIX, the longest prefix winning (repeatable; Bufstream-style host overrides by client id)", func(v string) error {
		r, err := proxy.ParseHostRule(v)
		if err == nil {
			c.hosts = append(c.hosts, r)
		}
		return err
	})
	fs.BoolVar(&c.verify, "verify", false, "decode every answer sent and log any broker address that is not one of the proxy's ports; log every upstream connection's local address")
	return c
}

// shaper is the per-client view the flags ask for: -rack-first's order,
// then -client-host's hosts; nil for neither.
func (c *upstreamConfig) shaper() proxy.Shaper {
	var ss []proxy.Shaper
	if c.rackFirst {
		ss = append(ss, proxy.RackFirst{})
	}
	if len(c.hosts) > 0 {
		ss = append(ss, c.hosts)
	}
	switch len(ss) {
	case 0:
		return nil
	case 1:
		return ss[0]
	}
	return proxy.Chain(ss...)
}

func splitSeeds(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// limitFlags registers the limits' flags on fs, filled in when fs is
// parsed; they apply in every mode.
func limitFlags(fs *flag.FlagSet) *proxy.Limits {
	l := proxy.DefaultLimits()
	fs.IntVar(&l.MaxRequestBytes, "socket.request.max.bytes", l.MaxRequestBytes, "largest request accepted, in bytes (Kafka's socket.request.max.bytes)")
	fs.Func("connections.max.idle.ms", "close a connection idle this long, in ms (Kafka's connections.max.idle.ms; default 600000)", msFlag(&l.IdleTimeout))
	fs.Func("request.read.timeout.ms", "close a connection whose request takes longer than this to arrive, or its response to be written, in ms; 0 disables (default 30000)", msFlag(&l.RequestTimeout))
	fs.IntVar(&l.MaxConnections, "max.connections", l.MaxConnections, "connections served at once; more wait to be accepted (Kafka's max.connections)")
	fs.IntVar(&l.MaxConnectionsPerIP, "max.connections.per.ip", l.MaxConnectionsPerIP, "connections from one address at once; more are closed at once (Kafka's max.connections.per.ip)")
	fs.IntVar(&l.MemoBytes, "metadata.cache.max.bytes", l.MemoBytes, "memory the Metadata answer cache may hold, in bytes")
	fs.IntVar(&l.UpstreamBufferBytes, "upstream.buffer.max.bytes", l.UpstreamBufferBytes, "memory all upstream answers in flight may hold at once, in bytes; one answer may take a quarter (-upstream)")
	fs.IntVar(&l.MaxBrokers, "max.brokers", l.MaxBrokers, "broker ids advertised, each a listening port of its own; more are refused and logged")
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
