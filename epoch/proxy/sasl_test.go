package proxy

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/credential"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// saslForwarder is a forwarder whose client ports require SASL (PLAIN
// user alice/alice-secret; SCRAM-SHA-512 user bob/bob-secret from an
// image), authorizing with a (nil: pass-through).
func saslForwarder(t testing.TB, a authz.Authorizer, maxReauth time.Duration) (*Forwarder, string) {
	cred, err := credential.SHA512.CredentialFromPassword("bob-secret", []byte("salt-of-bob"), 4096)
	require.NoError(t, err)
	b := image.NewBuilder(nil)
	b.PutScram(map[image.ScramKey]*image.ScramCredential{{Mechanism: int8(credential.SHA512), User: "bob"}: &cred})
	img := b.Image(image.EmptyProvenance)
	u := newFakeUpstream(t, 0)
	f, addr := benchForwarderWith(t, u, func(f *Forwarder) {
		f.sasl = &SASLConfig{Mechanisms: []string{"PLAIN", "SCRAM-SHA-512"}, PlainUsers: map[string]string{"alice": "alice-secret"},
			Image: func() *image.Image { return img }, MaxReauth: maxReauth, tokens: credential.NewTokenCache(10)}
		if a != nil {
			f.passThrough, f.authz = false, a
		}
	})
	return f, addr
}

func handshake(t *testing.T, c net.Conn, mech string, corr int32) *kmsg.SASLHandshakeResponse {
	req := kmsg.NewPtrSASLHandshakeRequest()
	req.Version, req.Mechanism = 1, mech
	resp := kmsg.NewPtrSASLHandshakeResponse()
	resp.Version = 1
	require.NoError(t, roundTrip(c, req, resp, corr))
	return resp
}

func authenticate(t *testing.T, c net.Conn, msg []byte, corr int32) *kmsg.SASLAuthenticateResponse {
	req := kmsg.NewPtrSASLAuthenticateRequest()
	req.Version, req.SASLAuthBytes = 2, msg
	resp := kmsg.NewPtrSASLAuthenticateResponse()
	resp.Version = 2
	require.NoError(t, roundTrip(c, req, resp, corr))
	return resp
}

func produceV9(topic string) *kmsg.ProduceRequest {
	r := kmsg.NewPtrProduceRequest()
	r.Version, r.Acks, r.TimeoutMillis = 9, -1, 1000
	t := kmsg.NewProduceRequestTopic()
	t.Topic = topic
	t.Partitions = []kmsg.ProduceRequestTopicPartition{kmsg.NewProduceRequestTopicPartition()}
	r.Topics = append(r.Topics, t)
	return r
}

// TestSASLPlain: PLAIN as Kafka's PlainSaslServer: the right password
// authenticates User:alice and requests are served; a wrong password,
// an unknown user, a different authorization id each get
// SASL_AUTHENTICATION_FAILED with Kafka's message and the connection is
// closed; a request before authentication closes the connection; an
// unknown mechanism gets UNSUPPORTED_SASL_MECHANISM with the enabled ones.
func TestSASLPlain(t *testing.T) {
	_, addr := saslForwarder(t, nil, 0)
	c := dialT(t, addr)
	require.Equal(t, []string{"PLAIN", "SCRAM-SHA-512"}, handshake(t, c, "PLAIN", 1).SupportedMechanisms)
	r := authenticate(t, c, []byte("\x00alice\x00alice-secret"), 2)
	require.Zero(t, r.ErrorCode)
	require.NoError(t, roundTrip(c, metadataV12(), newMetadataV12Response(), 3))

	for _, bad := range []struct{ msg, want string }{
		{"\x00alice\x00wrong", "Authentication failed: Invalid username or password"},
		{"\x00mallory\x00x", "Authentication failed: Invalid username or password"},
		{"bob\x00alice\x00alice-secret", "Authentication failed: Client requested an authorization id that is different from username"},
		{"\x00\x00x", "Authentication failed: username not specified"},
	} {
		c := dialT(t, addr)
		handshake(t, c, "PLAIN", 1)
		r := authenticate(t, c, []byte(bad.msg), 2)
		require.Equal(t, int16(kafkaerr.SaslAuthenticationFailed.Int16()), r.ErrorCode)
		require.Equal(t, bad.want, *r.ErrorMessage)
		require.True(t, closedWithin(c, 5*time.Second))
	}
	early := dialT(t, addr)
	early.Write(requestFrame(metadataV12(), 1))
	require.True(t, closedWithin(early, 5*time.Second), "a request before authentication was served")

	u := dialT(t, addr)
	hr := handshake(t, u, "GSSAPI", 1)
	require.Equal(t, int16(kafkaerr.UnsupportedSaslMechanism.Int16()), hr.ErrorCode)
	require.True(t, closedWithin(u, 5*time.Second))
}

