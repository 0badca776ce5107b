package proxy

import (
	"context"
	"log"
	"net"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Verifier is a proxy's -verify: every answer the forwarder sends is decoded again and
// every broker address in it (any Host/Port pair of the response, found by
// reflection, so an API whose answer gains an address field is covered
// too) is checked to be one of the proxy's own ports; every upstream
// connection's local address is logged, so that a test can tell the proxy's
// connections to the cluster from a client's.
type Verifier struct {
	f         *Forwarder
	bootstrap string
	hosts     map[string]bool // -client-host's hosts, which name the proxy too
	checked   atomic.Int64
	addrs     atomic.Int64
	leaks     atomic.Int64
	mu        sync.Mutex
	byKey     map[int16]int64
}

// NewVerifier installs a Verifier on f (before it serves): bootstrap is the
// address of its bootstrap port, hosts the -client-host rules (their hosts
// name the proxy too).
func NewVerifier(f *Forwarder, bootstrap string, hosts ClientHosts) *Verifier {
	v := &Verifier{f: f, bootstrap: bootstrap, hosts: map[string]bool{}, byKey: map[int16]int64{}}
	for _, h := range hosts {
		v.hosts[h.Host] = true
	}
	f.onResponse = v.check
	dial := f.dial
	f.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err == nil {
			log.Printf("proxy: verify: upstream connection %s -> %s", c.LocalAddr(), addr)
		}
		return c, err
	}
	return v
}

func (v *Verifier) check(key, version int16, body []byte) {
	req := kmsg.RequestForKey(key)
	if req == nil {
		log.Printf("proxy: verify: LEAK? answer of unknown api %d", key)
		v.leaks.Add(1)
		return
	}
	resp := req.ResponseKind()
	resp.SetVersion(version)
	if err := resp.ReadFrom(body); err != nil {
		log.Printf("proxy: verify: api %d v%d answer does not decode: %v", key, version, err)
		v.leaks.Add(1)
		return
	}
	own := v.f.ports.Addrs()
	ok := map[string]bool{v.bootstrap: true}
	for _, a := range own {
		ok[a] = true
		_, port, _ := net.SplitHostPort(a)
		for h := range v.hosts {
			ok[net.JoinHostPort(h, port)] = true
		}
	}
	walkAddrs(reflect.ValueOf(resp), func(host string, port int32) {
		v.addrs.Add(1)
		if host == "" && port <= 0 {
			return // an error entry (FindCoordinator's -1 node)
		}
		if a := net.JoinHostPort(host, itoa(port)); !ok[a] {
			v.leaks.Add(1)
			log.Printf("proxy: verify: LEAK api %d v%d: address %s is not one of the proxy's ports", key, version, a)
		}
	})
	v.checked.Add(1)
	v.mu.Lock()
	v.byKey[key]++
	v.mu.Unlock()
}

// Summary logs what the verifier checked and the leaks it found.
func (v *Verifier) Summary() {
	v.mu.Lock()
	defer v.mu.Unlock()
	log.Printf("proxy: verify: %d answers decoded (by api key %v), %d broker addresses, %d leaks", v.checked.Load(), v.byKey, v.addrs.Load(), v.leaks.Load())
}

func itoa(p int32) string { return strconv.Itoa(int(p)) }

// walkAddrs calls f for every struct reachable from v that has a string
// field Host and an int32 field Port.
func walkAddrs(v reflect.Value, f func(string, int32)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkAddrs(v.Elem(), f)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			walkAddrs(v.Index(i), f)
		}
	case reflect.Struct:
		h, p := v.FieldByName("Host"), v.FieldByName("Port")
		if h.IsValid() && p.IsValid() && h.Kind() == reflect.String && p.Kind() == reflect.Int32 {
			f(h.String(), int32(p.Int()))
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walkAddrs(v.Field(i), f)
			}
		}
	}
}
