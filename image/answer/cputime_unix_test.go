//go:build unix

package answer

import (
	"syscall"
	"testing"
	"time"
)

// processCPU is the CPU time the process has used (user + system, every
// thread: the GC's background workers included).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds a cpu-ns/op metric: CPU time per operation, which unlike
// ns/op does not grow when other processes take the machine's cores.
func reportCPU(b *testing.B, start time.Duration) {
	if start > 0 && b.N > 0 {
		b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}