// TestSASLScramThenAuthorized: SCRAM-SHA-512 against the image's
// credential authenticates User:bob (the server's proof verified by the
// client), whose Produce is then authorized: allowed on a topic bob may
// write, TOPIC_AUTHORIZATION_FAILED on another, which never reaches
// upstream; a wrong password gets Kafka's generic SCRAM message.
func TestSASLScramThenAuthorized(t *testing.T) {
	acls := []image.ACL{{ResourceType: int8(authz.ResourceTopic), ResourceName: "bench", PatternType: int8(authz.PatternLiteral), Principal: "User:bob", Host: "*", Operation: int8(authz.OpWrite), PermissionType: int8(authz.PermissionAllow)}}
	acls[0].ID[15] = 1
	b := image.NewBuilder(nil)
	b.PutACLs(acls, nil)
	a := authz.New(b.Image(image.EmptyProvenance).ACLs(), authz.Config{})
	f, addr := saslForwarder(t, a, time.Hour)
	c := dialT(t, addr)
	handshake(t, c, "SCRAM-SHA-512", 1)
	cl, err := credential.NewScramClient(credential.SHA512, "bob", "bob-secret", false, nil)
	require.NoError(t, err)
	r := authenticate(t, c, cl.First(), 2)
	require.Zero(t, r.ErrorCode)
	final, err := cl.Final(r.SASLAuthBytes)
	require.NoError(t, err)
	r = authenticate(t, c, final, 3)
	require.Zero(t, r.ErrorCode, "%v", r.ErrorMessage)
	require.NoError(t, cl.Verify(r.SASLAuthBytes))
	require.InDelta(t, time.Hour.Milliseconds(), r.SessionLifetimeMillis, 1000, "connections.max.reauth.ms")

	before := f.stats.Forwarded.Load()
	pr := kmsg.NewPtrProduceResponse()
	pr.Version = 9
	require.NoError(t, roundTrip(c, produceV9("bench"), pr, 4))
	require.Equal(t, before+1, f.stats.Forwarded.Load())
	pr = kmsg.NewPtrProduceResponse()
	pr.Version = 9
	require.NoError(t, roundTrip(c, produceV9("secret"), pr, 5))
	require.Equal(t, int16(kafkaerr.TopicAuthorizationFailed.Int16()), pr.Topics[0].Partitions[0].ErrorCode)
	require.Equal(t, "secret", pr.Topics[0].Topic)
	require.Equal(t, before+1, f.stats.Forwarded.Load(), "the denied Produce reached upstream")

	w := dialT(t, addr)
	handshake(t, w, "SCRAM-SHA-512", 1)
	cl, _ = credential.NewScramClient(credential.SHA512, "bob", "wrong", false, nil)
	r = authenticate(t, w, cl.First(), 2)
	final, _ = cl.Final(r.SASLAuthBytes)
	r = authenticate(t, w, final, 3)
	require.Equal(t, int16(kafkaerr.SaslAuthenticationFailed.Int16()), r.ErrorCode)
	require.Equal(t, "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512", *r.ErrorMessage)
}

