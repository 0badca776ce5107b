package internal_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// notes are the names of the project's own notes, which ship outside the
// module: a comment that cites them cannot be followed by a reader of the
// module alone.
var notes = []string{"spec §", "kafka-spec.md", "kafka-controller-spec", "scenarios.md", "architecture.md", "shared/docs"}

// TestCommentsStandAlone: no comment in the module cites the project's
// notes, and no comment of a public package's non-test file points outside
// the module (../shared): every doc comment names Kafka's classes, methods
// and KIPs instead, so that go doc -all of every package stands alone.
func TestCommentsStandAlone(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		n++
		public := !strings.HasPrefix(rel, "internal"+string(filepath.Separator)) && !strings.HasSuffix(rel, "_test.go")
		for _, g := range f.Comments {
			text := g.Text()
			for _, w := range notes {
				if strings.Contains(text, w) {
					t.Errorf("%s: a comment cites the project's notes (%q): %s", rel, w, firstLine(text, w))
				}
			}
			if public && strings.Contains(text, "../shared") {
				t.Errorf("%s: a doc comment points outside the module: %s", rel, firstLine(text, "../shared"))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d Go files found under %s", n, root)
	}
}

func firstLine(text, w string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, w) {
			return l
		}
	}
	return ""
}
