package interop

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// upstream is a kfake cluster whose listeners record the remote address of
// every connection they accept, so that a test can tell whether anything
// but the proxy reached it.
type upstream struct {
	*kfake.Cluster
	mu       sync.Mutex
	accepted []string
}

type recordingListener struct {
	net.Listener
	u *upstream
}

func (l recordingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.u.mu.Lock()
		l.u.accepted = append(l.u.accepted, c.RemoteAddr().String())
		l.u.mu.Unlock()
	}
	return c, err
}

func startUpstream(t *testing.T, brokers int, opts ...kfake.Opt) *upstream {
	u := &upstream{}
	opts = append([]kfake.Opt{
		kfake.NumBrokers(brokers),
		kfake.ListenFn(func(network, addr string) (net.Listener, error) {
			ln, err := net.Listen(network, addr)
			if err != nil {
				return nil, err
			}
			return recordingListener{ln, u}, nil
		}),
	}, opts...)
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	u.Cluster = c
	t.Cleanup(c.Close)
	return u
}

func (u *upstream) acceptedFrom() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.accepted...)
}

// fwdProxy is examples/proxy -upstream -verify running for a test.
type fwdProxy struct {
	t         *testing.T
	cmd       *exec.Cmd
	bootstrap string

	mu       sync.Mutex
	brokers  map[int32]string // broker id -> proxy port
	upLocals map[string]bool  // local addresses of the proxy's upstream connections
	leaks    []string
	summary  string
	lines    []string
	done     chan struct{}
}

var (
	fwdStartedRE = regexp.MustCompile(`proxy: forwarding to .* on (127\.0\.0\.1:\d+)$`)
	fwdBrokerRE  = regexp.MustCompile(`proxy: broker (-?\d+) on (127\.0\.0\.1:\d+)$`)
	fwdUpConnRE  = regexp.MustCompile(`proxy: verify: upstream connection (\S+) -> `)
	fwdStoppedRE = regexp.MustCompile(`proxy: stopped: \d+ forwarded, (\d+) rewritten`)
	fwdSummaryRE = regexp.MustCompile(`proxy: verify: (\d+) answers decoded .*, (\d+) broker addresses, (\d+) leaks`)
)

func startForwarder(t *testing.T, u *upstream, extra ...string) *fwdProxy {
	t.Helper()
	args := append([]string{"-listen", "127.0.0.1:0", "-upstream", strings.Join(u.ListenAddrs(), ","), "-verify", "-allow.everyone.if.no.acl.found"}, extra...)
	cmd := exec.Command(proxyBin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &fwdProxy{t: t, cmd: cmd, brokers: map[int32]string{}, upLocals: map[string]bool{}, done: make(chan struct{})}
	started := make(chan string, 1)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.lines = append(p.lines, line)
			if m := fwdBrokerRE.FindStringSubmatch(line); m != nil {
				id, _ := strconv.Atoi(m[1])
				p.brokers[int32(id)] = m[2]
			}
			if m := fwdUpConnRE.FindStringSubmatch(line); m != nil {
				p.upLocals[m[1]] = true
			}
			if strings.Contains(line, "LEAK") {
				p.leaks = append(p.leaks, line)
			}
			if fwdSummaryRE.MatchString(line) {
				p.summary = line
			}
			p.mu.Unlock()
			if m := fwdStartedRE.FindStringSubmatch(line); m != nil {
				started <- m[1]
			}
		}
	}()
	select {
	case p.bootstrap = <-started:
	case <-p.done:
		t.Fatalf("proxy exited before serving:\n%s", strings.Join(p.lines, "\n"))
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("proxy did not start in 30 s")
	}
	t.Cleanup(func() {
		if t.Failed() {
			p.mu.Lock()
			t.Logf("proxy output:\n%s", strings.Join(p.lines, "\n"))
			p.mu.Unlock()
		}
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return p
}

// ports are every address the proxy listens on.
func (p *fwdProxy) ports() map[string]bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]bool{p.bootstrap: true}
	for _, a := range p.brokers {
		out[a] = true
	}
	return out
}

// stop ends the proxy and checks what -verify saw: every answer it sent
// decoded, no broker address that is not one of its ports, and every
// connection the cluster accepted came from the proxy's upstream side.
func (p *fwdProxy) stop(u *upstream) (rewritten int) {
	t := p.t
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		t.Error("proxy did not stop in 30 s")
	}
	p.cmd.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.leaks) > 0 {
		t.Errorf("broker addresses leaked to clients:\n%s", strings.Join(p.leaks, "\n"))
	}
	m := fwdSummaryRE.FindStringSubmatch(p.summary)
	if m == nil {
		t.Fatalf("no verification summary in the proxy's output:\n%s", strings.Join(p.lines, "\n"))
	}
	if m[1] == "0" || m[3] != "0" {
		t.Errorf("verification: %s", p.summary)
	}
	t.Logf("%s", p.summary)
	for _, l := range p.lines {
		if strings.Contains(l, "stopped:") || strings.Contains(l, "closed") || strings.Contains(l, "refresh") {
			t.Logf("%s", l)
		}
		if m := fwdStoppedRE.FindStringSubmatch(l); m != nil {
			rewritten, _ = strconv.Atoi(m[1])
		}
	}
	for _, a := range u.acceptedFrom() {
		if !p.upLocals[a] {
			t.Errorf("the cluster accepted a connection from %s, which is not one of the proxy's upstream connections: a client dialled an upstream address", a)
		}
	}
	return rewritten
}

// dialRecorder records every address a Go client dials and fails the test
// for any that is not one of the proxy's ports.
type dialRecorder struct {
	t     *testing.T
	p     *fwdProxy
	mu    sync.Mutex
	dials []string
}

func (d *dialRecorder) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.dials = append(d.dials, addr)
	d.mu.Unlock()
	if !d.p.ports()[addr] {
		d.t.Errorf("a client dialled %s, which is not one of the proxy's ports", addr)
		return nil, fmt.Errorf("refusing to dial %s: not a proxy port", addr)
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

// Dial is dialRecorder for sarama's Net.Proxy.Dialer.
func (d *dialRecorder) Dial(network, addr string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, addr)
}