// TestSASLReauthentication (KIP-368): a session of connections.max.reauth.ms
// (300 ms) is renewed by a new handshake and authentication on the same
// connection with the same principal; one not renewed closes the
// connection on its next request.
func TestSASLReauthentication(t *testing.T) {
	_, addr := saslForwarder(t, nil, 300*time.Millisecond)
	plain := func(c net.Conn, user, pass string, corr int32) *kmsg.SASLAuthenticateResponse {
		handshake(t, c, "PLAIN", corr)
		return authenticate(t, c, []byte("\x00"+user+"\x00"+pass), corr+1)
	}
	c := dialT(t, addr)
	r := plain(c, "alice", "alice-secret", 1)
	require.Equal(t, int64(300), r.SessionLifetimeMillis)
	time.Sleep(200 * time.Millisecond)
	require.Zero(t, plain(c, "alice", "alice-secret", 3).ErrorCode)
	time.Sleep(200 * time.Millisecond)
	require.NoError(t, roundTrip(c, metadataV12(), newMetadataV12Response(), 5), "served within the renewed session")

	late := dialT(t, addr)
	plain(late, "alice", "alice-secret", 1)
	time.Sleep(400 * time.Millisecond)
	late.Write(requestFrame(metadataV12(), 3))
	require.True(t, closedWithin(late, 5*time.Second), "served after the session expired")
}

// TestUpstreamSASL: the proxy's own PLAIN and SCRAM-SHA-512 logins
// upstream, against a forwarder listening with SASL (as a cluster would):
// each authenticates, a wrong password fails with the server's error.
func TestUpstreamSASL(t *testing.T) {
	_, addr := saslForwarder(t, nil, 0)
	for _, s := range []UpstreamSASL{{Mechanism: "PLAIN", User: "alice", Password: "alice-secret"}, {Mechanism: "SCRAM-SHA-512", User: "bob", Password: "bob-secret"}} {
		var d net.Dialer
		c, err := saslDialer(d.DialContext, s, 5*time.Second)(context.Background(), "tcp", addr)
		require.NoError(t, err, s.Mechanism)
		require.NoError(t, roundTrip(c, metadataV12(), newMetadataV12Response(), 9))
		c.Close()
		s.Password = "wrong"
		_, err = saslDialer(d.DialContext, s, 5*time.Second)(context.Background(), "tcp", addr)
		require.ErrorContains(t, err, "error 58", s.Mechanism)
	}
}

// TestProducePartlyDenied: a Produce for a topic bob may write and one he
// may not is forwarded without the denied topic, and the answer carries
// upstream's partition for the first and TOPIC_AUTHORIZATION_FAILED for
// the second, as KafkaApis merges them.
func TestProducePartlyDenied(t *testing.T) {
	acls := []image.ACL{{ResourceType: int8(authz.ResourceTopic), ResourceName: "bench", PatternType: int8(authz.PatternLiteral), Principal: "User:alice", Host: "*", Operation: int8(authz.OpWrite), PermissionType: int8(authz.PermissionAllow)}}
	acls[0].ID[15] = 1
	b := image.NewBuilder(nil)
	b.PutACLs(acls, nil)
	f, addr := saslForwarder(t, authz.New(b.Image(image.EmptyProvenance).ACLs(), authz.Config{}), 0)
	c := dialT(t, addr)
	handshake(t, c, "PLAIN", 1)
	require.Zero(t, authenticate(t, c, []byte("\x00alice\x00alice-secret"), 2).ErrorCode)
	req := produceV9("bench")
	req.Topics = append(req.Topics, produceV9("secret").Topics...)
	resp := kmsg.NewPtrProduceResponse()
	resp.Version = 9
	require.NoError(t, roundTrip(c, req, resp, 3))
	got := map[string]int16{}
	for _, tp := range resp.Topics {
		got[tp.Topic] = tp.Partitions[0].ErrorCode
	}
	require.Equal(t, map[string]int16{"bench": 0, "secret": kafkaerr.TopicAuthorizationFailed.Int16()}, got)
	require.Equal(t, int64(1), f.stats.Forwarded.Load())
	require.Equal(t, int64(1), f.stats.Denied.Load())
}

