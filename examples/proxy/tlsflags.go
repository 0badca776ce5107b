package main

import (
	"crypto/tls"
	"flag"

	"github.com/kmeta-go/kmeta/epoch/proxy"
)

// tlsFlags are the TLS flags of both modes: the client listeners' and, in
// upstream mode, the connections to the cluster.
type tlsFlags struct {
	cert, key, clientAuth, clientCA, rules string
	upstream                               bool
	upCA, upCert, upKey, upServerName      string
}

func newTLSFlags(fs *flag.FlagSet) *tlsFlags {
	t := &tlsFlags{}
	fs.StringVar(&t.cert, "tls.cert", "", "PEM certificate (chain) file of the client listeners: TLS for every client (reloaded when it changes)")
	fs.StringVar(&t.key, "tls.key", "", "PEM private key file of -tls.cert")
	fs.StringVar(&t.clientAuth, "ssl.client.auth", "none", "client certificates: none, requested or required (Kafka's ssl.client.auth)")
	fs.StringVar(&t.clientCA, "tls.client.ca", "", "PEM CA file client certificates are verified against")
	fs.StringVar(&t.rules, "ssl.principal.mapping.rules", "DEFAULT", "client certificate subject to principal name (Kafka's ssl.principal.mapping.rules)")
	fs.BoolVar(&t.upstream, "upstream.tls", false, "speak TLS to the cluster (-upstream)")
	fs.StringVar(&t.upCA, "upstream.tls.ca", "", "PEM CA file the cluster's certificates are verified against (default: the system's)")
	fs.StringVar(&t.upCert, "upstream.tls.cert", "", "PEM client certificate file the proxy presents to the cluster")
	fs.StringVar(&t.upKey, "upstream.tls.key", "", "PEM private key file of -upstream.tls.cert")
	fs.StringVar(&t.upServerName, "upstream.tls.server.name", "", "server name verified in the cluster's certificates (default: each broker's host)")
	return t
}

// listener is the client listeners' TLS configuration and principal
// mapper, nil without -tls.cert.
func (t *tlsFlags) listener() (*tls.Config, *proxy.PrincipalMapper, error) {
	if t.cert == "" && t.key == "" {
		return nil, nil, nil
	}
	auth, err := proxy.ParseClientAuth(t.clientAuth)
	if err != nil {
		return nil, nil, err
	}
	m, err := proxy.ParsePrincipalMappingRules(t.rules)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := proxy.ListenerTLS(t.cert, t.key, auth, t.clientCA)
	return cfg, m, err
}

// upstreamConfig is the TLS configuration to the cluster, nil without
// -upstream.tls.
func (t *tlsFlags) upstreamConfig() (*tls.Config, error) {
	if !t.upstream {
		return nil, nil
	}
	return proxy.UpstreamTLS(t.upCA, t.upCert, t.upKey, t.upServerName)
}
