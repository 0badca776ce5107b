package interop

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kmeta-go/kmeta/internal/proxytest"
)

// pythonSASLScript is python3-confluent-kafka over SASL_SSL with
// SCRAM-SHA-512: argv bootstrap, CA file, user, password, mode, topic.
//
//	produce  KEY<TAB>VALUE lines from stdin, idempotent, acks=all; each
//	         failed delivery printed as "delivery NAME<TAB>TEXT", exit 1
//	consume  argv[7] messages from the beginning (a new group), printed as
//	         PARTITION<TAB>OFFSET<TAB>KEY<TAB>VALUE lines
//	login    a metadata request; every error callback printed as
//	         "error NAME<TAB>TEXT", exit 1 if there was one
const pythonSASLScript = `
import sys, time, uuid
from confluent_kafka import Producer, Consumer
bootstrap, ca, user, password, mode, topic = sys.argv[1:7]
errors = []
def on_error(err):
    errors.append(err)
    print('error %s\t%s' % (err.name(), err.str()), flush=True)
conf = {'bootstrap.servers': bootstrap, 'security.protocol': 'SASL_SSL', 'sasl.mechanisms': 'SCRAM-SHA-512',
        'sasl.username': user, 'sasl.password': password, 'ssl.ca.location': ca,
        'ssl.endpoint.identification.algorithm': 'none', 'error_cb': on_error}
if mode == 'produce':
    p = Producer(dict(conf, **{'enable.idempotence': True, 'acks': 'all', 'linger.ms': 5, 'message.timeout.ms': 30000}))
    failed = []
    def on_delivery(err, m):
        if err is not None:
            failed.append(err)
            print('delivery %s\t%s' % (err.name(), err.str()), flush=True)
    for line in sys.stdin:
        k, v = line.rstrip('\n').split('\t', 1)
        while True:
            try:
                p.produce(topic, key=k, value=v, on_delivery=on_delivery)
                break
            except BufferError:
                p.poll(0.1)
        p.poll(0)
    left = p.flush(60)
    sys.exit(1 if failed or left else 0)
elif mode == 'consume':
    want = int(sys.argv[7])
    c = Consumer(dict(conf, **{'group.id': 'interop-' + uuid.uuid4().hex, 'auto.offset.reset': 'earliest',
                               'enable.auto.commit': False}))
    c.subscribe([topic])
    n, end = 0, time.time() + 60
    while n < want and time.time() < end:
        m = c.poll(1)
        if m is None:
            continue
        if m.error():
            print('error %s\t%s' % (m.error().name(), m.error().str()), file=sys.stderr, flush=True)
            continue
        print('%d\t%d\t%s\t%s' % (m.partition(), m.offset(), m.key().decode(), m.value().decode()))
        n += 1
    c.close()
else:
    p = Producer(conf)
    try:
        p.list_topics(topic, timeout=5)
    except Exception as e:
        print('list_topics:', e, file=sys.stderr)
    p.poll(1)
    sys.exit(1 if errors else 0)
`

// TestForwardPythonSASLSSL is TestForwardFranzSASLSSL for
// python3-confluent-kafka (librdkafka from Python), on Debian 13's
// librdkafka 2.8 (newRdkafka): SCRAM-SHA-512 over TLS through the proxy,
// 10 000 messages produced (idempotent, acks=all) and consumed with a
// consumer group with no loss, duplicate or reordering; the denied topic's
// delivery fails with TOPIC_AUTHORIZATION_FAILED; a wrong password and an
// unknown user get librdkafka's _AUTHENTICATION error with Kafka's
// SASL_AUTHENTICATION_FAILED message. No delegation-token case: librdkafka
// sends no SCRAM extension (tokenauth).
func TestForwardPythonSASLSSL(t *testing.T) {
	rdkafka := newRdkafka(t)
	if out, err := rdkafka(context.Background(), "/usr/bin/python3", "-c", "import confluent_kafka").CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("python3-confluent-kafka: %v\n%s; .ci/run installs it", err, out)
		}
		t.Skipf("python3-confluent-kafka is not installed (apt-get install python3-confluent-kafka): %s", out)
	}
	u := startUpstream(t, 3, kfake.SeedTopics(3, "sasl-orders", "sasl-secret"))
	watch := watchUpstreamTopics(t, u, "sasl-orders", "sasl-secret")
	certs := proxytest.WriteCerts(t, t.TempDir())
	p := startForwarder(t, u, "-metadata.dir", saslMetadataDir(t), "-tls.cert", certs.ServerCert, "-tls.key", certs.ServerKey,
		"-sasl.enabled.mechanisms", "SCRAM-SHA-512")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	py := func(user, pass, mode, topic string, in []msg, extra ...string) (stdout, stderr string, err error) {
		cmd := rdkafka(ctx, "/usr/bin/python3", append([]string{"-c", pythonSASLScript, p.bootstrap, certs.CA, user, pass, mode, topic}, extra...)...)
		var sin, sout, serr bytes.Buffer
		for _, m := range in {
			sin.WriteString(m.Key + "\t" + m.value() + "\n")
		}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = &sin, &sout, &serr
		err = cmd.Run()
		return sout.String(), serr.String(), err
	}
	msgs := workload(10000, 20)
	if out, serr, err := py("alice", "alice-pass", "produce", "sasl-orders", msgs); err != nil {
		t.Fatalf("produce: %v\n%s%s", err, out, serr)
	}
	out, serr, err := py("alice", "alice-pass", "consume", "sasl-orders", nil, strconv.Itoa(len(msgs)))
	if err != nil {
		t.Fatalf("consume: %v\n%s", err, serr)
	}
	var got []consumed
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("consume line %q", line)
		}
		part, _ := strconv.Atoi(f[0])
		off, _ := strconv.ParseInt(f[1], 10, 64)
		got = append(got, consumed{Partition: int32(part), Offset: off, Key: f[2], Value: f[3]})
	}
	checkConsumed(t, "confluent-kafka SASL_SSL SCRAM-SHA-512", msgs, got)

	out, serr, err = py("alice", "alice-pass", "produce", "sasl-secret", msgs[:1])
	if err == nil || !strings.Contains(out, "delivery TOPIC_AUTHORIZATION_FAILED\t") {
		t.Errorf("produce to the denied topic: %v, want TOPIC_AUTHORIZATION_FAILED\n%s%s", err, out, serr)
	}
	for _, c := range []struct{ user, pass string }{{"alice", "wrong"}, {"mallory", "x"}} {
		out, serr, err := py(c.user, c.pass, "login", "sasl-orders", nil)
		if err == nil || !hasLine(out, "error _AUTHENTICATION\t", "SASL authentication error: "+scramFailedMsg) {
			t.Errorf("%s/%s: %v, want _AUTHENTICATION (%q)\n%s%s", c.user, c.pass, err, scramFailedMsg, out, serr)
		}
	}
	watch.checkDeniedUnseen(t, "confluent-kafka", "sasl-orders", "sasl-secret")
	p.stop(u)
}

// hasLine reports whether a line of out starts with prefix and contains
// text.
func hasLine(out, prefix, text string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) && strings.Contains(l, text) {
			return true
		}
	}
	return false
}
