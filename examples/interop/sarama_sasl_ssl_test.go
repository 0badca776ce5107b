package interop

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
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
	c    *credential.ScramClient
	step int
	done bool
}

func (s *saramaScram) Begin(user, password, _ string) error {
	c, err := credential.NewScramClient(credential.SHA512, user, password, false, nil)
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
// password with SASL_AUTHENTICATION_FAILED.
func TestForwardSaramaSASLSSL(t *testing.T) {
	u := startUpstream(t, 3, kfake.SeedTopics(3, "sasl-orders", "sasl-secret"))
	certs := proxytest.WriteCerts(t, t.TempDir())
	p := startForwarder(t, u, "-metadata.dir", saslMetadataDir(t), "-tls.cert", certs.ServerCert, "-tls.key", certs.ServerKey,
		"-sasl.enabled.mechanisms", "SCRAM-SHA-512")
	ca, err := os.ReadFile(certs.CA)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	config := func(pass string) *sarama.Config {
		cfg := sarama.NewConfig()
		cfg.Version = sarama.V3_0_0_0
		cfg.Net.TLS.Enable = true
		cfg.Net.TLS.Config = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
		cfg.Net.SASL.Enable = true
		cfg.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA512
		cfg.Net.SASL.User, cfg.Net.SASL.Password = "alice", pass
		cfg.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &saramaScram{} }
		cfg.Producer.Idempotent = true
		cfg.Producer.RequiredAcks = sarama.WaitForAll
		cfg.Producer.Return.Successes = true
		cfg.Producer.Retry.Max = 5
		cfg.Net.MaxOpenRequests = 1
		cfg.Consumer.Return.Errors = true
		return cfg
	}
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

	start := time.Now()
	_, err = sarama.NewClient([]string{p.bootstrap}, config("wrong"))
	if !errors.Is(err, sarama.ErrSASLAuthenticationFailed) {
		t.Errorf("wrong password: %v", err)
	}
	t.Logf("wrong password refused in %v: %v", time.Since(start).Round(time.Millisecond), err)
	p.stop(u)
}
