package proxy

import (
	"log"
	"sync"
	"time"
)

// connLog writes the one line a closed connection gets, at most connLogBurst
// lines a second: a flood of bad connections must not flood the log too.
// Lines beyond that are counted and reported in the next line written.
type connLog struct {
	mu         sync.Mutex
	window     time.Time
	n          int
	suppressed int
}

const connLogBurst = 20

func (l *connLog) printf(format string, args ...any) {
	l.mu.Lock()
	now := time.Now()
	if now.Sub(l.window) >= time.Second {
		l.window, l.n = now, 0
	}
	if l.n >= connLogBurst {
		l.suppressed++
		l.mu.Unlock()
		return
	}
	l.n++
	suppressed := l.suppressed
	l.suppressed = 0
	l.mu.Unlock()
	if suppressed > 0 {
		log.Printf("proxy: (%d more connection lines not logged)", suppressed)
	}
	log.Printf(format, args...)
}
