package datadriven

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRewriteIsAFixedPoint: a script parses into its cases, and writing it
// back with the outputs it holds gives the same bytes (blank-line outputs in
// the doubled ---- form included); a changed output is written back.
func TestRewriteIsAFixedPoint(t *testing.T) {
	script := "# comment\n\nadd 1 2\n----\n3\n\nsay x=hello\nbody\n----\n----\nhello\n\nworld\n----\n----\n\n# end\n"
	cases, _, err := Parse("s", script)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 || cases[0].Want != "3" || cases[1].Input != "body" || cases[1].Want != "hello\n\nworld" {
		t.Fatalf("parsed %+v", cases)
	}
	if v, _ := cases[1].Arg("x"); v != "hello" || len(cases[0].Positional()) != 2 {
		t.Fatalf("args %+v", cases)
	}
	path := filepath.Join(t.TempDir(), "s.txt")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	Run(t, path, true, func(t *testing.T, c *Case) string { return c.Want })
	got, _ := os.ReadFile(path)
	if string(got) != script {
		t.Fatalf("rewrite changed the script:\n%s", got)
	}
	Run(t, path, true, func(t *testing.T, c *Case) string { return strings.ToUpper(c.Want) })
	got, _ = os.ReadFile(path)
	if !strings.Contains(string(got), "----\n3\n") || !strings.Contains(string(got), "HELLO\n\nWORLD") {
		t.Fatalf("rewrite did not write the new outputs:\n%s", got)
	}
}
