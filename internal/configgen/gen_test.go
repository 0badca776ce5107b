package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedIsCurrent: image/config/zz_defs.go is what configgen makes
// of the committed config-defs.jsonl.gz (go generate ./image/config).
func TestGeneratedIsCurrent(t *testing.T) {
	out := filepath.Join(t.TempDir(), "zz_defs.go")
	if err := run("../kafkaoracle/testdata/config-defs.jsonl.gz", out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../image/config/zz_defs.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("image/config/zz_defs.go is stale: run go generate ./image/config")
	}
}

// TestBadInput: a missing or damaged input is an error, not a panic.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	if err := run(filepath.Join(dir, "none.jsonl.gz"), filepath.Join(dir, "out.go")); err == nil {
		t.Error("a missing input is accepted")
	}
	bad := filepath.Join(dir, "bad.jsonl.gz")
	if err := os.WriteFile(bad, []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(bad, filepath.Join(dir, "out.go")); err == nil {
		t.Error("a damaged input is accepted")
	}
}
