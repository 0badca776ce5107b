package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
)

// errDialBackoff is a dial not made: the address failed in the current
// backoff step.
var errDialBackoff = errors.New("failed in this backoff step; not dialled again before the next metadata attempt")

// dialGate keeps every upstream dial of the forwarder, whoever makes it (a
// metadata attempt, ApiVersions, a client's connection), to one dial of a
// failing address per backoff step, as Kafka's per-node reconnect backoff
// (ClusterConnectionStates) keeps a client from redialling a dead node
// before its backoff ends. A step is one clientview.Rebootstrap attempt and
// the backoff after it: an address whose dial failed in a step is not
// dialled again in it, and in the next one a single dial tries it (the
// others fail at once while it is in flight) until one succeeds. Addresses
// that have not failed are dialled freely.
type dialGate struct {
	mu    sync.Mutex
	addrs map[string]*gateState // failing addresses only
}

type gateState struct {
	step    int64 // the step of the last failure
	pending bool  // a dial of it is in flight
}

// maxGateAddrs bounds the failing addresses remembered; past it, those that
// did not fail in the current or the previous step are forgotten.
const maxGateAddrs = 1024

// acquire reports whether addr may be dialled in step; if so, done must be
// called with the dial's error.
func (g *dialGate) acquire(addr string, step int64) (ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.addrs[addr]
	if st == nil {
		return true
	}
	if st.step >= step || st.pending {
		return false
	}
	st.pending = true
	return true
}

// release ends a dial that says nothing of addr (cancelled).
func (g *dialGate) release(addr string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if st := g.addrs[addr]; st != nil {
		st.pending = false
	}
}

// done records how a dial acquired in step ended: a success forgets addr,
// a failure holds it for the rest of step.
func (g *dialGate) done(addr string, step int64, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err == nil {
		delete(g.addrs, addr)
		return
	}
	if g.addrs == nil {
		g.addrs = map[string]*gateState{}
	}
	if len(g.addrs) >= maxGateAddrs {
		for a, st := range g.addrs {
			if st.step < step-1 && !st.pending {
				delete(g.addrs, a)
			}
		}
	}
	st := g.addrs[addr]
	if st == nil {
		st = &gateState{}
		g.addrs[addr] = st
	}
	st.step, st.pending = max(st.step, step), false
}

// dialUpstream dials addr with the forwarder's dialler (TLS and SASL
// included) unless it failed in the current backoff step (dialGate).
func (f *Forwarder) dialUpstream(ctx context.Context, addr string) (net.Conn, error) {
	step := f.rb.Stats().Attempts
	if !f.gate.acquire(addr, step) {
		f.stats.DialsHeld.Add(1)
		return nil, fmt.Errorf("%s: %w", addr, errDialBackoff)
	}
	c, err := f.dial(ctx, "tcp", addr)
	if err != nil && errors.Is(ctx.Err(), context.Canceled) {
		// Cancelled by the caller: it says nothing of the address.
		f.gate.release(addr)
		return nil, err
	}
	f.gate.done(addr, step, err)
	return c, err
}
