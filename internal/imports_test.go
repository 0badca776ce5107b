package internal_test

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/kmeta-go/kmeta/"

// TestInternalImportsNoPublicPackage: the packages under internal are the
// leaves of the module. None of their files, tests included, imports a
// public kmeta package, so that a public package may use any of them without
// a cycle and nothing an embedder needs hides behind internal.
func TestInternalImportsNoPublicPackage(t *testing.T) {
	n := 0
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() || path == "." || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
			return err
		}
		pkg, err := build.ImportDir(path, build.ImportComment)
		if _, ok := err.(*build.NoGoError); ok {
			return nil
		}
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		n++
		for _, list := range [][]string{pkg.Imports, pkg.TestImports, pkg.XTestImports} {
			for _, imp := range list {
				if strings.HasPrefix(imp, module) && !strings.HasPrefix(imp, module+"internal/") {
					t.Errorf("internal/%s imports the public package %s", path, imp)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no package found under internal")
	}
}
