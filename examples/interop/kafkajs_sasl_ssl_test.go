package interop

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kmeta-go/kmeta/internal/proxytest"
)

// TestForwardKafkajsSASLSSL is TestForwardFranzSASLSSL for kafkajs 2.2.4
// (node): SCRAM-SHA-512 over TLS through the proxy, 10 000 messages
// produced (idempotent, acks=-1) and consumed with a consumer group with
// no loss, duplicate or reordering; the denied topic's produce fails with
// TOPIC_AUTHORIZATION_FAILED; a wrong password and an unknown user fail to
// connect with kafkajs' KafkaJSSASLAuthenticationError carrying Kafka's
// SASL_AUTHENTICATION_FAILED message. Delegation tokens (kafkajs' SCRAM
// client with the tokenauth extension, through its authenticationProvider
// hook: kafkajs has no token option): alice's live token produces as
// User:alice (the denied topic stays denied), her expired one fails with
// SASL_AUTHENTICATION_FAILED. Skipped where node or kafkajs is absent.
func TestForwardKafkajsSASLSSL(t *testing.T) {
	u := startUpstream(t, 3, kfake.SeedTopics(3, "sasl-orders", "sasl-secret"))
	watch := watchUpstreamTopics(t, u, "sasl-orders", "sasl-secret")
	certs := proxytest.WriteCerts(t, t.TempDir())
	dir, toks := saslMetadataDirTokens(t)
	p := startForwarder(t, u, "-metadata.dir", dir, "-tls.cert", certs.ServerCert, "-tls.key", certs.ServerKey,
		"-sasl.enabled.mechanisms", "SCRAM-SHA-512", "-delegation.token.secret.key", saslTokenKey)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env := []string{"KAFKAJS_SSL_CA=" + certs.CA, "KAFKAJS_SASL_USER=alice"}
	k := startKafkajs(t, ctx, p.bootstrap, append(env, "KAFKAJS_SASL_PASSWORD=alice-pass")...)
	msgs := workload(10000, 20)
	for i := 0; i < len(msgs); i += 1000 {
		if err := k.produce("sasl-orders", msgs[i:min(i+1000, len(msgs))]); err != nil {
			t.Fatal(err)
		}
	}
	err := k.produce("sasl-secret", msgs[:1])
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "authorization failed") {
		t.Errorf("produce to the denied topic: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	got, err := k.consume("sasl-orders", int64(len(msgs)))
	if err != nil {
		t.Fatal(err)
	}
	checkConsumed(t, "kafkajs SASL_SSL", msgs, got)

	for _, c := range []struct{ user, pass string }{{"alice", "wrong"}, {"mallory", "x"}} {
		bad := startKafkajs(t, ctx, p.bootstrap, "KAFKAJS_SSL_CA="+certs.CA, "KAFKAJS_SASL_USER="+c.user, "KAFKAJS_SASL_PASSWORD="+c.pass)
		err := bad.produce("sasl-orders", msgs[:1])
		if err == nil || !strings.Contains(err.Error(), "KafkaJSSASLAuthenticationError: SASL SCRAM SHA512 authentication failed: "+scramFailedMsg) {
			t.Errorf("%s/%s: %v, want SASL_AUTHENTICATION_FAILED (%q)", c.user, c.pass, err, scramFailedMsg)
		}
	}
	token := func(id string) *kafkajsProc {
		return startKafkajs(t, ctx, p.bootstrap, "KAFKAJS_SSL_CA="+certs.CA, "KAFKAJS_SASL_TOKEN=1",
			"KAFKAJS_SASL_USER="+id, "KAFKAJS_SASL_PASSWORD="+toks.password(t, id))
	}
	live := token(toks.Live)
	if err := live.produce("sasl-orders", msgs[:1]); err != nil {
		t.Errorf("produce with alice's live token: %v", err)
	}
	if err := live.produce("sasl-secret", msgs[:1]); err == nil || !strings.Contains(strings.ToLower(err.Error()), "authorization failed") {
		t.Errorf("produce to the denied topic with alice's token: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	err = token(toks.Expired).produce("sasl-orders", msgs[:1])
	if err == nil || !strings.Contains(err.Error(), "KafkaJSSASLAuthenticationError: SASL SCRAM SHA512 authentication failed: "+scramFailedMsg) {
		t.Errorf("expired token: %v, want SASL_AUTHENTICATION_FAILED (%q)", err, scramFailedMsg)
	}
	watch.checkDeniedUnseen(t, "kafkajs", "sasl-orders", "sasl-secret")
	p.stop(u)
}
