package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// issueFrames are the two frames of the report that ended the proxy: a
// Metadata v12 header claiming one 100-byte tagged field and carrying none
// (a panic), and a header tagged-field count of 2^63 (a spin).
var issueFrames = [][]byte{
	{0x00, 0x00, 0x00, 0x0e, 0x00, 0x03, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x78, 0x01, 0x00, 0x64},
	{0x00, 0x00, 0x00, 0x14, 0x00, 0x03, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x01, 0xff, 0xff, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
}

// validFrames is one request of every kind the proxy serves, at every
// version it serves, with topics, keys and cursors where the version has
// them (whole frames, size included).
func validFrames() [][]byte {
	var out [][]byte
	name := func(s string) *string { return &s }
	for v := int16(0); v <= 13; v++ {
		r := kmsg.NewPtrMetadataRequest()
		r.Version = v
		out = append(out, requestFrame(r, int32(v))) // all topics (none at v0)
		t := kmsg.NewMetadataRequestTopic()
		t.Topic = name("orders")
		u := kmsg.NewMetadataRequestTopic()
		u.Topic = name("no-such-topic")
		r.Topics = []kmsg.MetadataRequestTopic{t, u}
		r.IncludeTopicAuthorizedOperations = v >= 8
		out = append(out, requestFrame(r, int32(v)))
	}
	for v := int16(0); v <= 6; v++ {
		r := kmsg.NewPtrFindCoordinatorRequest()
		r.Version = v
		r.CoordinatorKey = "group-a"
		if v >= 4 {
			r.CoordinatorKeys = []string{"group-a", "group-b"}
		}
		out = append(out, requestFrame(r, 100+int32(v)))
	}
	for v := int16(0); v <= 6; v++ {
		r := kmsg.NewPtrApiVersionsRequest()
		r.Version = v
		r.ClientSoftwareName, r.ClientSoftwareVersion = "kmeta", "1.0"
		out = append(out, requestFrame(r, 200+int32(v)))
		if v == 5 {
			r.ClusterID, r.NodeID = name("demo-cluster"), 1
			out = append(out, requestFrame(r, 200+int32(v)))
		}
	}
	for v := int16(0); v <= 2; v++ {
		r := kmsg.NewPtrDescribeClusterRequest()
		r.Version = v
		r.IncludeFencedBrokers = v >= 2
		out = append(out, requestFrame(r, 300+int32(v)))
	}
	r := kmsg.NewPtrDescribeTopicPartitionsRequest()
	t := kmsg.NewDescribeTopicPartitionsRequestTopic()
	t.Topic = "orders"
	r.Topics = append(r.Topics, t)
	r.Cursor = &kmsg.DescribeTopicPartitionsRequestCursor{Topic: "orders", Partition: 2}
	out = append(out, requestFrame(r, 400))
	return out
}

// withSize prefixes a frame body with its size.
func withSize(b []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// hdr is a request header for key at v with correlation id 1 and a null
// client id (v2, with its empty tags, where the version is flexible).
func hdr(key, v int16) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(v))
	b = append(b, 0, 0, 0, 1, 0xff, 0xff)
	if v >= 9 || key == 60 || key == 75 || (key == 18 && v >= 3) {
		b = append(b, 0)
	}
	return b
}

// mutateFrame is a copy of a valid frame with one to four bytes flipped,
// set to an edge value, dropped or inserted, and half the time its size
// fixed to match.
func mutateFrame(rng *rand.Rand, valid []byte) []byte {
	b := append([]byte(nil), valid...)
	for m := 1 + rng.Intn(4); m > 0 && len(b) > 4; m-- {
		i := 4 + rng.Intn(len(b)-4)
		switch rng.Intn(4) {
		case 0:
			b[i] ^= byte(1 << rng.Intn(8))
		case 1:
			b[i] = []byte{0x00, 0x7f, 0x80, 0xff}[rng.Intn(4)]
		case 2:
			b = append(b[:i], b[i+1:]...)
		case 3:
			b = append(b[:i], append([]byte{byte(rng.Intn(256))}, b[i:]...)...)
		}
	}
	if rng.Intn(2) == 0 {
		binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	}
	return b
}

