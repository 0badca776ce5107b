package proxy

import (
	"strings"
	"testing"
	"time"
)

// TestConnLogBounded: 100 connection lines within a second write 20; the
// next line a second later says how many were not written.
func TestConnLogBounded(t *testing.T) {
	logs := captureLog(t)
	var l connLog
	for i := 0; i < 100; i++ {
		l.printf("proxy: line %d", i)
	}
	if n := strings.Count(logs.String(), "proxy: line"); n != connLogBurst {
		t.Fatalf("%d lines written, want %d", n, connLogBurst)
	}
	time.Sleep(1100 * time.Millisecond)
	l.printf("proxy: later")
	out := logs.String()
	if !strings.Contains(out, "(80 more connection lines not logged)") || !strings.HasSuffix(strings.TrimSpace(out), "proxy: later") {
		t.Fatalf("after a second:\n%s", out)
	}
}
