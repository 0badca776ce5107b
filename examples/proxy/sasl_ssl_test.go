package main

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/internal/proxytest"
)

// TestSASLSSLCommand runs the command as an operator would in front of a
// cluster: -tls.cert/-tls.key, -sasl.enabled.mechanisms PLAIN with a users
// file, -acls allowing alice DESCRIBE on topic orders only. A client over
// TLS authenticates as alice (SaslHandshake, SaslAuthenticate) and is
// served Metadata; its DeleteTopics for orders is answered
// TOPIC_AUTHORIZATION_FAILED by the proxy; a wrong password gets
// SASL_AUTHENTICATION_FAILED.
func TestSASLSSLCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	dir := t.TempDir()
	certs := proxytest.WriteCerts(t, dir)
	users := filepath.Join(dir, "users")
	os.WriteFile(users, []byte("# PLAIN users\nalice=alice-secret\n"), 0o600)
	acls := filepath.Join(dir, "acls.jsonl")
	os.WriteFile(acls, []byte(`{"type":"ACCESS_CONTROL_ENTRY_RECORD","version":0,"data":{"id":"AAAAAAAAAAAAAAAAAAAAAQ","resourceType":2,"resourceName":"orders","patternType":3,"principal":"User:alice","host":"*","operation":8,"permissionType":3}}`+"\n"), 0o600)
	u := newHostileUpstream(t, 0)
	u.setBrokers(hostileBrokers(1, u.port()))
	_, addr, logs := proxytest.StartProcess(t, "-listen", "127.0.0.1:0", "-upstream", u.ln.Addr().String(),
		"-tls.cert", certs.ServerCert, "-tls.key", certs.ServerKey,
		"-sasl.enabled.mechanisms", "PLAIN", "-sasl.plain.users", users, "-acls", acls)
	ca, _ := os.ReadFile(certs.CA)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	login := func(pass string) (*tls.Conn, *kmsg.SASLAuthenticateResponse) {
		c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
		if err != nil {
			t.Fatalf("%v\n%s", err, logs)
		}
		hs := kmsg.NewPtrSASLHandshakeRequest()
		hs.Version, hs.Mechanism = 1, "PLAIN"
		hr := kmsg.NewPtrSASLHandshakeResponse()
		hr.Version = 1
		if err := proxytest.RoundTrip(c, hs, hr, 1); err != nil || hr.ErrorCode != 0 {
			t.Fatalf("handshake: %v %d", err, hr.ErrorCode)
		}
		au := kmsg.NewPtrSASLAuthenticateRequest()
		au.Version, au.SASLAuthBytes = 2, []byte("\x00alice\x00"+pass)
		ar := kmsg.NewPtrSASLAuthenticateResponse()
		ar.Version = 2
		if err := proxytest.RoundTrip(c, au, ar, 2); err != nil {
			t.Fatal(err)
		}
		return c, ar
	}
	c, ar := login("alice-secret")
	defer c.Close()
	if ar.ErrorCode != 0 {
		t.Fatalf("login: %d", ar.ErrorCode)
	}
	md := kmsg.NewPtrMetadataResponse()
	md.Version = 12
	if err := proxytest.RoundTrip(c, proxytest.MetadataV12(), md, 3); err != nil {
		t.Fatal(err)
	}
	dt := kmsg.NewPtrDeleteTopicsRequest()
	dt.Version, dt.TopicNames = 4, []string{"orders"}
	dr := kmsg.NewPtrDeleteTopicsResponse()
	dr.Version = 4
	if err := proxytest.RoundTrip(c, dt, dr, 4); err != nil {
		t.Fatal(err)
	}
	if len(dr.Topics) != 1 || dr.Topics[0].ErrorCode != 29 {
		t.Fatalf("DeleteTopics answered %+v, want TOPIC_AUTHORIZATION_FAILED", dr.Topics)
	}
	bad, ar := login("wrong")
	defer bad.Close()
	if ar.ErrorCode != 58 {
		t.Fatalf("wrong password: error %d, want 58", ar.ErrorCode)
	}
}
