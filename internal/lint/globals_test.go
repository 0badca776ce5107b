package lint

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// allowedCalls are the constructors whose results may be held in a
// package-level var: sentinel errors (compared with errors.Is, never
// changed) and values computed once that no code writes (a compiled
// regular expression, a CRC table, a hash seed).
var allowedCalls = [...]string{
	"errors.New",
	"regexp.MustCompile",
	"crc32.MakeTable",
	"maphash.MakeSeed",
	"fmt.Errorf", // a sentinel wrapping another
}

// allowedTypes are the types from other packages that a package-level var
// may have: values that hold no state a caller can reach (sync.Once guards
// an initialisation done once per process).
var allowedTypes = [...]string{
	"sync.Once",
}

// allowedVars are the package-level vars, by "dir/file.go name" (each a
// path.Match pattern), that the rules below report but that hold no state
// anyone changes; each says why. Keep it tiny.
var allowedVars = [...]string{
	// The empty image and its empty components: immutable values shared
	// by every image built from nothing (package image never writes a
	// value once it is published).
	"image/*.go empty*",
	// Sentinels compared by identity and never written through: a
	// deleted topic's slot in the client view's table, and the closed
	// channel of a replaced generation.
	"epoch/clientview/table.go tombstone",
	"publisher/publication.go superseded",
	// Kafka's redaction criteria and config schema: read-only values of
	// interface and pointer type (redact.Strict, redact.Disabled, the
	// schema of Kafka's ConfigDefs).
	"image/redact/redact.go Strict",
	"image/redact/redact.go Disabled",
	"image/redact/schema.go KafkaSchema",
}

// isAllowedVar reports whether var name of file rel is in allowedVars.
func isAllowedVar(rel, name string) bool {
	for _, a := range allowedVars {
		file, pat, _ := strings.Cut(a, " ")
		okFile, _ := path.Match(file, rel)
		okName, _ := path.Match(pat, name)
		if okFile && okName {
			return true
		}
	}
	return false
}

