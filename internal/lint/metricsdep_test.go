package lint

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// metricsImporters are the only directories whose Go files may import a
// github.com/prometheus/ package: the proxy command, which serves its
// metrics with client_golang, and the interop tests that scrape and lint
// them (test files only). The library stays free of a metrics dependency;
// an embedder exports publisher.Stats.Metrics and epoch/proxy's Observer
// with whatever it uses.
var metricsImporters = map[string]bool{"examples/proxy": true, "examples/interop": true}

// TestNoMetricsDependency: no package of the repository (nested modules and
// tests included) but metricsImporters imports Prometheus' client, and
// examples/interop imports it from tests only — and examples/proxy does
// import it, so that the walk is known to see the imports it checks.
func TestNoMetricsDependency(t *testing.T) {
	root := moduleRoot(t)
	seen := false
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, build.ImportComment)
		if _, ok := err.(*build.NoGoError); ok {
			return nil
		}
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		lists := map[string][]string{"": pkg.Imports, " (tests)": pkg.TestImports, " (external tests)": pkg.XTestImports}
		for kind, list := range lists {
			i := slices.IndexFunc(list, func(imp string) bool { return strings.HasPrefix(imp, "github.com/prometheus/") })
			if i < 0 {
				continue
			}
			if rel == "examples/proxy" && kind == "" {
				seen = true
			}
			if !metricsImporters[rel] || rel == "examples/interop" && kind == "" {
				t.Errorf("%s%s imports %s: only examples/proxy may depend on a metrics package", rel, kind, list[i])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Error("examples/proxy does not import prometheus/client_golang: the walk saw no import to check")
	}
}