// TestSASLHandshakeV0BareTokens: after a SaslHandshake v0 the tokens are
// sent bare (a size, the token; no Kafka header), as clients without
// SaslAuthenticate do: PLAIN's token is answered with an empty bare
// token, then requests are served as User:alice; a wrong password closes
// the connection.
func TestSASLHandshakeV0BareTokens(t *testing.T) {
	_, addr := saslForwarder(t, nil, 0)
	for _, c := range []struct {
		pass string
		ok   bool
	}{{"alice-secret", true}, {"wrong", false}} {
		conn := dialT(t, addr)
		req := kmsg.NewPtrSASLHandshakeRequest()
		req.Version, req.Mechanism = 0, "PLAIN"
		resp := kmsg.NewPtrSASLHandshakeResponse()
		require.NoError(t, roundTrip(conn, req, resp, 1))
		require.Zero(t, resp.ErrorCode)
		tok := []byte("\x00alice\x00" + c.pass)
		conn.Write(append([]byte{0, 0, 0, byte(len(tok))}, tok...))
		if !c.ok {
			require.True(t, closedWithin(conn, 5*time.Second))
			continue
		}
		var empty [4]byte
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := io.ReadFull(conn, empty[:])
		require.NoError(t, err)
		require.Equal(t, [4]byte{}, empty)
		require.NoError(t, roundTrip(conn, metadataV12(), newMetadataV12Response(), 2))
	}
}

// TestSASLLapsedTokenSessionEndsAtOnce: a delegation token past its expiry
// but still in the image (until the controller's
// sweepExpiredDelegationTokens removes it) logs in, as Kafka's
// ScramSaslServer lets it, with a session lifetime of 0; Kafka's
// SaslServerAuthenticator still gives that session an expiration time
// (calcCompletionTimesAndReturnSessionLifetimeMs sets one for every token
// login), so the first request after the login closes the connection
// (SocketServer's Processor, KafkaChannel.serverAuthenticationSessionExpired),
// without connections.max.reauth.ms too. A live token's session is served
// and lasts until the token's expiry.
func TestSASLLapsedTokenSessionEndsAtOnce(t *testing.T) {
	const key = "token-secret"
	now := time.Now().UnixMilli()
	toks := map[string]*image.Token{
		"live":   {TokenID: "live", Owner: "User:alice", Requester: "User:alice", IssueTimestamp: now - 1000, MaxTimestamp: now + 3600_000, ExpirationTimestamp: now + 3600_000},
		"lapsed": {TokenID: "lapsed", Owner: "User:alice", Requester: "User:alice", IssueTimestamp: now - 2000, MaxTimestamp: now + 3600_000, ExpirationTimestamp: now - 1000},
	}
	b := image.NewBuilder(nil)
	b.PutTokens(toks)
	img := b.Image(image.EmptyProvenance)
	u := newFakeUpstream(t, 0)
	_, addr := benchForwarderWith(t, u, func(f *Forwarder) {
		f.sasl = &SASLConfig{Mechanisms: []string{"SCRAM-SHA-512"}, Image: func() *image.Image { return img },
			TokenSecretKey: key, tokens: credential.NewTokenCache(10)}
	})
	login := func(id string) (net.Conn, *kmsg.SASLAuthenticateResponse) {
		c := dialT(t, addr)
		handshake(t, c, "SCRAM-SHA-512", 1)
		pass, err := credential.TokenPassword(key, id)
		require.NoError(t, err)
		cl, err := credential.NewScramClient(credential.SHA512, id, pass, true, nil)
		require.NoError(t, err)
		r := authenticate(t, c, cl.First(), 2)
		require.Zero(t, r.ErrorCode, id)
		final, err := cl.Final(r.SASLAuthBytes)
		require.NoError(t, err)
		r = authenticate(t, c, final, 3)
		require.Zero(t, r.ErrorCode, id)
		require.NoError(t, cl.Verify(r.SASLAuthBytes))
		return c, r
	}
	live, r := login("live")
	require.InDelta(t, 3600_000, r.SessionLifetimeMillis, 5000, "the live token's remaining lifetime")
	require.NoError(t, roundTrip(live, metadataV12(), newMetadataV12Response(), 4), "served within the token's lifetime")

	lapsed, r := login("lapsed")
	require.Zero(t, r.SessionLifetimeMillis)
	lapsed.Write(requestFrame(metadataV12(), 4))
	require.True(t, closedWithin(lapsed, 5*time.Second), "a lapsed token's session was served")
}
