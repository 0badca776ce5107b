package proxytest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// ProcStat is a process's CPU time (user+system, in clock ticks) and
// resident memory, from /proc.
func ProcStat(tb testing.TB, pid int) (ticks int64, rssKiB int64) {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	s, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(s), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			rssKiB, _ = strconv.ParseInt(strings.Fields(v)[0], 10, 64)
		}
	}
	return ut + st, rssKiB
}

// StartProcess builds examples/proxy and runs it with args; it returns the
// process, its listening address, and its log so far.
func StartProcess(t testing.TB, args ...string) (*exec.Cmd, string, *Lines) {
	t.Helper()
	return StartProcessNoFile(t, 0, args...)
}

// StartProcessNoFile is StartProcess with the process's descriptor limit
// (RLIMIT_NOFILE) lowered to nofile, if positive (through the shell's
// ulimit, which then execs the proxy: the process is the proxy's).
func StartProcessNoFile(t testing.TB, nofile int, args ...string) (*exec.Cmd, string, *Lines) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "proxy")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/kmeta-go/kmeta/examples/proxy").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, args...)
	if nofile > 0 {
		cmd = exec.Command("sh", append([]string{"-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, nofile), bin}, args...)...)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	logs := &Lines{}
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			logs.Add(line)
			if i := strings.LastIndex(line, " on 127.0.0.1:"); i >= 0 && strings.Contains(line, "brokers,") {
				addrc <- line[i+4:]
			}
		}
	}()
	select {
	case addr := <-addrc:
		return cmd, addr, logs
	case <-time.After(60 * time.Second):
		t.Fatalf("the proxy did not start:\n%s", logs)
	}
	return nil, "", nil
}

// Lines are a process's log lines, safe for concurrent use.
type Lines struct {
	mu    sync.Mutex
	lines []string
}

// Add appends a line.
func (b *Lines) Add(l string) { b.mu.Lock(); b.lines = append(b.lines, l); b.mu.Unlock() }

// Count is the number of lines containing sub.
func (b *Lines) Count(sub string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, l := range b.lines {
		if strings.Contains(l, sub) {
			n++
		}
	}
	return n
}

// String is the first 40 lines.
func (b *Lines) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.lines) > 40 {
		return strings.Join(b.lines[:40], "\n") + "\n..."
	}
	return strings.Join(b.lines, "\n")
}
