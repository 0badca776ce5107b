//go:build linux

package main

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// openPTY opens a pseudo-terminal pair through /dev/ptmx (unlockpt and
// ptsname by ioctl), with a 100-column window.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	require.NoError(t, ioctl(m.Fd(), syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)))
	var n uint32
	require.NoError(t, ioctl(m.Fd(), syscall.TIOCGPTN, unsafe.Pointer(&n)))
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	ws := struct{ Row, Col, X, Y uint16 }{24, 100, 0, 0}
	require.NoError(t, ioctl(m.Fd(), syscall.TIOCSWINSZ, unsafe.Pointer(&ws)))
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// screen collects what the shell writes to the terminal.
type screen struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until the output since mark holds want, and returns the new
// mark.
func (s *screen) waitFor(t *testing.T, mark int, want string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out := s.String()
		if i := strings.Index(out[mark:], want); i >= 0 {
			return mark + i + len(want)
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %q; the terminal shows after mark:\n%q", want, out[mark:])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestShellInteractiveOverPTY types into the shell through a pseudo-terminal
// as a person would: Tab completes paths and commands (twice lists the
// candidates), Up recalls the last command, Ctrl-U clears the line, Ctrl-C
// drops it, and exit leaves with the terminal restored to cooked mode.
// readScreen copies what the shell writes to the terminal's master side
// into a screen until the master is closed.
func readScreen(master *os.File) *screen {
	scr := &screen{}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			if n > 0 {
				scr.mu.Lock()
				scr.buf.Write(b[:n])
				scr.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	return scr
}

func TestShellInteractiveOverPTY(t *testing.T) {
	dir := incidentDir(t, 11)
	master, slave := openPTY(t)
	var before syscall.Termios
	require.NoError(t, ioctl(slave.Fd(), syscall.TCGETS, unsafe.Pointer(&before)))

	scr := readScreen(master)
	done := make(chan error, 1)
	go func() { done <- runShell(dir, "", false, slave, slave) }()
	typeKeys := func(s string) {
		_, err := master.Write([]byte(s))
		require.NoError(t, err)
	}

	mark := scr.waitFor(t, 0, "[ Kafka Metadata Shell (kmeta) ]")
	mark = scr.waitFor(t, mark, ">> ")

	// Tab completes the path; ls prints columns for the 100-column screen.
	typeKeys("ls /image/to\t")
	mark = scr.waitFor(t, mark, "ls /image/topics/")
	typeKeys("\r")
	mark = scr.waitFor(t, mark, "byId  byName\r\n")

	typeKeys("cd /image/topics/byName/or\t")
	mark = scr.waitFor(t, mark, "byName/orders/")
	typeKeys("\rpwd\r")
	mark = scr.waitFor(t, mark, "\r\n/image/topics/byName/orders\r\n")

	// Up recalls pwd.
	typeKeys("\x1b[A")
	mark = scr.waitFor(t, mark, ">> pwd")
	typeKeys("\r")
	mark = scr.waitFor(t, mark, "/image/topics/byName/orders\r\n")

	// A command name, then two tabs list the two candidates.
	typeKeys("ca\t")
	mark = scr.waitFor(t, mark, "cat ")
	typeKeys("/image/pr\t\t")
	mark = scr.waitFor(t, mark, "producerIds")
	mark = scr.waitFor(t, mark, "provenance")
	typeKeys("venance\r")
	mark = scr.waitFor(t, mark, "offset ")
	mark = scr.waitFor(t, mark, "Z[UTC]\r\n")

	// Ctrl-U clears, Ctrl-C drops the line.
	typeKeys("garbage\x15pwd\r")
	mark = scr.waitFor(t, mark, "/image/topics/byName/orders\r\n")
	typeKeys("ls /nothing\x03")
	mark = scr.waitFor(t, mark, "^C\r\n")

	// Left arrow and insert: "hstory" becomes "history".
	typeKeys("hstory\x1b[D\x1b[D\x1b[D\x1b[D\x1b[Di\r")
	mark = scr.waitFor(t, mark, "    6  history")
	out := scr.String()[:mark]
	require.Contains(t, out, "    0  ls /image/topics/")
	require.NotContains(t, out, "ls: /nothing")

	typeKeys("exit\r")
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the shell did not exit")
	}
	var after syscall.Termios
	require.NoError(t, ioctl(slave.Fd(), syscall.TCGETS, unsafe.Pointer(&after)))
	require.Equal(t, before.Lflag, after.Lflag, "terminal mode restored")
	require.NotZero(t, after.Lflag&syscall.ICANON)
}
