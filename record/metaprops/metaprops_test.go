package metaprops

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
)

// TestCorpusMetaProperties reads the meta.properties of every corpus
// metadata directory that has one (in its log directory or inside it), and
// requires every other to report ErrNotFound naming the log directory's
// file. The corpus was harvested without them, so today every directory is
// of the second kind; Kafka-written files are covered by the vectors.
func TestCorpusMetaProperties(t *testing.T) {
	read, absent := 0, 0
	for _, f := range sharedtest.CorpusFolders(t) {
		err := filepath.WalkDir(f.Root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() || d.Name() != "__cluster_metadata-0" {
				return err
			}
			p, err := FindFor(path)
			var e *Error
			switch {
			case err == nil:
				read++
				if p.Version == 1 && (!p.HasClusterID || !p.HasNodeID) {
					t.Errorf("%s: %+v", path, p)
				}
			case errors.Is(err, ErrNotFound) && errors.As(err, &e) && e.File == filepath.Join(filepath.Dir(path), FileName):
				absent++
			default:
				t.Errorf("%s: %v", path, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if read+absent == 0 {
		t.Fatal("no metadata directory in the corpus")
	}
	t.Logf("%d metadata directories: %d with a meta.properties, %d without", read+absent, read, absent)
}

// TestFindForBothPlaces: the log directory's file wins over one copied
// inside the metadata directory, and a damaged file is an error, not a
// reason to look elsewhere.
func TestFindForBothPlaces(t *testing.T) {
	root := t.TempDir()
	meta := filepath.Join(root, "__cluster_metadata-0")
	if err := os.Mkdir(meta, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(meta, FileName), "version=1\nnode.id=2\ncluster.id=inside\n")
	if p, err := FindFor(meta); err != nil || p.ClusterID != "inside" {
		t.Fatalf("inside only: %+v, %v", p, err)
	}
	write(filepath.Join(root, FileName), "version=1\nnode.id=2\ncluster.id=parent\n")
	if p, err := FindFor(meta); err != nil || p.ClusterID != "parent" {
		t.Fatalf("both: %+v, %v", p, err)
	}
	write(filepath.Join(root, FileName), "version=1\ncluster.id=parent\n")
	_, err := FindFor(meta)
	var e *Error
	if !errors.As(err, &e) || e.Field != NodeIDField || !errors.Is(err, ErrMissing) || e.File != filepath.Join(root, FileName) {
		t.Fatalf("damaged parent: %v", err)
	}
	if !strings.Contains(err.Error(), filepath.Join(root, FileName)+": node.id: ") {
		t.Fatalf("message %q does not name the file and the field", err)
	}
}

// TestMissingFile: no file is ErrNotFound and fs.ErrNotExist, naming the
// file; Read takes an fs.FS.
func TestMissingFile(t *testing.T) {
	_, err := ReadLogDir(t.TempDir())
	if !errors.Is(err, ErrNotFound) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), FileName) {
		t.Fatalf("%v", err)
	}
	fsys := fstest.MapFS{"data/meta.properties": {Data: []byte("cluster.id = abc\nbroker.id : 4\n")}}
	p, err := Read(fsys, "data/meta.properties")
	if err != nil || p.Version != 0 || p.ClusterID != "abc" || p.NodeID != 4 || !p.HasNodeID {
		t.Fatalf("%+v, %v", p, err)
	}
	if _, err := Read(fsys, "other/meta.properties"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("%v", err)
	}
}

// TestReservedSigned: DirectoryId.reserved compares the low half as a
// signed long.
func TestReservedSigned(t *testing.T) {
	for _, c := range []struct {
		id   [16]byte
		want bool
	}{
		{[16]byte{}, true}, {[16]byte{15: 99}, true}, {[16]byte{15: 100}, false},
		{[16]byte{8: 0x80}, true}, {[16]byte{7: 1}, false},
	} {
		if got := Reserved(c.id); got != c.want {
			t.Errorf("%x: %v, want %v", c.id, got, c.want)
		}
	}
}
