package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestRealClientsModule runs the real-client suite of examples/interop
// (franz-go, sarama and kcat against this proxy). That suite is a module of
// its own, so that the client libraries stay out of kmeta's go.mod, and the
// root's `go test ./...` would not reach it; this test runs it, with the race
// detector when this test has it. Skipped with -short.
func TestRealClientsModule(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the real-client suite (examples/interop) is not run")
	}
	dir, err := filepath.Abs(filepath.Join("..", "interop"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("examples/interop/go.mod: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	args := []string{"test", "-count=1"}
	if raceEnabled {
		args = append(args, "-race")
	}
	if testing.Verbose() {
		args = append(args, "-v")
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "./...")...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("go %v in examples/interop:\n%s", args, out)
	if err != nil {
		t.Fatalf("the real-client suite failed: %v", err)
	}
}
