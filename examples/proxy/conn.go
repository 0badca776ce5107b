package main

import (
	"errors"
	"io"
	"log"
	"net"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/kmeta-go/kmeta/internal/wire"
)

// Stats counts what the server's connections ended with. The counters only
// grow; read them with Load.
type Stats struct {
	Accepted atomic.Int64 // connections accepted
	Open     atomic.Int64 // connections open now
	Requests atomic.Int64 // requests answered
	Invalid  atomic.Int64 // connections closed on a request that could not be decoded or served
	Panics   atomic.Int64 // connections closed on a panic while serving them
	Idle     atomic.Int64 // connections closed after connections.max.idle.ms without a request
	Slow     atomic.Int64 // connections closed on a request or response slower than the request timeout
}

// Serve accepts connections until ln is closed. Each connection is served
// on its own goroutine; whatever happens serving one (a request that
// cannot be decoded, a timeout, a panic anywhere below) closes that
// connection only, as a bad request closes one channel in Kafka's
// SocketServer. At most Limits.MaxConnections are open at once; more wait
// to be accepted.
func (s *Server) Serve(ln net.Listener) error {
	lim := s.limits()
	slots := make(chan struct{}, lim.MaxConnections) // elements of size 0: no buffer however large
	backoff := time.Duration(0)
	for {
		slots <- struct{}{}
		conn, err := ln.Accept()
		if err != nil {
			<-slots
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			// Out of file descriptors, or a connection reset before it
			// was accepted: wait and go on, as Kafka's Acceptor does,
			// rather than end the server.
			if backoff == 0 {
				backoff = 5 * time.Millisecond
				log.Printf("proxy: accepting: %v (retrying)", err)
			} else if backoff *= 2; backoff > time.Second {
				backoff = time.Second
			}
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		s.stats.Accepted.Add(1)
		s.stats.Open.Add(1)
		go func() {
			defer func() {
				s.stats.Open.Add(-1)
				<-slots
			}()
			s.serveConn(conn)
		}()
	}
}

// serveConn answers the requests of one connection until it ends or a
// request cannot be served, then closes it. A panic is recovered here,
// logged once with the remote address, and counted.
func (s *Server) serveConn(conn net.Conn) {
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
	f := wire.NewFrameReader(conn)
	f.MaxBytes, f.IdleTimeout, f.ReadTimeout = lim.MaxRequestBytes, lim.IdleTimeout, lim.RequestTimeout
	var out []byte
	for {
		frame, err := f.Next()
		switch {
		case err == nil:
		case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
			return
		case errors.Is(err, wire.ErrIdle):
			s.stats.Idle.Add(1)
			return
		case errors.Is(err, wire.ErrSlow):
			s.stats.Slow.Add(1)
			s.connLog.printf("proxy: %v: closed: %v", conn.RemoteAddr(), err)
			return
		case errors.Is(err, wire.ErrFrameSize):
			s.stats.Invalid.Add(1)
			s.connLog.printf("proxy: %v: closed: %v", conn.RemoteAddr(), err)
			return
		default:
			return // the client went away mid-frame
		}
		out, err = s.handle(out[:0], frame)
		if err != nil {
			s.stats.Invalid.Add(1)
			s.connLog.printf("proxy: %v: closed: %v", conn.RemoteAddr(), err)
			return
		}
		s.stats.Requests.Add(1)
		if lim.RequestTimeout > 0 {
			conn.SetWriteDeadline(time.Now().Add(lim.RequestTimeout))
		}
		if _, err := conn.Write(out); err != nil {
			if isTimeout(err) {
				s.stats.Slow.Add(1)
			}
			return
		}
		if cap(out) > 64<<10 {
			out = nil // keep no large answer's buffer on an idle connection
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
