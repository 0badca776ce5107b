package interop

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kmeta-go/kmeta/image/credential"
	"github.com/kmeta-go/kmeta/internal/proxytest"
)

// saramaScram is sarama's SCRAMClient over image/credential's ScramClient
// (Kafka's ScramSaslClient): client-first, client-final, the server's
// signature verified.
type saramaScram struct {
	token bool // a delegation-token login (the tokenauth extension)
	c     *credential.ScramClient
	step  int
	done  bool
}

func (s *saramaScram) Begin(user, password, _ string) error {
	c, err := credential.NewScramClient(credential.SHA512, user, password, s.token, nil)
	s.c = c
	return err
}

func (s *saramaScram) Step(challenge string) (string, error) {
	s.step++
	switch s.step {
	case 1:
		return string(s.c.First()), nil
	case 2:
		out, err := s.c.Final([]byte(challenge))
		return string(out), err
	}
	s.done = true
	return "", s.c.Verify([]byte(challenge))
}

func (s *saramaScram) Done() bool { return s.done }

// TestForwardSaramaSASLSSL is TestForwardFranzSASLSSL for sarama: SCRAM-
// SHA-512 over TLS through the proxy, 10 000 messages produced (acks=all,
// idempotent) and consumed with no loss, duplicate or reordering; the
// denied topic's produce fails with TOPIC_AUTHORIZATION_FAILED; a wrong
// password and an unknown user with SASL_AUTHENTICATION_FAILED and Kafka's
// message. Delegation tokens (sarama's SCRAMClientGeneratorFunc, here
// with the tokenauth extension): alice's live token produces as
// User:alice, her expired one fails with SASL_AUTHENTICATION_FAILED.
func TestForwardSaramaSASLSSL(t *testing.T) {
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
	configAs := func(user, pass string, token bool) *sarama.Config {
		cfg := sarama.NewConfig()
		cfg.Version = sarama.V3_0_0_0
		cfg.Net.TLS.Enable = true
		cfg.Net.TLS.Config = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
		cfg.Net.SASL.Enable = true
		cfg.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA512
		cfg.Net.SASL.User, cfg.Net.SASL.Password = user, pass
		cfg.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &saramaScram{token: token} }
		cfg.Producer.Idempotent = true
		cfg.Producer.RequiredAcks = sarama.WaitForAll
		cfg.Producer.Return.Successes = true
		cfg.Producer.Retry.Max = 5
		cfg.Net.MaxOpenRequests = 1
		cfg.Consumer.Return.Errors = true
		return cfg
	}
	config := func(pass string) *sarama.Config { return configAs("alice", pass, false) }
	client, err := sarama.NewClient([]string{p.bootstrap}, config("alice-pass"))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	prod, err := sarama.NewSyncProducerFromClient(client)
	if err != nil {
		t.Fatal(err)
	}
	msgs := workload(10000, 20)
	for i := 0; i < len(msgs); i += 500 {
		var pms []*sarama.ProducerMessage
		for _, m := range msgs[i:min(i+500, len(msgs))] {
			pms = append(pms, &sarama.ProducerMessage{Topic: "sasl-orders", Key: sarama.StringEncoder(m.Key), Value: sarama.StringEncoder(m.value())})
		}
		if err := prod.SendMessages(pms); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err = prod.SendMessage(&sarama.ProducerMessage{Topic: "sasl-secret", Value: sarama.StringEncoder("x")})
	if !errors.Is(err, sarama.ErrTopicAuthorizationFailed) {
		t.Errorf("produce to the denied topic: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	prod.Close()
	checkConsumed(t, "sarama SASL_SSL", msgs, saramaConsumeAll(t, client, "sasl-orders", 3))

	saramaSASLRefusals(t, p.bootstrap, toks, configAs)
	watch.checkDeniedUnseen(t, "sarama", "sasl-orders", "sasl-secret")
	p.stop(u)
}

// saramaSASLRefusals is TestForwardSaramaSASLSSL's logins other than
// alice's password: a wrong password, an unknown user and an expired token
// refused with Kafka's SASL_AUTHENTICATION_FAILED; alice's live token
// producing as User:alice.
func saramaSASLRefusals(t *testing.T, bootstrap string, toks saslTokens, configAs func(user, pass string, token bool) *sarama.Config) {
	t.Helper()
	config := func(pass string) *sarama.Config { return configAs("alice", pass, false) }
	var err error
	fails := []struct {
		name string
		cfg  *sarama.Config
	}{
		{"wrong password", config("wrong")},
		{"unknown user", configAs("mallory", "x", false)},
		{"expired token", configAs(toks.Expired, toks.password(t, toks.Expired), true)},
	}
	for _, c := range fails {
		start := time.Now()
		_, err = sarama.NewClient([]string{bootstrap}, c.cfg)
		if !errors.Is(err, sarama.ErrSASLAuthenticationFailed) || !strings.Contains(err.Error(), scramFailedMsg) {
			t.Errorf("%s: %v, want SASL_AUTHENTICATION_FAILED (%q)", c.name, err, scramFailedMsg)
		}
		t.Logf("%s refused in %v: %v", c.name, time.Since(start).Round(time.Millisecond), err)
	}

	tc, err := sarama.NewClient([]string{bootstrap}, configAs(toks.Live, toks.password(t, toks.Live), true))
	if err != nil {
		t.Fatalf("live token: %v", err)
	}
	defer tc.Close()
	tprod, err := sarama.NewSyncProducerFromClient(tc)
	if err != nil {
		t.Fatal(err)
	}
	defer tprod.Close()
	if _, _, err := tprod.SendMessage(&sarama.ProducerMessage{Topic: "sasl-orders", Value: sarama.StringEncoder("by token")}); err != nil {
		t.Errorf("produce with alice's token: %v", err)
	}
	_, _, err = tprod.SendMessage(&sarama.ProducerMessage{Topic: "sasl-secret", Value: sarama.StringEncoder("x")})
	if !errors.Is(err, sarama.ErrTopicAuthorizationFailed) {
		t.Errorf("produce to the denied topic with alice's token: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
}
