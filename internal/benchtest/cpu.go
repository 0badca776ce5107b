//go:build unix

// Package benchtest holds what kmeta's benchmarks share: the process's CPU
// time, reported beside wall time because wall time on a shared machine
// grows with the neighbours' load while CPU time per operation does not.
package benchtest

import (
	"syscall"
	"testing"
	"time"
)

// ProcessCPU is the CPU time the process has used (user + system, every
// thread: the GC's background workers included).
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ReportCPU adds a cpu-ns/op metric to b: the CPU time used since start
// (a ProcessCPU reading) per operation.
func ReportCPU(b *testing.B, start time.Duration) {
	if start > 0 && b.N > 0 {
		b.ReportMetric(float64(ProcessCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}
