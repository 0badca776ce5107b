package proxy

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
)

// Endpoint is a host and port a client dials (or the proxy forwards to).
type Endpoint struct {
	Host string
	Port int32
}

// String is host:port.
func (e Endpoint) String() string {
	return net.JoinHostPort(e.Host, strconv.Itoa(int(e.Port)))
}

// ParseEndpoint parses host:port.
func ParseEndpoint(s string) (Endpoint, error) {
	h, p, err := net.SplitHostPort(s)
	if err != nil {
		return Endpoint{}, err
	}
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return Endpoint{}, fmt.Errorf("proxy: port of %q: %w", s, err)
	}
	return Endpoint{Host: h, Port: int32(n)}, nil
}

// Allocator chooses the endpoint advertised for a broker id the Map has not
// seen. It is called at most once per id for the life of a Map (under the
// Map's lock, so it may open a listener without racing itself).
type Allocator interface {
	Allocate(id int32) (Endpoint, error)
}

// AllocatorFunc is an Allocator.
type AllocatorFunc func(id int32) (Endpoint, error)

// Allocate calls f.
func (f AllocatorFunc) Allocate(id int32) (Endpoint, error) { return f(id) }

// PortOffset advertises Host:Base+id for broker id: the same port for the
// same id across restarts of the proxy, not only within one run.
type PortOffset struct {
	Host string
	Base int32
}

// Allocate returns Host:Base+id, or an error if that is not a port.
func (p PortOffset) Allocate(id int32) (Endpoint, error) {
	port := int64(p.Base) + int64(id)
	if id < 0 || port <= 0 || port > 65535 {
		return Endpoint{}, fmt.Errorf("proxy: broker %d: port %d+%d out of range", id, p.Base, id)
	}
	return Endpoint{Host: p.Host, Port: int32(port)}, nil
}

// ErrNoAllocator is returned for an unknown broker id by a Map without an
// Allocator.
var ErrNoAllocator = errors.New("proxy: broker id not in the map and no allocator")

// Entry is what a Map holds for one broker id.
type Entry struct {
	ID         int32
	Advertised Endpoint // what clients dial; never changes once chosen
	Upstream   Endpoint // where the proxy forwards; the last one observed
	Rack       *string  // the broker's rack as last observed (nil: none)
}

type mapState struct {
	byID   map[int32]Entry
	byPort map[int32]int32 // advertised port -> id
}

// Map is upstream broker id → advertised and upstream endpoints. Reads are
// lock-free (the state is copied on write and published atomically), so
// request handlers may read it while a refresh updates it.
type Map struct {
	alloc Allocator
	max   int        // most broker ids held; 0: DefaultMaxBrokers
	mu    sync.Mutex // serialises writers
	cur   atomic.Pointer[mapState]
}

// NewMap returns an empty map; alloc chooses endpoints for new broker ids
// (nil: only Set adds ids).
func NewMap(alloc Allocator) *Map {
	m := &Map{alloc: alloc}
	m.cur.Store(&mapState{byID: map[int32]Entry{}, byPort: map[int32]int32{}})
	return m
}

// DefaultMaxBrokers is the most broker ids a Map holds unless SetMaxBrokers
// says otherwise: each id is a listener of the proxy's, so an upstream
// listing ten thousand brokers must not open ten thousand ports.
const DefaultMaxBrokers = 1024

// SetMaxBrokers bounds the broker ids the map holds (n <= 0:
// DefaultMaxBrokers); an id beyond them is refused with ErrTooManyBrokers.
// Call it before the map is used.
func (m *Map) SetMaxBrokers(n int) { m.max = n }

// ErrTooManyBrokers is returned for a new broker id when the Map holds its
// maximum.
var ErrTooManyBrokers = errors.New("proxy: too many broker ids")

// ErrInvalidBroker is wrapped by the error for a broker whose id, host or
// port no Kafka broker registers with (an id below zero, an empty or
// malformed host, a port outside 1-65535): it is never advertised.
var ErrInvalidBroker = errors.New("proxy: invalid broker")

