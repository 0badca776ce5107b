package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/epoch/proxy"
)

// TestClusterIDBadMetaProperties: a meta.properties that fails Kafka's
// checks (MetaProperties: a version 1 file needs node.id) is not taken
// silently: the proxy logs the file and what is wrong, and answers with
// the default cluster id.
func TestClusterIDBadMetaProperties(t *testing.T) {
	logs := captureLog(t)
	dir := t.TempDir()
	part := filepath.Join(dir, "__cluster_metadata-0")
	if err := os.Mkdir(part, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "meta.properties")
	if err := os.WriteFile(file, []byte("version=1\ncluster.id=abc123\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readClusterID(part); got != proxy.DefaultClusterID {
		t.Errorf("got %q, want %q", got, proxy.DefaultClusterID)
	}
	if out := logs.String(); !strings.Contains(out, file) || !strings.Contains(out, "node.id") {
		t.Errorf("no line naming the file and the field:\n%s", out)
	}
}
