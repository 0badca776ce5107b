package proxy

import (
	"fmt"
	"log"
	"net"
	"strconv"
	"sync"
)

// brokerPorts opens one listening port per broker id, so that a client sees
// each broker at its own address: librdkafka keys its connections by
// address and relabels a broker whose id changes behind one address. It is
// the Allocator of the proxy's map: the port of an id is chosen
// once (host:base+id with -broker-ports, else a free port) and kept for the
// life of the process, whatever happens to the broker upstream.
type brokerPorts struct {
	host  string // listening and advertised host
	base  int    // 0: a free port per id
	serve func(ln net.Listener, id int32)

	mu  sync.Mutex
	lns map[int32]net.Listener
}

func newBrokerPorts(host string, base int, serve func(net.Listener, int32)) *brokerPorts {
	return &brokerPorts{host: host, base: base, serve: serve, lns: map[int32]net.Listener{}}
}

// Allocate opens the listener of broker id and starts serving it.
func (p *brokerPorts) Allocate(id int32) (Endpoint, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ln, ok := p.lns[id]; ok {
		return endpointOf(ln.Addr())
	}
	port := 0
	if p.base > 0 {
		ep, err := PortOffset{Host: p.host, Base: int32(p.base)}.Allocate(id)
		if err != nil {
			return Endpoint{}, err
		}
		port = int(ep.Port)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(p.host, strconv.Itoa(port)))
	if err != nil {
		return Endpoint{}, fmt.Errorf("broker %d: %w", id, err)
	}
	p.lns[id] = ln
	log.Printf("proxy: broker %d on %s", id, ln.Addr())
	go p.serve(ln, id)
	return endpointOf(ln.Addr())
}

// Close closes every broker listener.
func (p *brokerPorts) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ln := range p.lns {
		ln.Close()
	}
}

// Addrs returns the listening address of each broker id.
func (p *brokerPorts) Addrs() map[int32]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[int32]string, len(p.lns))
	for id, ln := range p.lns {
		out[id] = ln.Addr().String()
	}
	return out
}

func endpointOf(a net.Addr) (Endpoint, error) {
	return ParseEndpoint(a.String())
}