// ValidBroker checks a broker as an upstream answer gives it: an id of
// zero or more (KafkaConfig's node.id), a host that is a DNS name or an IP
// address (at most 255 bytes, no spaces, no control characters) and a port
// in 1-65535. The error wraps ErrInvalidBroker and names what is wrong.
func ValidBroker(id int32, upstream Endpoint) error {
	switch {
	case id < 0:
		return fmt.Errorf("%w: broker id %d is negative", ErrInvalidBroker, id)
	case upstream.Port <= 0 || upstream.Port > 65535:
		return fmt.Errorf("%w: broker %d: port %d out of range", ErrInvalidBroker, id, upstream.Port)
	case !validHost(upstream.Host):
		return fmt.Errorf("%w: broker %d: host %q", ErrInvalidBroker, id, upstream.Host)
	}
	return nil
}

// validHost reports a host a client could dial: letters, digits, '-', '.',
// '_' (DNS names) or ':' and '%' (IPv6 literals and zones), 1-255 bytes.
func validHost(h string) bool {
	if len(h) == 0 || len(h) > 255 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == ':' || c == '%') {
			return false
		}
	}
	return true
}

// Lookup returns the entry of broker id.
func (m *Map) Lookup(id int32) (Entry, bool) {
	e, ok := m.cur.Load().byID[id]
	return e, ok
}

// ByPort returns the broker id advertised on port.
func (m *Map) ByPort(port int32) (int32, bool) {
	id, ok := m.cur.Load().byPort[port]
	return id, ok
}

// Len is the number of broker ids in the map.
func (m *Map) Len() int { return len(m.cur.Load().byID) }

// Entries returns a copy of every entry, in no particular order.
func (m *Map) Entries() []Entry {
	st := m.cur.Load()
	out := make([]Entry, 0, len(st.byID))
	for _, e := range st.byID {
		out = append(out, e)
	}
	return out
}

// Set fixes the advertised endpoint of broker id (without an upstream one
// until Observe). It fails if id already has another advertised endpoint, or
// if another id is advertised on the same port.
func (m *Map) Set(id int32, advertised Endpoint) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.cur.Load()
	if e, ok := st.byID[id]; ok {
		if e.Advertised != advertised {
			return fmt.Errorf("proxy: broker %d already advertised at %s", id, e.Advertised)
		}
		return nil
	}
	if other, ok := st.byPort[advertised.Port]; ok {
		return fmt.Errorf("proxy: port %d already advertises broker %d", advertised.Port, other)
	}
	m.store(st, Entry{ID: id, Advertised: advertised})
	return nil
}

// Observe records broker id at upstream (with its rack) and returns the
// endpoint advertised for it, allocating one for a new id. The advertised
// endpoint of a known id is kept whatever upstream says: a broker that moves
// to another host keeps its proxy port. A broker ValidBroker refuses, or a
// new id beyond the map's maximum (SetMaxBrokers), is an error and not
// recorded.
func (m *Map) Observe(id int32, upstream Endpoint, rack *string) (Endpoint, error) {
	if err := ValidBroker(id, upstream); err != nil {
		return Endpoint{}, err
	}
	if e, ok := m.Lookup(id); ok && e.Upstream == upstream && sameRack(e.Rack, rack) {
		return e.Advertised, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.cur.Load()
	e, ok := st.byID[id]
	if ok && e.Upstream == upstream && sameRack(e.Rack, rack) {
		return e.Advertised, nil
	}
	if !ok {
		if max := cmp.Or(max(m.max, 0), DefaultMaxBrokers); len(st.byID) >= max {
			return Endpoint{}, fmt.Errorf("%w: broker %d refused, %d held", ErrTooManyBrokers, id, len(st.byID))
		}
		if m.alloc == nil {
			return Endpoint{}, ErrNoAllocator
		}
		adv, err := m.alloc.Allocate(id)
		if err != nil {
			return Endpoint{}, err
		}
		if other, taken := st.byPort[adv.Port]; taken {
			return Endpoint{}, fmt.Errorf("proxy: allocator gave broker %d port %d, which advertises broker %d", id, adv.Port, other)
		}
		e = Entry{ID: id, Advertised: adv}
	}
	e.Upstream = upstream
	if rack != nil {
		r := *rack
		rack = &r
	}
	e.Rack = rack
	m.store(st, e)
	return e.Advertised, nil
}

func (m *Map) store(st *mapState, e Entry) {
	next := &mapState{byID: maps.Clone(st.byID), byPort: maps.Clone(st.byPort)}
	next.byID[e.ID] = e
	next.byPort[e.Advertised.Port] = e.ID
	m.cur.Store(next)
}

func sameRack(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
