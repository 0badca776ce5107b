package interop

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func needKcat(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("kcat"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("kcat is not installed; .ci/run installs it")
		}
		t.Skip("kcat not installed (apt-get install kcat); .ci/run installs it")
	}
}

// TestForwardKcat is TestForwardFranz with librdkafka (kcat): each batch is
// one kcat -P process (acks=all, enable.idempotence=true, keys split at the
// first ':'), then one kcat -C reads the topic from the beginning. kcat
// connects only through the proxy: every connection the cluster accepted is
// checked to be one of the proxy's own.
func TestForwardKcat(t *testing.T) {
	needKcat(t)
	u := startUpstream(t, 3)
	p := startForwarder(t, u)
	rec := &dialRecorder{t: t, p: p}
	const topic = "fwd-kcat"
	adm, err := kgo.NewClient(kgo.SeedBrokers(p.bootstrap), kgo.Dialer(rec.DialContext))
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	ka := kadm.NewClient(adm)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := ka.CreateTopic(ctx, 3, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	msgs := workload(fwdMessages/2, fwdKeys)
	steps := chaosSteps(t, u, topic, func(total int) error {
		_, err := ka.UpdatePartitions(ctx, total, topic)
		return err
	})
	produceWithChaos(t, msgs, steps, func(batch []msg) error {
		var in bytes.Buffer
		for _, m := range batch {
			in.WriteString(m.Key + ":" + m.value() + "\n")
		}
		args := []string{"-P", "-b", p.bootstrap, "-t", topic, "-K", ":",
			"-X", "acks=all", "-X", "enable.idempotence=true", "-X", "topic.metadata.refresh.interval.ms=500"}
		if d := os.Getenv("KCAT_DEBUG"); d != "" {
			args = append(args, "-d", d)
		}
		cmd := exec.CommandContext(ctx, "kcat", args...)
		cmd.Stdin = &in
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if os.Getenv("KCAT_DEBUG") != "" && time.Since(start) > 5*time.Second {
			os.WriteFile("/tmp/kcat-slow.log", out, 0o644)
		}
		if err != nil {
			t.Logf("kcat -P output:\n%s", out)
		}
		return err
	})
	cmd := exec.CommandContext(ctx, "kcat", "-C", "-b", p.bootstrap, "-t", topic, "-o", "beginning", "-e", "-q",
		"-f", "%p\t%o\t%k\t%s\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kcat -C: %v", err)
	}
	var got []consumed
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("kcat -C line %q", line)
		}
		part, _ := strconv.Atoi(f[0])
		off, _ := strconv.ParseInt(f[1], 10, 64)
		got = append(got, consumed{Partition: int32(part), Offset: off, Key: f[2], Value: f[3]})
	}
	checkConsumed(t, "kcat", msgs, got)
	adm.Close()
	p.stop(u)
}
