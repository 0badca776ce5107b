package interop

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/delta/deltatest/kafkalog"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/credential"
	"github.com/kmeta-go/kmeta/internal/proxytest"
)

// scramFailedMsg is the message of Kafka's SASL_AUTHENTICATION_FAILED for a
// failed SCRAM-SHA-512 login (SaslServerAuthenticator: a SaslException's own
// text is not sent, lest it tell which users exist).
const scramFailedMsg = "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"

// saslTokenKey is the delegation.token.secret.key of the SASL tests' proxy
// (-delegation.token.secret.key).
const saslTokenKey = "interop-token-secret"

// saslTokens are the delegation tokens of alice saslMetadataDirTokens
// writes, by id.
type saslTokens struct {
	// Live expires in 24 hours (CreateDelegationToken's default).
	Live string
	// Expired was expired by ExpireDelegationToken with a negative period:
	// DelegationTokenControlManager.expireDelegationToken removes it with a
	// RemoveDelegationTokenRecord, as sweepExpiredDelegationTokens removes
	// a token past its expiry.
	Expired string
	// Lapsed is past its expiry (a 1 ms lifetime) but still in the image,
	// as a token is until the controller's next sweep
	// (delegation.token.expiry.check.interval.ms, 1 hour).
	Lapsed string
}

