package proxy

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestVerifierFindsLeaks: -verify's check, which the real-client suite
// relies on to prove no upstream address reaches a client, counts an
// address that is not one of the proxy's ports wherever a response carries
// it (Metadata brokers, FindCoordinator's batched coordinators, KIP-951
// NodeEndpoints nested in a Produce answer), and none for the proxy's own
// ports, under -client-host's hosts too, or FindCoordinator's error entry.
func TestVerifierFindsLeaks(t *testing.T) {
	u := newFakeUpstream(t, 0)
	f, addr := benchForwarder(t, u)
	v := NewVerifier(f, "127.0.0.1:1", ClientHosts{{ClientIDPrefix: "in-", Host: "proxy.internal"}})
	ep, err := ParseEndpoint(addr)
	require.NoError(t, err)
	up, err := ParseEndpoint(u.ln.Addr().String())
	require.NoError(t, err)
	host, port, upHost, upPort := ep.Host, ep.Port, up.Host, up.Port

	md := kmsg.NewPtrMetadataResponse()
	md.Version = 12
	for _, hp := range []struct {
		h string
		p int32
	}{{host, port}, {"proxy.internal", port}, {upHost, upPort}} {
		b := kmsg.NewMetadataResponseBroker()
		b.Host, b.Port = hp.h, hp.p
		md.Brokers = append(md.Brokers, b)
	}
	v.check(3, 12, md.AppendTo(nil))
	require.Equal(t, int64(1), v.leaks.Load(), "the upstream broker of three")

	fc := kmsg.NewPtrFindCoordinatorResponse()
	fc.Version = 4
	ok, bad, none := kmsg.NewFindCoordinatorResponseCoordinator(), kmsg.NewFindCoordinatorResponseCoordinator(), kmsg.NewFindCoordinatorResponseCoordinator()
	ok.Host, ok.Port = host, port
	bad.Host, bad.Port = "10.1.2.3", port
	none.NodeID, none.Port = -1, -1
	fc.Coordinators = append(fc.Coordinators, ok, bad, none)
	v.check(10, 4, fc.AppendTo(nil))
	require.Equal(t, int64(2), v.leaks.Load(), "a coordinator on a proxy port under a foreign host")

	pr := kmsg.NewPtrProduceResponse()
	pr.Version = 11
	nb := kmsg.NewProduceResponseBroker()
	nb.NodeID, nb.Host, nb.Port = 2, upHost, upPort
	pr.Brokers = append(pr.Brokers, nb)
	v.check(0, 11, pr.AppendTo(nil))
	require.Equal(t, int64(3), v.leaks.Load(), "a KIP-951 node endpoint")
	require.Equal(t, int64(3), v.checked.Load())
}
