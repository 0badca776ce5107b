package proxytest

import (
	"bytes"
	"log"
	"os"
	"sync"
	"testing"
)

// Log holds the standard logger's lines while a test runs (CaptureLog).
type Log struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p; the standard logger writes each line with one call.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String is everything written so far.
func (l *Log) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.buf.String() }

// CaptureLog sends the standard logger's output to a Log until tb ends,
// then back to stderr. The logger is process-wide: lines of anything else
// still running in the test binary arrive there too.
func CaptureLog(tb testing.TB) *Log {
	l := &Log{}
	log.SetOutput(l)
	tb.Cleanup(func() { log.SetOutput(os.Stderr) })
	return l
}
