package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
)

// upstreamAddrs is where requests of this connection may go: the upstream
// endpoint of its broker, or every broker of the view (then the seeds) for
// the bootstrap port, tried in turn.
func (c *fconn) upstreamAddrs() ([]string, error) {
	if c.broker >= 0 {
		e, ok := c.f.amap.Lookup(c.broker)
		if !ok || e.Upstream.Host == "" {
			return nil, fmt.Errorf("broker %d has no upstream endpoint", c.broker)
		}
		c.upEP = e.Upstream
		return []string{e.Upstream.String()}, nil
	}
	var out []string
	for _, u := range c.f.upstreamAddrs() {
		out = append(out, u.addr)
	}
	if len(out) == 0 {
		return nil, errors.New("no upstream broker known")
	}
	return out, nil
}

// connectUpstream dials the connection's upstream (dialUp). When no
// address answers, the cluster may have moved: it waits for the view's next
// refresh (Forwarder.awaitRefresh: within the refresh policy, a
// Rebootstrap attempt that goes back to the seeds when every known broker
// fails) and dials again, the broker's new address if the refresh found
// one, until the upstream timeout. A client's request thus reaches a broker
// that moved instead of losing its connection, and each attempt is one
// backoff step (an address that failed in it is not dialled again in it).
func (c *fconn) connectUpstream(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.f.timeout)
	defer cancel()
	for {
		err := c.dialUp(ctx)
		if err == nil || errors.Is(err, net.ErrClosed) || ctx.Err() != nil {
			return err
		}
		c.f.stats.UpstreamWaits.Add(1)
		if rerr := c.f.awaitRefresh(ctx); rerr != nil && ctx.Err() != nil {
			return err
		}
	}
}

// dialUp dials the first of the connection's upstream addresses that
// answers.
func (c *fconn) dialUp(ctx context.Context) error {
	addrs, err := c.upstreamAddrs()
	if err != nil {
		return err
	}
	var errs []error
	for _, addr := range addrs {
		dctx, cancel := context.WithTimeout(ctx, c.f.timeout)
		up, err := c.f.dialUpstream(dctx, addr)
		cancel()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c.mu.Lock()
		c.up, c.upAddr = up, addr
		closed := c.closed
		c.mu.Unlock()
		if closed {
			up.Close()
			return net.ErrClosed
		}
		return nil
	}
	return errors.Join(errs...)
}
