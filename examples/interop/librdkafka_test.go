package interop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// rdkafkaLib is where .ci/run's install step unpacks Debian 13 (trixie)'s
// librdkafka1 and libc6 (install_librdkafka): librdkafka 2.8, whose SCRAM
// client sends the nonce Kafka 4.x expects (Debian 12's 2.0.2 does not; see
// TestKcatScramNonce), and the glibc 2.41 it needs, whose loader runs
// Debian 12's /usr/bin/kcat and /usr/bin/python3 on it.
const rdkafkaLib = ".deps/librdkafka/root/usr/lib/x86_64-linux-gnu"

// rdkafkaMin is the first librdkafka whose SCRAM client-final message
// echoes the server's nonce unchanged (confluentinc/librdkafka#4895).
var rdkafkaMin = [3]int{2, 6, 1}

var rdkafkaVersionRE = regexp.MustCompile(`librdkafka (\d+)\.(\d+)\.(\d+)`)

// newRdkafka returns how to run a Debian 12 binary (/usr/bin/kcat,
// /usr/bin/python3) on the unpacked librdkafka: through trixie's loader
// with its library directory first. It skips where the install step has
// not run (fails under CI), and fails when kcat does not report a
// librdkafka of at least rdkafkaMin.
func newRdkafka(t *testing.T) func(ctx context.Context, bin string, args ...string) *exec.Cmd {
	t.Helper()
	needKcat(t)
	lib, err := filepath.Abs(rdkafkaLib)
	if err != nil {
		t.Fatal(err)
	}
	loader := filepath.Join(lib, "ld-linux-x86-64.so.2")
	if _, err := os.Stat(filepath.Join(lib, "librdkafka.so.1")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("trixie's librdkafka is not unpacked in %s; .ci/run install unpacks it", rdkafkaLib)
		}
		t.Skipf("trixie's librdkafka is not unpacked in %s (.ci/run install): Debian 12's librdkafka 2.0.2 cannot log in with SCRAM", rdkafkaLib)
	}
	run := func(ctx context.Context, bin string, args ...string) *exec.Cmd {
		return exec.CommandContext(ctx, loader, append([]string{"--library-path", lib, bin}, args...)...)
	}
	out, err := run(context.Background(), "/usr/bin/kcat", "-V").CombinedOutput()
	m := rdkafkaVersionRE.FindStringSubmatch(string(out))
	if err != nil || m == nil {
		t.Fatalf("kcat -V on %s: %v\n%s", lib, err, out)
	}
	for i := range 3 {
		n, _ := strconv.Atoi(m[i+1])
		if n != rdkafkaMin[i] {
			if n < rdkafkaMin[i] {
				t.Fatalf("kcat runs %s, want librdkafka >= %d.%d.%d", m[0], rdkafkaMin[0], rdkafkaMin[1], rdkafkaMin[2])
			}
			break
		}
	}
	t.Logf("kcat on %s (%s)", m[0], readStamp())
	return run
}

func readStamp() string {
	b, _ := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(rdkafkaLib)))), "stamp"))
	return strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", ", ")
}
