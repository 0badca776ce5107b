package proxy

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/credential"
	"github.com/kmeta-go/kmeta/internal/proxytest"
)

// saslFrames are seeds through every authentication state: handshakes
// (known and unknown mechanisms, twice, v0), PLAIN right and wrong,
// SCRAM's first message, requests before and after authentication.
func saslFrames() [][]byte {
	hs := func(mech string, v int16) []byte {
		r := kmsg.NewPtrSASLHandshakeRequest()
		r.Version, r.Mechanism = v, mech
		return requestFrame(r, 1)
	}
	au := func(msg string) []byte {
		r := kmsg.NewPtrSASLAuthenticateRequest()
		r.Version, r.SASLAuthBytes = 2, []byte(msg)
		return requestFrame(r, 2)
	}
	cl, _ := credential.NewScramClient(credential.SHA512, "bob", "bob-secret", false, nil)
	join := func(fs ...[]byte) []byte { return bytes.Join(fs, nil) }
	ok := join(hs("PLAIN", 1), au("\x00alice\x00alice-secret"))
	return [][]byte{
		join(ok, requestFrame(produceV9("bench"), 3), requestFrame(produceV9("secret"), 4), requestFrame(metadataV12(), 5)),
		join(ok, hs("PLAIN", 1), au("\x00alice\x00alice-secret"), requestFrame(metadataV12(), 5)),
		join(hs("PLAIN", 1), au("\x00alice\x00wrong")),
		join(hs("SCRAM-SHA-512", 1), au(string(cl.First())), au("c=biws,r=x,p=AAAA")),
		join(hs("GSSAPI", 1)), join(hs("PLAIN", 0)), join(hs("PLAIN", 1), hs("PLAIN", 1)),
		join(au("x")), join(requestFrame(metadataV12(), 1)), join(ok, hs("SCRAM-SHA-512", 1)),
	}
}

// FuzzServeSASL drives a forwarder whose listener requires SASL (PLAIN and
// SCRAM-SHA-512) and authorizes every request, over a connection, with any
// bytes: nothing panics or hangs (the connection ends within 10 s of the
// client's last byte), every answer is a whole frame, and nothing reaches
// upstream before a client authenticated.
func FuzzServeSASL(f *testing.F) {
	for _, s := range saslFrames() {
		f.Add(s)
	}
	for _, fr := range proxytest.IssueFrames() {
		f.Add(fr)
	}
	acls := []image.ACL{{ResourceType: int8(authz.ResourceTopic), ResourceName: "bench", PatternType: int8(authz.PatternLiteral), Principal: "User:alice", Host: "*", Operation: int8(authz.OpWrite), PermissionType: int8(authz.PermissionAllow)}}
	acls[0].ID[15] = 1
	b := image.NewBuilder(nil)
	b.PutACLs(acls, nil)
	fw, addr := saslForwarder(f, authz.New(b.Image(image.EmptyProvenance).ACLs(), authz.Config{}), 0)
	f.Fuzz(func(t *testing.T, stream []byte) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		before := fw.stats.Forwarded.Load()
		c.Write(stream)
		c.(*net.TCPConn).CloseWrite()
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		all, err := io.ReadAll(c)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("connection still open 10 s after the client's last byte")
		}
		for len(all) >= 4 {
			n := int(binary.BigEndian.Uint32(all))
			if n < 4 || n > len(all)-4 {
				t.Fatalf("answer frame of %d bytes, %d left", n, len(all)-4)
			}
			all = all[4+n:]
		}
		if len(all) != 0 {
			t.Fatalf("%d bytes of a partial answer", len(all))
		}
		if !bytes.Contains(stream, []byte("alice-secret")) && fw.stats.Forwarded.Load() != before {
			t.Fatal("forwarded without an authentication")
		}
	})
}

// FuzzTLSHandshake sends any bytes to a TLS listener instead of a TLS
// handshake: the acceptor neither panics nor serves the connection, and
// closes it within the handshake bound (2 s here).
func FuzzTLSHandshake(f *testing.F) {
	f.Add([]byte{0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5})
	f.Add([]byte{0x16, 0x03, 0x03, 0xff, 0xff})
	f.Add(requestFrame(metadataV12(), 1))
	f.Add([]byte{})
	certs := proxytest.WriteCerts(f, f.TempDir())
	cfg, err := ListenerTLS(certs.ServerCert, certs.ServerKey, ClientAuthNone, "")
	if err != nil {
		f.Fatal(err)
	}
	lim := DefaultLimits()
	lim.RequestTimeout = 2 * time.Second
	a := newAcceptor(lim, nil, &connLog{})
	a.tls = cfg
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	defer ln.Close()
	served := make(chan struct{}, 1)
	go a.serve(ln, func(c net.Conn, _ *session) { served <- struct{}{}; c.Close() })
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write(b)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = io.Copy(io.Discard, c)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatal("a garbage handshake held for 5 s")
		}
		select {
		case <-served:
			t.Fatal("a connection was served without a TLS handshake")
		default:
		}
	})
}
