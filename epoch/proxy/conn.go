package proxy

import (
	"errors"
	"io"
	"log"
	"net"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// Stats counts what the server's connections ended with. The counters only
// grow; read them with Load.
type Stats struct {
	Accepted atomic.Int64 // connections accepted
	Open     atomic.Int64 // connections open now
	Refused  atomic.Int64 // connections closed at once (max.connections.per.ip), and accept errors retried
	Requests atomic.Int64 // requests answered
	Invalid  atomic.Int64 // connections closed on a request that could not be decoded or served
	Panics   atomic.Int64 // connections closed on a panic while serving them
	Idle     atomic.Int64 // connections closed after connections.max.idle.ms without a request
	Slow     atomic.Int64 // connections closed on a request or response slower than the request timeout
}

// Serve accepts connections on ln until it is closed, then returns nil.
// Each connection is served on its own goroutine; whatever happens serving
// one (a request that cannot be decoded, a timeout, a panic anywhere below)
// closes that connection only, as a bad request closes one channel in
// Kafka's SocketServer. Every listener the server serves (ln, and the
// per-broker ports of AdvertisePerBroker) shares one accept policy (the
// acceptor: Limits.MaxConnections, Limits.MaxConnectionsPerIP, and accept
// errors such as EMFILE retried with a backoff). Serve returns an error,
// with ln closed, when accepting on ln or on a per-broker port fails in a
// way waiting does not cure.
func (s *Server) Serve(ln net.Listener) error {
	acc := s.acceptor()
	done := make(chan error, 1)
	go func() { done <- acc.serve(ln, s.serveConn) }()
	select {
	case err := <-done:
		if errors.Is(err, net.ErrClosed) {
			return nil
		}
		ln.Close()
		return err
	case err := <-s.fatal:
		ln.Close()
		<-done
		return err
	}
}

// acceptor is the server's accept policy, made on first use from its
// limits (SetLimits comes before serving).
func (s *Server) acceptor() *acceptor {
	s.accOnce.Do(func() {
		s.acc = newAcceptor(s.limits(), s.counting(), &s.connLog)
		s.acc.tls, s.acc.mapper = s.tlsCfg, s.mapper
		s.fatal = make(fatalErrs, 1)
	})
	return s.acc
}

// counting is the server's Observer with its Stats counted too.
func (s *Server) counting() Observer { return statsObserver{s: &s.stats, next: observer(s.obs)} }

// statsObserver counts connections into Stats, then tells next.
type statsObserver struct {
	s    *Stats
	next Observer
}

func (o statsObserver) ConnOpened(a net.Addr) {
	o.s.Accepted.Add(1)
	o.s.Open.Add(1)
	o.next.ConnOpened(a)
}

func (o statsObserver) ConnClosed(a net.Addr, why error) {
	o.s.Open.Add(-1)
	o.next.ConnClosed(a, why)
}

func (o statsObserver) ConnRefused(a net.Addr, why error) {
	o.s.Refused.Add(1)
	o.next.ConnRefused(a, why)
}

func (o statsObserver) Request(k, v, ec int16)                      { o.next.Request(k, v, ec) }
func (o statsObserver) AuthDenied(k, v int16, p string)             { o.next.AuthDenied(k, v, p) }
func (o statsObserver) UpstreamLatency(k, v int16, d time.Duration) { o.next.UpstreamLatency(k, v, d) }

// serveConn answers the requests of one connection until it ends or a
// request cannot be served, then closes it. A panic is recovered here,
// logged once with the remote address, and counted.
func (s *Server) serveConn(conn net.Conn, sess *session) {
	var why error
	defer func() { s.counting().ConnClosed(conn.RemoteAddr(), why) }()
	defer conn.Close()
	defer func() {
		if p := recover(); p != nil {
			s.stats.Panics.Add(1)
			// Always one line (a panic is a bug to fix); its stack as
			// often as the connection lines.
			log.Printf("proxy: %v: closed after a panic: %v", conn.RemoteAddr(), p)
			s.connLog.printf("proxy: %v: panic stack:\n%s", conn.RemoteAddr(), debug.Stack())
		}
	}()
	lim := s.limits()
	rq := s.rq
	rq.Principal, rq.Host = sess.principal, sess.host
	tr := traffic(s.obs)
	f := NewFrameReader(conn)
	f.MaxBytes, f.IdleTimeout, f.ReadTimeout = lim.MaxRequestBytes, lim.IdleTimeout, lim.RequestTimeout
	var out []byte
	for {
		frame, err := f.Next()
		switch {
		case err == nil:
		case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
			return
		case errors.Is(err, ErrIdle):
			s.stats.Idle.Add(1)
			return
		case errors.Is(err, ErrSlow):
			s.stats.Slow.Add(1)
			s.connLog.printf("proxy: %v: closed: %v", conn.RemoteAddr(), err)
			return
		case errors.Is(err, ErrFrameSize):
			s.stats.Invalid.Add(1)
			s.connLog.printf("proxy: %v: closed: %v", conn.RemoteAddr(), err)
			return
		default:
			return // the client went away mid-frame
		}
		key, ver := frameAPI(frame)
		tr.BytesIn(key, ver, len(frame)+4)
		out, err = s.handleAs(out[:0], frame, rq)
		if err != nil {
			s.stats.Invalid.Add(1)
			s.counting().Request(key, ver, kafkaerr.InvalidRequest.Int16())
			s.connLog.printf("proxy: %v: closed: %v", conn.RemoteAddr(), err)
			return
		}
		s.stats.Requests.Add(1)
		s.counting().Request(key, ver, answerCode(key, ver))
		if lim.RequestTimeout > 0 {
			conn.SetWriteDeadline(time.Now().Add(lim.RequestTimeout))
		}
		if _, err := conn.Write(out); err != nil {
			if isNetTimeout(err) {
				s.stats.Slow.Add(1)
			}
			return
		}
		tr.BytesOut(key, ver, len(out))
		if cap(out) > 64<<10 {
			out = nil // keep no large answer's buffer on an idle connection
		}
	}
}

func isNetTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
