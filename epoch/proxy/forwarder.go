package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"time"

	"github.com/kmeta-go/kmeta/epoch/clientview"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/credential"
)

// ForwarderConfig configures a Forwarder.
type ForwarderConfig struct {
	// Seeds are the upstream bootstrap addresses, HOST:PORT.
	Seeds []string
	// Host is the host the broker ports listen on and are advertised at.
	Host string
	// BrokerBase, if positive, puts broker id N's port at BrokerBase+N
	// (PortOffset); else each id gets a free port, kept for the life of
	// the forwarder.
	BrokerBase int
	// Timeout bounds each upstream dial, write and wait for an answer
	// (request.timeout.ms); 30 s if zero.
	Timeout time.Duration
	// Shaper, if set, gives each client its own view of the broker list.
	Shaper Shaper
	// Limits bound what clients and upstream can make the forwarder hold;
	// DefaultLimits where a field is zero.
	Limits Limits
	// Observer, if set, sees connections, requests and upstream latency.
	Observer Observer
	// Dial dials upstream; a net.Dialer's DialContext if nil.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// TLS, if set, makes every client port a TLS listener (ListenerTLS);
	// PrincipalMapper maps client certificates to principals (nil:
	// DEFAULT).
	TLS             *tls.Config
	PrincipalMapper *PrincipalMapper
	// Authorizer decides every request before it is forwarded, as a
	// broker's authorizer would (image/authz's Standard over an image's
	// ACLs); nil with PassThrough false denies everything.
	Authorizer authz.Authorizer
	// PassThrough forwards every request unauthorized, under the proxy's
	// own identity upstream: every client gets what the proxy's principal
	// may do. Off by default; NewForwarder logs a warning when it is on.
	PassThrough bool
	// SASL, if set, makes every client authenticate with one of its
	// mechanisms first; the principal is then User:<name>.
	SASL *SASLConfig
	// UpstreamSASL, if set, is the proxy's own login on every connection
	// to the cluster.
	UpstreamSASL *UpstreamSASL
	// UpstreamTLS, if set, is used for every connection to the cluster
	// (UpstreamTLS); its ServerName, if empty, is each broker's host.
	UpstreamTLS *tls.Config
}

// NewForwarder returns a forwarder for cfg. It opens no listener and dials
// nothing until Start.
func NewForwarder(cfg ForwarderConfig) *Forwarder {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	var f *Forwarder
	ports := newBrokerPorts(cfg.Host, cfg.BrokerBase, func(ln net.Listener, id int32) { f.serveBrokerPort(ln, id) })
	f = newForwarder(cfg.Seeds, cfg.Timeout, ports)
	f.rw.Shaper = cfg.Shaper
	f.obs = observer(cfg.Observer)
	f.traffic = traffic(cfg.Observer)
	f.setLimits(cfg.Limits)
	if cfg.Dial != nil {
		f.dial = cfg.Dial
	}
	f.acc.tls, f.acc.mapper = cfg.TLS, cfg.PrincipalMapper
	f.passThrough, f.authz = cfg.PassThrough, cfg.Authorizer
	if cfg.SASL != nil {
		sc := *cfg.SASL
		sc.tokens = credential.NewTokenCache(100_000)
		f.sasl = &sc
	}
	if f.passThrough {
		log.Printf("proxy: WARNING: pass-through: requests are forwarded without authorization, every client acting as the proxy's own principal upstream")
	} else if f.authz == nil {
		f.authz = authz.New(nil, authz.Config{}) // no ACL: everything denied
	}
	if cfg.UpstreamTLS != nil {
		f.dial = tlsDialer(f.dial, cfg.UpstreamTLS)
	}
	if cfg.UpstreamSASL != nil {
		f.dial = saslDialer(f.dial, *cfg.UpstreamSASL, cfg.Timeout)
	}
	return f
}

// Start asks upstream for its ApiVersions and a first view of the
// cluster, and opens the port of every broker in it.
func (f *Forwarder) Start(ctx context.Context) error { return f.start(ctx) }

// View is the forwarder's current view of the upstream cluster.
func (f *Forwarder) View() *clientview.View { return f.ref.View() }

// Stats are the forwarder's counters.
func (f *Forwarder) Stats() *FwdStats { return &f.stats }

// BrokerAddrs are the listening addresses of the broker ports, by broker id.
func (f *Forwarder) BrokerAddrs() map[int32]string { return f.ports.Addrs() }

// Serve serves clients on ln (the bootstrap port: requests go to any
// broker) and keeps the view fresh, until ctx is done or ln is closed; it
// returns nil then. It returns an error, with ln closed, only when
// accepting fails in a way waiting does not cure. Call Start first.
func (f *Forwarder) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go f.refreshLoop(ctx)
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	done := make(chan error, 1)
	go func() { done <- f.serveBroker(ln, -1) }()
	var err error
	select {
	case err = <-done:
	case err = <-f.fatal: // a broker port failed for good
		ln.Close()
		<-done
	}
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	ln.Close()
	return err
}

// Close closes every broker port. Connections being served end as their
// clients or upstream end them.
func (f *Forwarder) Close() error {
	f.ports.Close()
	return nil
}

// LogStats logs what the forwarder did, the line starting with prefix.
func (f *Forwarder) LogStats(prefix string) {
	s := &f.stats
	log.Printf("proxy: %s%d forwarded, %d rewritten, %d answered from the view, %d refused, %d upstream failures, %d refreshes",
		prefix, s.Forwarded.Load(), s.Rewritten.Load(), s.Local.Load(), s.Refused.Load(), s.UpstreamFails.Load(), s.Refreshes.Load())
}

// tlsDialer wraps dial with a TLS client handshake under cfg, bounded by
// the dial's context; the server name is the address's host unless cfg
// names one.
func tlsDialer(dial func(ctx context.Context, network, addr string) (net.Conn, error), cfg *tls.Config) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cc := cfg
		if cfg.ServerName == "" {
			host, _, _ := net.SplitHostPort(addr)
			cc = cfg.Clone()
			cc.ServerName = host
		}
		tc := tls.Client(c, cc)
		if err := tc.HandshakeContext(ctx); err != nil {
			c.Close()
			return nil, fmt.Errorf("TLS to %s: %w", addr, err)
		}
		return tc, nil
	}
}
