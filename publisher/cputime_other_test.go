//go:build !unix

package publisher

import (
	"testing"
	"time"
)

func processCPU() time.Duration           { return 0 }
func reportCPU(*testing.B, time.Duration) {}
