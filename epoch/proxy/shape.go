package proxy

import (
	"fmt"
	"slices"
	"strings"
)

// Client is what a Shaper knows of the client a response goes to.
type Client struct {
	// ID is the client id of the request header (client.id).
	ID string
	// Rack is the client's rack (client.rack), when the embedder knows it:
	// Fetch v11+ requests carry it (KIP-392), and a proxy may also take it
	// from a client-id convention or from the address the client came from.
	Rack string
	// Addr is the client's remote address (host:port), if known.
	Addr string
}

// Broker is one broker of a rewritten list, as a Shaper sees it.
type Broker struct {
	NodeID int32
	Host   string
	Port   int32
	Rack   *string
}

// Shaper gives one client its own view of the broker list: it may reorder
// brokers, drop some, or change their hosts and ports. It is called with the
// list already rewritten to advertised endpoints and returns the list to
// answer with (it may reuse brokers' backing array).
//
// Metadata and DescribeCluster answers carry the shaped list. FindCoordinator
// answers and KIP-951 NodeEndpoints name brokers the client must reach, so
// there only host and port changes are taken: a broker the Shaper dropped
// keeps its advertised endpoint. A Shaper that drops the leader of a
// partition from a Metadata list leaves clients without that leader's
// address: filter with care (RackOnly keeps every broker when none is in the
// client's rack).
type Shaper interface {
	Shape(c *Client, brokers []Broker) []Broker
}

// ShaperFunc is a Shaper.
type ShaperFunc func(c *Client, brokers []Broker) []Broker

// Shape calls f.
func (f ShaperFunc) Shape(c *Client, brokers []Broker) []Broker { return f(c, brokers) }

// Chain applies shapers in order.
func Chain(shapers ...Shaper) Shaper {
	return ShaperFunc(func(c *Client, brokers []Broker) []Broker {
		for _, s := range shapers {
			brokers = s.Shape(c, brokers)
		}
		return brokers
	})
}

// RackFirst orders the brokers in the client's rack before the others,
// keeping the order within each group (clients that bootstrap from the first
// brokers of the list then start in their own rack). A client without a rack
// gets the list unchanged.
type RackFirst struct{}

// Shape orders brokers by rack.
func (RackFirst) Shape(c *Client, brokers []Broker) []Broker {
	if c == nil || c.Rack == "" {
		return brokers
	}
	slices.SortStableFunc(brokers, func(a, b Broker) int {
		return rackRank(c.Rack, a.Rack) - rackRank(c.Rack, b.Rack)
	})
	return brokers
}

func rackRank(want string, r *string) int {
	if r != nil && *r == want {
		return 0
	}
	return 1
}

// RackOnly keeps only the brokers in the client's rack, or every broker when
// none is (or the client has no rack).
type RackOnly struct{}

// Shape filters brokers by rack.
func (RackOnly) Shape(c *Client, brokers []Broker) []Broker {
	if c == nil || c.Rack == "" {
		return brokers
	}
	n := 0
	for _, b := range brokers {
		if rackRank(c.Rack, b.Rack) == 0 {
			n++
		}
	}
	if n == 0 {
		return brokers
	}
	out := brokers[:0]
	for _, b := range brokers {
		if rackRank(c.Rack, b.Rack) == 0 {
			out = append(out, b)
		}
	}
	return out
}

// HostRule replaces the host of every broker for clients whose client id
// starts with ClientIDPrefix (the longest matching prefix wins).
type HostRule struct {
	ClientIDPrefix string
	Host           string
}

// ClientHosts overrides advertised hosts by client id, as Bufstream's
// client-id options do: clients inside a network reach the proxy by another
// name than clients outside it.
type ClientHosts []HostRule

// Shape replaces hosts for the client's best rule, if any.
func (r ClientHosts) Shape(c *Client, brokers []Broker) []Broker {
	if c == nil {
		return brokers
	}
	best := -1
	for i, h := range r {
		if strings.HasPrefix(c.ID, h.ClientIDPrefix) && (best < 0 || len(h.ClientIDPrefix) > len(r[best].ClientIDPrefix)) {
			best = i
		}
	}
	if best < 0 {
		return brokers
	}
	for i := range brokers {
		brokers[i].Host = r[best].Host
	}
	return brokers
}

// ParseHostRule parses a HostRule written PREFIX=HOST (an empty prefix:
// every client without a longer match), as a proxy's -client-host flag
// takes it.
func ParseHostRule(v string) (HostRule, error) {
	prefix, host, ok := strings.Cut(v, "=")
	if !ok || host == "" || strings.ContainsAny(host, " :/") {
		return HostRule{}, fmt.Errorf("host rule %q: want PREFIX=HOST", v)
	}
	return HostRule{ClientIDPrefix: prefix, Host: host}, nil
}