// password is a token's password (DelegationToken.hmacAsBase64String).
func (saslTokens) password(t *testing.T, id string) string {
	p, err := credential.TokenPassword(saslTokenKey, id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// saslMetadataDir writes a metadata directory (as a controller writes it)
// with a SCRAM-SHA-512 credential for alice and an ACL denying her
// everything on topic sasl-secret.
func saslMetadataDir(t *testing.T) string {
	dir, _ := saslMetadataDirTokens(t)
	return dir
}

// saslMetadataDirTokens is saslMetadataDir with alice's delegation tokens,
// on a clock that starts now (a token's expiry is checked against the
// proxy's clock).
func saslMetadataDirTokens(t *testing.T) (string, saslTokens) {
	sim := deltatest.MustNew(deltatest.Config{Start: time.Now()})
	if err := sim.AddBrokers(1); err != nil {
		t.Fatal(err)
	}
	if err := sim.UpsertScramCredential("alice", deltatest.ScramSHA512, 4096, "alice-pass"); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.CreateACL(image.ACL{ResourceType: 2, ResourceName: "sasl-secret", PatternType: 3, Principal: "User:alice", Host: "*", Operation: 2, PermissionType: 2}); err != nil {
		t.Fatal(err)
	}
	var toks saslTokens
	var err error
	if toks.Live, err = sim.CreateDelegationToken("User:alice", nil, 0); err != nil {
		t.Fatal(err)
	}
	if toks.Expired, err = sim.CreateDelegationToken("User:alice", nil, 0); err != nil {
		t.Fatal(err)
	}
	if err := sim.ExpireDelegationToken(toks.Expired, -1); err != nil {
		t.Fatal(err)
	}
	if toks.Lapsed, err = sim.CreateDelegationToken("User:alice", nil, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "__cluster_metadata-0")
	l, err := kafkalog.Create(dir, 0, kafkalog.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.AppendSim(sim.Batches()...); err != nil {
		t.Fatal(err)
	}
	return dir, toks
}

// TestForwardFranzSASLSSL: franz-go over SASL_SSL with SCRAM-SHA-512
// through the proxy (TLS listeners, SCRAM credentials and ACLs from a
// followed metadata directory) to a 3-node kfake cluster: 10 000 keyed
// messages produced (acks=all, idempotent) and consumed with no loss,
// duplicate or reordering; a produce to the denied topic fails with
// TOPIC_AUTHORIZATION_FAILED and upstream handles no Produce or Fetch for
// it (upstreamTopicWatch; so in every client's SASL test); a wrong password and an unknown user fail
// with SASL_AUTHENTICATION_FAILED. Delegation tokens (franz-go's
// scram.Auth IsToken: the tokenauth extension): alice's live token logs in
// as User:alice (the denied topic stays denied), her expired one fails
// with SASL_AUTHENTICATION_FAILED, as Kafka's ScramSaslServer fails a token
// id its DelegationTokenCache no longer holds. A lapsed token (past its
// expiry, not yet swept) logs in, as Kafka's does, with a session lifetime
// of 0 (SaslServerAuthenticator.calcCompletionTimesAndReturnSessionLifetimeMs),
// and its first request closes the connection, as SocketServer's Processor
// closes a channel whose session expired: nothing is served.
func TestForwardFranzSASLSSL(t *testing.T) {
	u := startUpstream(t, 3, kfake.SeedTopics(3, "sasl-orders", "sasl-secret"))
	watch := watchUpstreamTopics(t, u, "sasl-orders", "sasl-secret")
	certs := proxytest.WriteCerts(t, t.TempDir())
	dir, toks := saslMetadataDirTokens(t)
	p := startForwarder(t, u, "-metadata.dir", dir, "-tls.cert", certs.ServerCert, "-tls.key", certs.ServerKey,
		"-sasl.enabled.mechanisms", "SCRAM-SHA-512", "-delegation.token.secret.key", saslTokenKey)
	ca, err := os.ReadFile(certs.CA)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	clientAuth := func(auth scram.Auth, opts ...kgo.Opt) *kgo.Client {
		cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(p.bootstrap),
			kgo.DialTLSConfig(&tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}),
			kgo.SASL(auth.AsSha512Mechanism()),
			kgo.RequiredAcks(kgo.AllISRAcks()), kgo.RecordRetries(5), kgo.MetadataMinAge(50 * time.Millisecond)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		return cl
	}
	client := func(user, pass string, opts ...kgo.Opt) *kgo.Client {
		return clientAuth(scram.Auth{User: user, Pass: pass}, opts...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prod := client("alice", "alice-pass", kgo.DefaultProduceTopic("sasl-orders"), kgo.ProducerLinger(5*time.Millisecond))
	msgs := workload(10000, 20)
	for i := 0; i < len(msgs); i += 500 {
		rs := make([]*kgo.Record, 0, 500)
		for _, m := range msgs[i:min(i+500, len(msgs))] {
			rs = append(rs, &kgo.Record{Key: []byte(m.Key), Value: []byte(m.value())})
		}
		if err := prod.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
	}
	cons := client("alice", "alice-pass", kgo.ConsumeTopics("sasl-orders"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var got []consumed
	for deadline := time.Now().Add(time.Minute); len(got) < len(msgs) && time.Now().Before(deadline); {
		pctx, pcancel := context.WithTimeout(ctx, 3*time.Second)
		fs := cons.PollFetches(pctx)
		pcancel()
		fs.EachRecord(func(r *kgo.Record) {
			got = append(got, consumed{Partition: r.Partition, Offset: r.Offset, Key: string(r.Key), Value: string(r.Value)})
		})
	}
	checkConsumed(t, "franz-go SASL_SSL", msgs, got)

	err = prod.ProduceSync(ctx, &kgo.Record{Topic: "sasl-secret", Value: []byte("x")}).FirstErr()
	if !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Errorf("produce to the denied topic: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	franzSASLRefusals(t, ctx, p, toks, clientAuth)
	watch.checkDeniedUnseen(t, "franz-go", "sasl-orders", "sasl-secret")
	p.stop(u)
}

// franzSASLRefusals is TestForwardFranzSASLSSL's logins other than alice's
// password: a wrong password, an unknown user and an expired token
// refused with Kafka's SASL_AUTHENTICATION_FAILED; alice's live token
// served as User:alice; a lapsed token's first request closing the
// connection.
func franzSASLRefusals(t *testing.T, ctx context.Context, p *fwdProxy, toks saslTokens, clientAuth func(scram.Auth, ...kgo.Opt) *kgo.Client) {
	t.Helper()
	ping := func(cl *kgo.Client) error {
		pctx, pcancel := context.WithTimeout(ctx, 10*time.Second)
		defer pcancel()
		return cl.Ping(pctx)
	}
	token := func(id string) scram.Auth { return scram.Auth{User: id, Pass: toks.password(t, id), IsToken: true} }
	for _, c := range []struct {
		name string
		auth scram.Auth
	}{
		{"wrong password", scram.Auth{User: "alice", Pass: "wrong"}},
		{"unknown user", scram.Auth{User: "mallory", Pass: "x"}},
		{"expired token", token(toks.Expired)},
	} {
		err := ping(clientAuth(c.auth))
		if !errors.Is(err, kerr.SaslAuthenticationFailed) || !strings.Contains(err.Error(), scramFailedMsg) {
			t.Errorf("%s: %v, want SASL_AUTHENTICATION_FAILED (%q)", c.name, err, scramFailedMsg)
		}
	}

	live := clientAuth(token(toks.Live))
	if err := ping(live); err != nil {
		t.Errorf("live token: %v", err)
	}
	err := live.ProduceSync(ctx, &kgo.Record{Topic: "sasl-secret", Value: []byte("x")}).FirstErr()
	if !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Errorf("produce to the denied topic with alice's token: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	err = ping(clientAuth(token(toks.Lapsed), kgo.RequestRetries(1)))
	if err == nil {
		t.Error("a lapsed token's session was served")
	}
	p.mu.Lock()
	cut := 0
	for _, l := range p.lines {
		if strings.Contains(l, "closed: session expired without re-authentication") {
			cut++
		}
	}
	p.mu.Unlock()
	if cut == 0 {
		t.Errorf("lapsed token: %v; no connection closed for its expired session", err)
	}
	t.Logf("lapsed token: %d connections closed at their first request: %v", cut, err)
}
