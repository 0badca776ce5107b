package proxy

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log"
	"os"
	"sync"
	"time"
)

// ClientAuth is Kafka's ssl.client.auth: none, requested or required.
type ClientAuth int8

// The values of ssl.client.auth.
const (
	ClientAuthNone      ClientAuth = iota // no client certificate asked for
	ClientAuthRequested                   // asked for, verified if given
	ClientAuthRequired                    // required and verified
)

// ParseClientAuth parses ssl.client.auth ("none", "requested",
// "required"; "" is none, Kafka's default).
func ParseClientAuth(s string) (ClientAuth, error) {
	switch s {
	case "", "none":
		return ClientAuthNone, nil
	case "requested":
		return ClientAuthRequested, nil
	case "required":
		return ClientAuthRequired, nil
	}
	return 0, fmt.Errorf("ssl.client.auth %q: want none, requested or required", s)
}

// CertReloader serves a certificate and key from PEM files and reloads
// them when either file changes (checked at most once a second, on the
// handshakes that follow), without a restart; a reload that fails keeps the
// last good pair and is logged. Use GetCertificate for a listener and
// GetClientCertificate for a client.
type CertReloader struct {
	certFile, keyFile string

	mu      sync.Mutex
	cert    *tls.Certificate
	stamp   [2]fileStamp
	checked time.Time
}

type fileStamp struct {
	mod  time.Time
	size int64
}

// NewCertReloader loads the pair once (an error if it cannot) and returns
// the reloader.
func NewCertReloader(certFile, keyFile string) (*CertReloader, error) {
	r := &CertReloader{certFile: certFile, keyFile: keyFile}
	if err := r.load(); err != nil {
		return nil, err
	}
	return r, nil
}

func stampOf(path string) fileStamp {
	st, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{st.ModTime(), st.Size()}
}

func (r *CertReloader) load() error {
	stamps := [2]fileStamp{stampOf(r.certFile), stampOf(r.keyFile)}
	c, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		return fmt.Errorf("loading %s and %s: %w", r.certFile, r.keyFile, err)
	}
	r.cert, r.stamp = &c, stamps
	return nil
}

// current returns the pair, reloaded first if a file changed.
func (r *CertReloader) current() *tls.Certificate {
	r.mu.Lock()
	defer r.mu.Unlock()
	if now := time.Now(); now.Sub(r.checked) >= time.Second {
		r.checked = now
		if [2]fileStamp{stampOf(r.certFile), stampOf(r.keyFile)} != r.stamp {
			if err := r.load(); err != nil {
				log.Printf("proxy: certificate not reloaded, the last one is kept: %v", err)
			} else {
				log.Printf("proxy: certificate %s reloaded", r.certFile)
			}
		}
	}
	return r.cert
}

// GetCertificate is tls.Config.GetCertificate.
func (r *CertReloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return r.current(), nil
}

// GetClientCertificate is tls.Config.GetClientCertificate.
func (r *CertReloader) GetClientCertificate(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	return r.current(), nil
}

// loadPool reads PEM certificates into a pool.
func loadPool(file string) (*x509.CertPool, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%s: no PEM certificate", file)
	}
	return p, nil
}

// ListenerTLS is the TLS configuration of a client listener: the
// certificate and key files (reloaded when they change), and with
// ssl.client.auth requested or required the CA file client certificates
// are verified against. TLS 1.2 at least, as Kafka's ssl.enabled.protocols
// default (TLSv1.2,TLSv1.3).
func ListenerTLS(certFile, keyFile string, auth ClientAuth, clientCAFile string) (*tls.Config, error) {
	r, err := NewCertReloader(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{GetCertificate: r.GetCertificate, MinVersion: tls.VersionTLS12}
	if auth != ClientAuthNone {
		if clientCAFile == "" {
			return nil, fmt.Errorf("ssl.client.auth %v needs a CA file to verify client certificates", auth)
		}
		if cfg.ClientCAs, err = loadPool(clientCAFile); err != nil {
			return nil, err
		}
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
		if auth == ClientAuthRequired {
			cfg.ClientAuth = tls.RequireAndVerifyClientCert
		}
	}
	return cfg, nil
}

// UpstreamTLS is the TLS configuration of the proxy's connections to the
// cluster: the CA file to verify brokers against (the system's roots if
// empty), an optional client certificate and key (reloaded when they
// change), and the server name to verify (each broker's host if empty).
func UpstreamTLS(caFile, certFile, keyFile, serverName string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName}
	if caFile != "" {
		p, err := loadPool(caFile)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = p
	}
	if certFile != "" || keyFile != "" {
		r, err := NewCertReloader(certFile, keyFile)
		if err != nil {
			return nil, err
		}
		cfg.GetClientCertificate = r.GetClientCertificate
	}
	return cfg, nil
}
