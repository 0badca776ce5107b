package main

import (
	"errors"
	"fmt"
	"net"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/internal/proxytest"
)

// floodNoFile is the proxy process's descriptor limit in the flood test.
const floodNoFile = 64

// TestConnectionFloodPastDescriptorLimit runs the proxy with a descriptor
// limit of 64 (RLIMIT_NOFILE) and opens 300 connections to it, in image
// mode (-demo) and in upstream mode: accept fails with EMFILE, and the
// proxy logs it, backs off and keeps serving (it neither exits nor spins);
// once the flood closes, a new client is answered within 10 s.
func TestConnectionFloodPastDescriptorLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	u := newHostileUpstream(t, 0)
	u.setBrokers(hostileBrokers(1, u.port()))
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"demo", []string{"-demo"}},
		{"upstream", []string{"-upstream", u.ln.Addr().String()}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			cmd, addr, logs := proxytest.StartProcessNoFile(t, floodNoFile, append([]string{"-listen", "127.0.0.1:0"}, mode.args...)...)
			var flood []net.Conn
			for range 300 {
				c, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if err != nil {
					break // the backlog is full: flooded
				}
				flood = append(flood, c)
			}
			deadline := time.Now().Add(10 * time.Second)
			for logs.Count("too many open files") == 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if logs.Count("too many open files") == 0 {
				t.Fatalf("%d connections and no EMFILE logged:\n%s", len(flood), logs)
			}
			time.Sleep(time.Second)
			if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
				t.Fatalf("the proxy exited under the flood: %v\n%s", err, logs)
			}
			t0, _ := proxytest.ProcStat(t, cmd.Process.Pid)
			time.Sleep(time.Second)
			t1, _ := proxytest.ProcStat(t, cmd.Process.Pid)
			if t1-t0 > 20 {
				t.Errorf("%d CPU ticks in a second of the flood: the accept loop spins", t1-t0)
			}
			for _, c := range flood {
				c.Close()
			}
			answered := false
			for start := time.Now(); time.Since(start) < 10*time.Second && !answered; time.Sleep(100 * time.Millisecond) {
				answered = metadataAnswered(addr)
			}
			if !answered {
				t.Fatalf("no answer within 10 s after the flood:\n%s", logs)
			}
			t.Logf("%s: %d connections against %d descriptors; %d accept errors logged; answered after", mode.name, len(flood), floodNoFile, logs.Count("too many open files"))
		})
	}
}

// metadataAnswered reports whether a new client at addr gets a Metadata
// answer.
func metadataAnswered(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	resp := kmsg.NewPtrMetadataResponse()
	resp.Version = 12
	c.SetDeadline(time.Now().Add(2 * time.Second))
	return proxytest.RoundTrip(c, proxytest.MetadataV12(), resp, 1) == nil
}

// TestFatalErrorExitsNonZero: a proxy that cannot serve (its listen address
// taken, its upstream unreachable) exits with status 1, never 0, so that a
// supervisor restarting on failure brings it back.
func TestFatalErrorExitsNonZero(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	dead, _ := net.Listen("tcp", "127.0.0.1:0")
	deadAddr := dead.Addr().String()
	dead.Close()
	bin := t.TempDir() + "/proxy"
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"-listen", taken.Addr().String(), "-demo"},
		{"-listen", "127.0.0.1:0", "-upstream", deadAddr, "-upstream-timeout", "1s"},
	} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("%v: exit %v, want status 1\n%s", args, err, out)
		}
	}
}

// hostileBudget is the upstream budget of TestHostileUpstreamMemory, and
// hostileOverhead what the proxy may hold beyond it in resident memory:
// memOverhead (the runtime, the view, each connection's fixed buffers; the
// process's GOMEMLIMIT is budget + memOverhead), plus 32 MiB for what the
// runtime keeps resident above its soft limit before it scavenges (peaks
// of 113-122 MiB were seen against budget + memOverhead = 128 MiB).
const (
	hostileBudget   = 64 << 20
	hostileOverhead = memOverhead + 32<<20
)

// TestHostileUpstreamMemory puts the proxy (a process, upstream budget 64
// MiB) in front of an upstream that lists 10 000 broker ids (negative ids,
// invalid hosts and ports among them) and answers Fetch requests with
// answers announced at 2 GiB, 12 MiB answers sent slowly to 16 clients at
// once, a byte every 50 ms, garbage and resets. Its resident memory,
// sampled every 50 ms, stays under the budget plus hostileOverhead (96 MiB);
// it advertises at most -max.brokers listeners and no invalid broker, logs
// the refused ones, and still answers Metadata after.
func TestHostileUpstreamMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	u := newHostileUpstream(t, 12<<20)
	u.setBrokers(hostileBrokers(10000, u.port()))
	cmd, addr, logs := proxytest.StartProcess(t, "-listen", "127.0.0.1:0", "-upstream", u.ln.Addr().String(), "-allow.everyone.if.no.acl.found",
		"-upstream-timeout", "3s", "-upstream.buffer.max.bytes", strconv.Itoa(hostileBudget), "-max.brokers", "100")
	var peak int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if _, rss := proxytest.ProcStat(t, cmd.Process.Pid); rss > peak {
				peak = rss
			}
		}
	}()
	var wg sync.WaitGroup
	modes := map[string]int{"huge": 4, "big": 16, "drip": 4, "garbage": 4, "reset": 4, "ok": 4}
	for mode, n := range modes {
		for range n {
			wg.Add(1)
			go fetchThrough(t, addr, mode, &wg)
		}
	}
	wg.Wait()
	close(stop)
	<-sampled
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the proxy is gone: %v\n%s", err, logs)
	}
	bound := int64(hostileBudget+hostileOverhead) >> 10
	t.Logf("peak RSS %d KiB (bound %d KiB); %d refusal lines", peak, bound, logs.Count("refused"))
	if peak > bound {
		t.Fatalf("peak RSS %d KiB over the budget plus overhead, %d KiB", peak, bound)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp := kmsg.NewPtrMetadataResponse()
	resp.Version = 12
	if err := proxytest.RoundTrip(c, proxytest.MetadataV12(), resp, 1); err != nil {
		t.Fatal(err)
	}
	if len(resp.Brokers) > 100 || len(resp.Brokers) == 0 {
		t.Fatalf("%d brokers advertised, want 1 to 100", len(resp.Brokers))
	}
	for _, b := range resp.Brokers {
		if b.NodeID < 0 || b.Port <= 0 || b.Host != "127.0.0.1" {
			t.Errorf("advertised %s", fmt.Sprint(b.NodeID, b.Host, b.Port))
		}
	}
	if logs.Count("not advertised") == 0 {
		t.Error("no refused broker logged")
	}
}