// TestNoPackageLevelMutableState: no hand-written, non-test Go file of the
// module declares a package-level var that holds a map, a slice, a pointer,
// a channel, a function or an interface (state a caller could reach and
// change, or that one user of the package could change for another): a
// package keeps its state in the values its callers build. What may remain
// is the blank identifier (compile-time assertions), arrays and structs of
// plain values, literals, sentinel errors and once-computed constants made
// by allowedCalls, and allowedVars. Generated files (// Code generated ...
// DO NOT EDIT.), testdata and nested modules (examples/interop) are not
// checked.
func TestNoPackageLevelMutableState(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	checked := 0
	types := map[string]map[string]ast.Expr{} // dir -> type name -> type
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || exists(filepath.Join(path, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		checked++
		rel, _ := filepath.Rel(root, path)
		dir := filepath.Dir(path)
		if types[dir] == nil {
			types[dir] = packageTypes(t, fset, dir)
		}
		c := classifier{types: types[dir], seen: map[string]bool{}, imports: map[string]map[string]ast.Expr{}}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			rest, ok := strings.CutPrefix(p, modulePath+"/")
			if !ok {
				continue
			}
			d := filepath.Join(root, filepath.FromSlash(rest))
			if types[d] == nil {
				types[d] = packageTypes(t, fset, d)
			}
			name := p[strings.LastIndex(p, "/")+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			c.imports[name] = types[d]
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if name.Name == "_" || isAllowedVar(filepath.ToSlash(rel), name.Name) {
						continue
					}
					var value ast.Expr
					if i < len(vs.Values) {
						value = vs.Values[i]
					}
					if why := c.mutable(vs.Type, value); why != "" {
						t.Errorf("%s: package-level var %s %s", fset.Position(name.Pos()), name.Name, why)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d files under %s", checked, root)
	}
}

// mutable says why a package-level var of type typ (nil: inferred) and
// initial value value (nil: the zero value) may hold mutable state, or "".
func (c classifier) mutable(typ, value ast.Expr) string {
	if typ != nil {
		return c.mutableType(typ)
	}
	switch v := value.(type) {
	case *ast.BasicLit:
		return ""
	case *ast.CompositeLit:
		return c.mutableType(v.Type)
	case *ast.UnaryExpr:
		if v.Op == token.AND {
			return "holds a pointer"
		}
		return ""
	case *ast.CallExpr:
		fn := exprString(v.Fun)
		for _, a := range allowedCalls {
			if fn == a {
				return ""
			}
		}
		if fn == "new" || fn == "make" {
			return "holds a " + fn + "'d value"
		}
		return "is the result of " + fn + " (give it a type, or allow the call)"
	case *ast.FuncLit:
		return "holds a function"
	}
	return "is initialised from " + exprString(value) + " (give it a type, or allow it)"
}

// mutableType says why a var of type typ may hold mutable state, or "".
// Named types other than the allowed ones cannot be classified from the
// syntax and are reported.
func (c classifier) mutableType(typ ast.Expr) string {
	switch t := typ.(type) {
	case *ast.MapType:
		return "holds a map"
	case *ast.ArrayType:
		if t.Len == nil {
			return "holds a slice"
		}
		return c.mutableType(t.Elt)
	case *ast.StarExpr:
		return "holds a pointer"
	case *ast.ChanType:
		return "holds a channel"
	case *ast.FuncType:
		return "holds a function"
	case *ast.InterfaceType:
		return "holds an interface"
	case *ast.StructType:
		for _, f := range t.Fields.List {
			if why := c.mutableType(f.Type); why != "" {
				return why
			}
		}
		return ""
	case *ast.Ident:
		switch t.Name {
		case "bool", "string", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
			"float32", "float64", "byte", "rune", "error":
			return ""
		}
		if u, ok := c.types[t.Name]; ok && !c.seen[t.Name] {
			c.seen[t.Name] = true
			defer delete(c.seen, t.Name)
			return c.mutableType(u)
		}
		return "has type " + t.Name + " (cannot tell from the syntax; allow it)"
	case *ast.SelectorExpr:
		for _, a := range allowedTypes {
			if exprString(t) == a {
				return ""
			}
		}
		// A type of another package of the module: classified from its
		// declaration there.
		if pkg, ok := t.X.(*ast.Ident); ok {
			if u, ok := c.imports[pkg.Name][t.Sel.Name]; ok && !c.seen[exprString(t)] {
				c.seen[exprString(t)] = true
				defer delete(c.seen, exprString(t))
				inner := classifier{types: c.imports[pkg.Name], seen: c.seen}
				return inner.mutableType(u)
			}
		}
	}
	return "has type " + exprString(typ) + " (cannot tell from the syntax; allow it)"
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.IndexExpr:
		return exprString(e.X) + "[...]"
	case *ast.IndexListExpr:
		return exprString(e.X) + "[...]"
	}
	if e == nil {
		return "nothing"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", e), "*ast.")
}

// classifier classifies the types of one package: types are its type
// declarations, seen the named types being classified (a recursive type
// holds a pointer, a slice or a map, which is reported before it recurses).
type classifier struct {
	types   map[string]ast.Expr
	seen    map[string]bool
	imports map[string]map[string]ast.Expr // the module's packages a file imports, by name
}

// modulePath is the module's path (go.mod).
const modulePath = "github.com/kmeta-go/kmeta"

// packageTypes is the type declarations of the non-test files of dir.
func packageTypes(t *testing.T, fset *token.FileSet, dir string) map[string]ast.Expr {
	out := map[string]ast.Expr{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, s := range gd.Specs {
					ts := s.(*ast.TypeSpec)
					out[ts.Name.Name] = ts.Type
				}
			}
		}
	}
	return out
}

func moduleRoot(t *testing.T) string {
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if !exists(filepath.Join(dir, "go.mod")) {
		t.Fatalf("no go.mod at %s", dir)
	}
	return dir
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestClassifier: each shape the rule forbids is reported and each it allows
// is not, so that TestNoPackageLevelMutableState can fail.
func TestClassifier(t *testing.T) {
	src := `package p
import ("errors"; "sync"; "regexp")
type plain struct{ a int; b [2]string }
type holder struct{ m map[string]int }
type list []int
var (
	bad1 = map[string]int{}
	bad2 []int
	bad3 = &plain{}
	bad4 = new(plain)
	bad5 holder
	bad6 = list{1}
	bad7 = make(chan int)
	bad8 = func() int { return 1 }
	bad9 = other.Thing
	bad10 = build()
	bad11 *plain
	bad12 interface{}
	ok1 = errors.New("x")
	ok2 plain
	ok3 = [...]string{"a"}
	ok4 sync.Once
	ok5 = regexp.MustCompile("a")
	ok6 = 3
	ok7 = plain{a: 1}
	ok8 other.Code
	bad13 other.Table
	bad14 unknownpkg.T
)`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	other := map[string]ast.Expr{ // package other of the module
		"Code":  &ast.Ident{Name: "int16"},
		"Table": &ast.MapType{Key: &ast.Ident{Name: "string"}, Value: &ast.Ident{Name: "int"}},
	}
	c := classifier{types: map[string]ast.Expr{}, seen: map[string]bool{}, imports: map[string]map[string]ast.Expr{"other": other}}
	for _, d := range f.Decls {
		gd := d.(*ast.GenDecl)
		for _, s := range gd.Specs {
			if ts, ok := s.(*ast.TypeSpec); ok {
				c.types[ts.Name.Name] = ts.Type
			}
		}
	}
	for _, d := range f.Decls {
		gd := d.(*ast.GenDecl)
		if gd.Tok != token.VAR {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			var v ast.Expr
			if len(vs.Values) > 0 {
				v = vs.Values[0]
			}
			why := c.mutable(vs.Type, v)
			name := vs.Names[0].Name
			if strings.HasPrefix(name, "bad") && why == "" {
				t.Errorf("%s is not reported", name)
			}
			if strings.HasPrefix(name, "ok") && why != "" {
				t.Errorf("%s is reported: %s", name, why)
			}
		}
	}
}
