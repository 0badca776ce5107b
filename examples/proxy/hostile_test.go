package main

import (
	"github.com/kmeta-go/kmeta/internal/proxytest"
	"math/rand"
	"net"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// hostileRSSBoundKiB is the resident memory the proxy process may have after
// the storm: the demo image, the runtime, and the buffers of the last
// connections, far below one 100 MiB frame.
const hostileRSSBoundKiB = 32 << 10

// TestHostileFrames_seed1 sends 3 000 hostile frames (hostileFrames, seed
// 1), each on its own connection, 16 at a time, to one proxy process; then
// the process is alive, no panic was logged, its idle CPU over two seconds
// is flat (under 5 ticks), its resident memory is under 32 MiB, and a
// normal Metadata request is answered correctly.
func TestHostileFrames_seed1(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cmd, addr, logs := proxytest.StartProcess(t, "-listen", "127.0.0.1:0", "-demo", "-request.read.timeout.ms", "2000")
	frames := proxytest.HostileFrames(rand.New(rand.NewSource(1)), 3000)
	work := make(chan []byte)
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 64<<10)
			for f := range work {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Error(err)
					return
				}
				c.SetDeadline(time.Now().Add(10 * time.Second))
				c.Write(f)
				if tc, ok := c.(*net.TCPConn); ok {
					tc.CloseWrite() // a truncated frame ends here
				}
				for {
					if _, err := c.Read(buf); err != nil {
						if ne, ok := err.(net.Error); ok && ne.Timeout() {
							t.Errorf("frame %x: connection neither answered and closed nor closed in 10 s", f[:min(len(f), 32)])
						}
						break
					}
				}
				c.Close()
			}
		}()
	}
	for _, f := range frames {
		work <- f
	}
	close(work)
	wg.Wait()

	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the proxy process is gone: %v\n%s", err, logs)
	}
	if n := logs.Count("panic"); n > 0 {
		t.Fatalf("%d panics logged:\n%s", n, logs)
	}
	time.Sleep(500 * time.Millisecond) // let the last connections finish closing
	t0, _ := proxytest.ProcStat(t, cmd.Process.Pid)
	time.Sleep(2 * time.Second)
	t1, rss := proxytest.ProcStat(t, cmd.Process.Pid)
	t.Logf("after %d frames: %d connection lines logged, idle CPU %d ticks in 2 s, RSS %d KiB", len(frames), logs.Count("closed:"), t1-t0, rss)
	if t1-t0 >= 5 {
		t.Fatalf("idle CPU %d ticks in 2 s: something spins", t1-t0)
	}
	if rss > hostileRSSBoundKiB {
		t.Fatalf("resident memory %d KiB, bound %d KiB", rss, hostileRSSBoundKiB)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	proxytest.CheckDemoMetadata(t, c)
}
