package lint

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// tourPackages are the import paths a README snippet may name by their
// package name.
var tourPackages = [...]string{
	"context", "errors", "fmt", "os", "time",
	"github.com/twmb/franz-go/pkg/kmsg",
	modulePath + "/record",
	modulePath + "/record/metaprops",
	modulePath + "/image",
	modulePath + "/image/answer",
	modulePath + "/image/authz",
	modulePath + "/image/redact",
	modulePath + "/delta",
	modulePath + "/delta/deltatest",
	modulePath + "/publisher",
	modulePath + "/publisher/dirfollow",
	modulePath + "/publisher/history",
	modulePath + "/epoch",
	modulePath + "/epoch/clientview",
	modulePath + "/epoch/partitioner",
	modulePath + "/epoch/proxy",
}

// sketchErrors are the type errors a README snippet may have because it is
// a sketch, not a program: names it leaves to the reader (a directory, a
// request, a cluster id), values it does not use.
var sketchErrors = regexp.MustCompile(`^(undefined: [a-z]\w*|declared and not used: \w+|"[^"]+" imported and not used|no new variables on left side of :=)$`)

// TestReadmeCodeCompiles type-checks every ```go block of the README
// against the module's packages, as the body of one function: a name the
// sketch leaves undefined (dir, req, clusterID) or a value it leaves unused
// is fine, but every call, field and type it takes from a package must be
// the package's API as it is now.
func TestReadmeCodeCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the module's packages from source; not in -short mode")
	}
	root := moduleRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) == 0 {
		t.Fatal("README.md has no ```go block")
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	for i, b := range blocks {
		src := "package tour\n\nimport (\n"
		for _, p := range tourPackages {
			src += "\t" + `"` + p + `"` + "\n"
		}
		src += ")\n\nfunc tour() {\n" + b[1] + "}\n"
		f, err := parser.ParseFile(fset, "README.md block "+strconv.Itoa(i+1), src, 0)
		if err != nil {
			t.Errorf("README.md ```go block %d does not parse: %v", i+1, err)
			continue
		}
		var bad []string
		conf := types.Config{Importer: imp, Error: func(err error) {
			te := err.(types.Error)
			if !sketchErrors.MatchString(te.Msg) {
				bad = append(bad, te.Msg)
			}
		}}
		wd, _ := os.Getwd()
		if err := os.Chdir(root); err != nil {
			t.Fatal(err)
		}
		_, _ = conf.Check("tour", fset, []*ast.File{f}, nil)
		_ = os.Chdir(wd)
		sort.Strings(bad)
		if len(bad) > 0 {
			t.Errorf("README.md ```go block %d does not compile against the module's API:\n\t%s\nblock:\n%s",
				i+1, strings.Join(bad, "\n\t"), b[1])
		}
	}
}
