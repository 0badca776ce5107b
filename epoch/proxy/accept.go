package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"math"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// ErrTooManyConnections is why a connection is closed at once: its address
// already has max.connections.per.ip connections open (Kafka's
// ConnectionQuotas, TooManyConnectionsException).
var ErrTooManyConnections = errors.New("too many connections from this address")

// acceptor is the accept loop every listener of one Server or Forwarder
// shares: at most Limits.MaxConnections connections open across its
// listeners (more wait to be accepted, as Kafka's Acceptor waits in
// ConnectionQuotas.inc), at most Limits.MaxConnectionsPerIP from one
// address (more are closed at once, as ConnectionQuotas.inc throws
// TooManyConnectionsException), and accept errors that waiting cures
// (out of file descriptors, out of buffers, an aborted connection) retried
// with a backoff of 5 ms doubling to 1 s, as net/http's Server.Serve does,
// rather than ending the server.
type acceptor struct {
	slots    chan struct{} // elements of size 0: no buffer however large
	maxPerIP int
	obs      Observer
	log      *connLog

	tls       *tls.Config      // nil: plaintext
	mapper    *PrincipalMapper // ssl.principal.mapping.rules
	handshake time.Duration    // bound on the TLS handshake

	mu    sync.Mutex
	perIP map[netip.Addr]int
}

func newAcceptor(lim Limits, obs Observer, l *connLog) *acceptor {
	hs := lim.RequestTimeout
	if hs <= 0 {
		hs = 10 * time.Second
	}
	return &acceptor{slots: make(chan struct{}, lim.MaxConnections), maxPerIP: lim.MaxConnectionsPerIP, obs: observer(obs), log: l, perIP: map[netip.Addr]int{}, handshake: hs}
}

// session is what the proxy knows of a client connection once it is
// accepted (and its TLS handshake done): its principal (KafkaPrincipal
// as "Type:name") and its address, as the authorizer takes them.
type session struct {
	principal string
	host      string // the client's IP address
	tls       bool
}

// open makes the session of an accepted connection: a TLS handshake
// first, bounded by the request timeout (10 s if none), on a TLS
// listener; the principal from the client certificate, else
// User:ANONYMOUS. An error ends the connection.
func (a *acceptor) open(conn net.Conn) (net.Conn, *session, error) {
	s := &session{principal: Anonymous}
	if ap, err := netip.ParseAddrPort(conn.RemoteAddr().String()); err == nil {
		s.host = javaHostAddress(ap.Addr())
	}
	if a.tls == nil {
		return conn, s, nil
	}
	tc := tls.Server(conn, a.tls)
	ctx, cancel := context.WithTimeout(context.Background(), a.handshake)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, nil, fmt.Errorf("TLS handshake: %w", err)
	}
	st := tc.ConnectionState()
	p, err := TLSPrincipal(&st, a.mapper)
	if err != nil {
		return nil, nil, fmt.Errorf("TLS principal: %w", err)
	}
	s.principal, s.tls = p, true
	return tc, s, nil
}

// serve accepts connections on ln until it is closed (net.ErrClosed) or
// accepting fails for good (any other error), serving each on a goroutine
// of its own with handle.
func (a *acceptor) serve(ln net.Listener, handle func(net.Conn, *session)) error {
	backoff := time.Duration(0)
	for {
		a.slots <- struct{}{}
		conn, err := ln.Accept()
		if err != nil {
			<-a.slots
			if errors.Is(err, net.ErrClosed) {
				return net.ErrClosed
			}
			if !retryableAccept(err) {
				return fmt.Errorf("accepting on %s: %w", ln.Addr(), err)
			}
			if backoff == 0 {
				backoff = 5 * time.Millisecond
			} else if backoff *= 2; backoff > time.Second {
				backoff = time.Second
			}
			a.log.printf("proxy: accepting on %s: %v (retrying in %v)", ln.Addr(), err, backoff)
			a.obs.ConnRefused(nil, err)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		ip, ok := a.admit(conn.RemoteAddr())
		if !ok {
			<-a.slots
			a.obs.ConnRefused(conn.RemoteAddr(), ErrTooManyConnections)
			a.log.printf("proxy: %v: closed: %v (max.connections.per.ip %d)", conn.RemoteAddr(), ErrTooManyConnections, a.maxPerIP)
			conn.Close()
			continue
		}
		a.obs.ConnOpened(conn.RemoteAddr())
		go func() {
			defer func() {
				a.release(ip)
				<-a.slots
			}()
			c, sess, err := a.open(conn)
			if err != nil {
				a.log.printf("proxy: %v: closed: %v", conn.RemoteAddr(), err)
				a.obs.ConnClosed(conn.RemoteAddr(), err)
				conn.Close()
				return
			}
			handle(c, sess)
		}()
	}
}

// admit counts a connection from addr, or reports that its address is at
// max.connections.per.ip.
func (a *acceptor) admit(addr net.Addr) (netip.Addr, bool) {
	if a.maxPerIP <= 0 || a.maxPerIP >= math.MaxInt32 {
		return netip.Addr{}, true
	}
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return netip.Addr{}, true // not an IP connection: not counted
	}
	ip := ap.Addr().Unmap()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.perIP[ip] >= a.maxPerIP {
		return ip, false
	}
	a.perIP[ip]++
	return ip, true
}

func (a *acceptor) release(ip netip.Addr) {
	if !ip.IsValid() {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.perIP[ip]--; a.perIP[ip] <= 0 {
		delete(a.perIP, ip)
	}
}

// retryableAccept reports an accept error that waiting cures: out of file
// descriptors (EMFILE, ENFILE), of buffers or memory (ENOBUFS, ENOMEM), a
// connection aborted or reset before it was accepted, an interrupted
// call, or a timeout.
func retryableAccept(err error) bool {
	for _, e := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EINTR, syscall.EAGAIN, syscall.EPROTO, syscall.EPERM} {
		if errors.Is(err, e) {
			return true
		}
	}
	return isNetTimeout(err)
}

// fatalErrs carries the first error that ends a listener for good, so that
// the owner's Serve returns it.
type fatalErrs chan error

func (f fatalErrs) report(err error) {
	select {
	case f <- err:
	default:
	}
}

// logAcceptFailure logs a listener that ended on a fatal error.
func logAcceptFailure(err error) { log.Printf("proxy: %v", err) }

// javaHostAddress is InetAddress.getHostAddress, the form the authorizer
// compares ACL hosts with: dotted IPv4, or IPv6 as eight hexadecimal
// groups without leading zeros and without "::" compression
// ("0:0:0:0:0:0:0:1").
func javaHostAddress(a netip.Addr) string {
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	b := a.As16()
	out := make([]byte, 0, 39)
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			out = append(out, ':')
		}
		out = strconv.AppendUint(out, uint64(b[i])<<8|uint64(b[i+1]), 16)
	}
	if z := a.Zone(); z != "" {
		out = append(append(out, '%'), z...)
	}
	return string(out)
}
