//go:build !unix

package benchtest

import (
	"testing"
	"time"
)

// ProcessCPU is not measured on this platform: it returns 0.
func ProcessCPU() time.Duration { return 0 }

// ReportCPU reports nothing on this platform.
func ReportCPU(*testing.B, time.Duration) {}