// hostileFrames are n frames drawn from rng: random bytes, valid requests
// mutated (bytes flipped, inserted, removed, a size rewritten), truncated
// frames, huge declared sizes, huge array counts, negative string lengths,
// 2^63 tag counts, and the report's two frames.
func hostileFrames(rng *rand.Rand, n int) [][]byte {
	valid := validFrames()
	var out [][]byte
	out = append(out, issueFrames...)
	for len(out) < n {
		switch k := rng.Intn(10); k {
		case 0: // random bytes
			b := make([]byte, rng.Intn(64))
			rng.Read(b)
			out = append(out, withSize(b))
		case 1, 2, 3: // a valid request, mutated
			out = append(out, mutateFrame(rng, valid[rng.Intn(len(valid))]))
		case 4: // truncated: the size says more than is sent
			b := valid[rng.Intn(len(valid))]
			out = append(out, b[:rng.Intn(len(b))])
		case 5: // huge declared sizes
			size := []uint32{100 << 20, 100<<20 + 1, 0x7fffffff, 0x80000000, 0xffffffff, 1 << 30}[rng.Intn(6)]
			b := binary.BigEndian.AppendUint32(nil, size)
			out = append(out, append(b, hdr(3, 12)...))
		case 6: // huge array counts
			switch rng.Intn(3) {
			case 0:
				out = append(out, withSize(append(hdr(3, 1), 0x7f, 0xff, 0xff, 0xff)))
			case 1:
				out = append(out, withSize(append(hdr(3, 12), 0xff, 0xff, 0xff, 0xff, 0x0f)))
			case 2:
				out = append(out, withSize(append(hdr(10, 5), 0, 0xfe, 0xff, 0xff, 0xff, 0x07)))
			}
		case 7: // negative string lengths
			switch rng.Intn(3) {
			case 0:
				out = append(out, withSize(append(hdr(3, 4), 0, 0, 0, 1, 0x80, 0x00, 1)))
			case 1:
				b := append(binary.BigEndian.AppendUint16(nil, 3), 0, 4, 0, 0, 0, 1, 0x80, 0x01)
				out = append(out, withSize(b)) // client id length -32767
			case 2:
				out = append(out, withSize(append(hdr(10, 0), 0xff, 0xfe)))
			}
		case 8: // 2^63 tag counts, in the header and in bodies
			tag := []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}
			b := append(binary.BigEndian.AppendUint16(nil, 60), 0, 0, 0, 0, 0, 1, 0xff, 0xff)
			if rng.Intn(2) == 0 {
				b = append(b, tag...)
			} else {
				b = append(append(b, 0, 1), tag...)
			}
			out = append(out, withSize(b))
		case 9: // a valid request, whole
			out = append(out, valid[rng.Intn(len(valid))])
		}
	}
	return out
}

// procStat is a process's CPU time (user+system, in clock ticks) and
// resident memory, from /proc.
func procStat(tb testing.TB, pid int) (ticks int64, rssKiB int64) {
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

// startProxyProcess builds the proxy and runs it with args; it returns the
// process, its listening address, and its log so far.
func startProxyProcess(t testing.TB, args ...string) (*exec.Cmd, string, *syncBuffer) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "proxy")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	logs := &syncBuffer{}
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			logs.add(line)
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

type syncBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (b *syncBuffer) add(l string) { b.mu.Lock(); b.lines = append(b.lines, l); b.mu.Unlock() }
func (b *syncBuffer) count(sub string) int {
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
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.lines) > 40 {
		return strings.Join(b.lines[:40], "\n") + "\n..."
	}
	return strings.Join(b.lines, "\n")
}

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
	cmd, addr, logs := startProxyProcess(t, "-listen", "127.0.0.1:0", "-demo", "-request.read.timeout.ms", "2000")
	frames := hostileFrames(rand.New(rand.NewSource(1)), 3000)
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
	if n := logs.count("panic"); n > 0 {
		t.Fatalf("%d panics logged:\n%s", n, logs)
	}
	time.Sleep(500 * time.Millisecond) // let the last connections finish closing
	t0, _ := procStat(t, cmd.Process.Pid)
	time.Sleep(2 * time.Second)
	t1, rss := procStat(t, cmd.Process.Pid)
	t.Logf("after %d frames: %d connection lines logged, idle CPU %d ticks in 2 s, RSS %d KiB", len(frames), logs.count("closed:"), t1-t0, rss)
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
	checkDemoMetadata(t, c)
}
