package proxytest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Certs are the PEM files of a test CA and of a server and a client
// certificate it signed.
type Certs struct {
	CA                    string // the CA's certificate
	ServerCert, ServerKey string // for 127.0.0.1 and localhost
	ClientCert, ClientKey string // subject CN=alice,OU=ServiceUsers,O=kmeta
	ca                    *x509.Certificate
	caKey                 *ecdsa.PrivateKey
}

// WriteCerts writes a CA and a server and a client certificate into dir.
func WriteCerts(tb testing.TB, dir string) *Certs {
	tb.Helper()
	c := &Certs{CA: filepath.Join(dir, "ca.pem")}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kmeta test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	c.ca, _ = x509.ParseCertificate(der)
	c.caKey = key
	writePEM(tb, c.CA, "CERTIFICATE", der)
	c.ServerCert, c.ServerKey = c.Issue(tb, dir, "server", pkix.Name{CommonName: "localhost"}, 2)
	c.ClientCert, c.ClientKey = c.Issue(tb, dir, "client", pkix.Name{CommonName: "alice", OrganizationalUnit: []string{"ServiceUsers"}, Organization: []string{"kmeta"}}, 3)
	return c
}

// Issue writes a certificate and key for subject, signed by the CA, as
// dir/name.pem and dir/name-key.pem (valid for 127.0.0.1 and localhost,
// as a server and as a client), and returns their paths.
func (c *Certs) Issue(tb testing.TB, dir, name string, subject pkix.Name, serial int64) (cert, key string) {
	tb.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: subject,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		DNSNames:    []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.ca, &k.PublicKey, c.caKey)
	if err != nil {
		tb.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		tb.Fatal(err)
	}
	cert, key = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	writePEM(tb, cert, "CERTIFICATE", der)
	writePEM(tb, key, "EC PRIVATE KEY", kb)
	return cert, key
}

func writePEM(tb testing.TB, path, typ string, der []byte) {
	tb.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		tb.Fatal(err)
	}
}
