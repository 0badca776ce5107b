package interop

import (
	"context"
	"errors"
	"flag"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
)

var kcatSoak = flag.Bool("kcat-soak", false, "run TestAdvertiseKcatDistinctBrokers for 30 s instead of 8 s")

// kcatThreadRE is a librdkafka broker thread name in its debug output,
// "[thrd:HOST:PORT/ID]": the address and the broker id it is labelled with.
var kcatThreadRE = regexp.MustCompile(`\[thrd:(127\.0\.0\.1:\d+)/(-?\d+|bootstrap)\]`)

// TestAdvertiseKcatDistinctBrokers runs a librdkafka consumer (kcat -C with
// broker and metadata debug) against examples/proxy -advertise on a
// 3-broker corpus directory, refreshing metadata every 500 ms: each broker
// id must be seen at one proxy address of its own and each address labelled
// with one id for the whole run, with no relabelling (when every broker was
// advertised at one address, librdkafka relabelled its one connection's
// broker id 12-15 times in 4 s). 8 s (16 metadata refreshes) by default,
// 30 s with -kcat-soak.
func TestAdvertiseKcatDistinctBrokers(t *testing.T) {
	needKcat(t)
	shared := sharedtest.Dir(t)
	dir := filepath.Join(shared, "corpus", "kraft", "ogs59__docker-compose-kafka4.10", "data", "kafka-2")
	addr, _, ports := startProxy(t, dir)
	if len(ports) != 3 {
		t.Fatalf("proxy opened %d broker ports, want 3: %v", len(ports), ports)
	}
	d := 8 * time.Second
	if *kcatSoak {
		d = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	// A producer that has nothing to send yet (its stdin stays open) keeps
	// its metadata fresh and its broker connections up: the image proxy
	// answers metadata only, so a consumer would stop at ListOffsets.
	cmd := exec.CommandContext(ctx, "kcat", "-P", "-b", addr, "-t", "test-topic", "-d", "broker,metadata",
		"-X", "topic.metadata.refresh.interval.ms=500", "-X", "topic.metadata.refresh.sparse=false",
		"-X", "reconnect.backoff.ms=100", "-X", "enable.sparse.connections=false")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.CombinedOutput()
	if err != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("kcat: %v\n%s", err, out)
	}
	checkLibrdkafkaLog(t, "kcat", string(out), addr, ports, d)
}

// checkLibrdkafkaLog checks librdkafka's broker and metadata debug output
// of a run of d against a proxy at addr whose broker ports are ports: each
// broker id at one address of its own, each address labelled with one id,
// no relabelling, the bootstrap broker at addr, and several metadata
// answers.
func checkLibrdkafkaLog(t *testing.T, who, out, addr string, ports map[int32]string, d time.Duration) {
	t.Helper()
	idAt := map[string]string{}   // address -> id
	addrOf := map[string]string{} // id -> address
	refreshes := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "Received metadata") {
			refreshes++
		}
		if strings.Contains(line, "changed from") || strings.Contains(line, "relabel") {
			t.Errorf("%s: librdkafka relabelled a broker: %s", who, line)
		}
		for _, m := range kcatThreadRE.FindAllStringSubmatch(line, -1) {
			a, id := m[1], m[2]
			if id == "bootstrap" {
				if a != addr {
					t.Errorf("bootstrap broker at %s, not %s", a, addr)
				}
				continue
			}
			if prev, ok := idAt[a]; ok && prev != id {
				t.Errorf("address %s labelled broker %s, then %s", a, prev, id)
			}
			if prev, ok := addrOf[id]; ok && prev != a {
				t.Errorf("broker %s at %s, then %s", id, prev, a)
			}
			idAt[a], addrOf[id] = id, a
		}
	}
	if len(addrOf) != 3 {
		t.Errorf("%s: librdkafka saw brokers %v, want the 3 of the image", who, addrOf)
	}
	for id, a := range addrOf {
		for pid, pa := range ports {
			if pa == a && strconv.Itoa(int(pid)) != id {
				t.Errorf("%s: librdkafka labels %s broker %s; the proxy serves broker %d there", who, a, id, pid)
			}
		}
	}
	if refreshes < 2 {
		t.Errorf("%s: librdkafka received %d metadata answers in %v, want several", who, refreshes, d)
	}
	t.Logf("%s: librdkafka over %v: %d metadata answers, brokers %v, no relabelling", who, d, refreshes, addrOf)
}

// confluentScript is a librdkafka producer through python3-confluent-kafka
// that asks for test-topic's metadata every 500 ms for argv[2] seconds,
// with librdkafka's broker and metadata debug on stderr.
const confluentScript = `
import sys, time
from confluent_kafka import Producer
p = Producer({'bootstrap.servers': sys.argv[1], 'debug': 'broker,metadata',
              'topic.metadata.refresh.interval.ms': 500, 'topic.metadata.refresh.sparse': False,
              'reconnect.backoff.ms': 100, 'enable.sparse.connections': False})
end = time.time() + float(sys.argv[2])
while time.time() < end:
    try:
        p.list_topics('test-topic', timeout=2)
    except Exception as e:
        print('list_topics:', e, file=sys.stderr)
    p.poll(0.5)
`

// TestAdvertiseConfluentKafkaDistinctBrokers is
// TestAdvertiseKcatDistinctBrokers with librdkafka through
// python3-confluent-kafka, where it is installed (apt-get install
// python3-confluent-kafka); 30 s with -kcat-soak.
func TestAdvertiseConfluentKafkaDistinctBrokers(t *testing.T) {
	python := ""
	// The python3 of PATH, else Debian's, whose dist-packages the apt
	// package installs into.
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import confluent_kafka").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		t.Skip("python3-confluent-kafka is not installed (apt-get install python3-confluent-kafka)")
	}
	shared := sharedtest.Dir(t)
	dir := filepath.Join(shared, "corpus", "kraft", "ogs59__docker-compose-kafka4.10", "data", "kafka-2")
	addr, _, ports := startProxy(t, dir)
	d := 8 * time.Second
	if *kcatSoak {
		d = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), d+30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, python, "-c", confluentScript, addr, strconv.Itoa(int(d/time.Second))).CombinedOutput()
	if err != nil {
		t.Fatalf("python3 confluent_kafka: %v\n%s", err, out)
	}
	checkLibrdkafkaLog(t, "confluent-kafka", string(out), addr, ports, d)
}
