package dirfollow

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHasMetadataFiles: what Options.AwaitFiles waits for. A log segment
// or a frozen snapshot counts; a missing or empty directory, a snapshot
// FileRawSnapshotWriter is still writing (.checkpoint.part), one being
// deleted (.checkpoint.deleted, Snapshots.deleteIfExists) and a directory
// named like a segment do not.
func TestHasMetadataFiles(t *testing.T) {
	for _, c := range []struct {
		name  string
		files []string
		dirs  []string
		want  bool
	}{
		{name: "missing"},
		{name: "empty", dirs: []string{}},
		{name: "part", files: []string{"00000000000000000100-0000000001.checkpoint.part"}},
		{name: "deleted", files: []string{"00000000000000000100-0000000001.checkpoint.deleted", "00000000000000000000.log.deleted"}},
		{name: "directory", dirs: []string{"00000000000000000000.log"}},
		{name: "other files", files: []string{"leader-epoch-checkpoint", "partition.metadata", "quorum-state"}},
		{name: "segment", files: []string{"00000000000000000000.log"}, want: true},
		{name: "snapshot", files: []string{"00000000000000000100-0000000001.checkpoint"}, want: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "__cluster_metadata-0")
			if c.files != nil || c.dirs != nil {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, n := range c.files {
				if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, n := range c.dirs {
				if err := os.Mkdir(filepath.Join(dir, n), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			f := newFollower(nil, dir, Options{})
			if got := f.hasMetadataFiles(); got != c.want {
				t.Errorf("hasMetadataFiles = %v, want %v", got, c.want)
			}
		})
	}
}
