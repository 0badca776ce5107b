package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// allowedCodeFiles are the files, by "dir/file.go" path.Match pattern,
// that may still declare their own error-code constants; each says why.
var allowedCodeFiles = [...]string{}

// codeName matches the names an error-code constant goes by (errFoo,
// codeFoo, fooErrorCode, fooErrCode).
var codeName = regexp.MustCompile(`^(err|code)[A-Z0-9_]|^(Err|Code)[A-Z]|(?i)err(or)?_?code`)

// errorCodeSpec says why a const or var spec declares a Kafka error code
// beside image/kafkaerr, or "": an int16 typed name that reads as an error
// code, any name set from int16(kafkaerr.X) or kafkaerr.X.Int16(), or an
// untyped integer literal whose name reads as an error code.
func errorCodeSpec(vs *ast.ValueSpec) string {
	for i, name := range vs.Names {
		var value ast.Expr
		if i < len(vs.Values) {
			value = vs.Values[i]
		}
		if isKafkaerrInt16(value) {
			return name.Name + " copies a kafkaerr code into an int16"
		}
		if !codeName.MatchString(name.Name) {
			continue
		}
		if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "int16" {
			return name.Name + " is an int16 error code"
		}
		if lit, ok := value.(*ast.BasicLit); ok && vs.Type == nil && lit.Kind == token.INT {
			return name.Name + " is an untyped error-code literal"
		}
		if u, ok := value.(*ast.UnaryExpr); ok && vs.Type == nil && u.Op == token.SUB {
			if lit, ok := u.X.(*ast.BasicLit); ok && lit.Kind == token.INT {
				return name.Name + " is an untyped error-code literal"
			}
		}
	}
	return ""
}

// isKafkaerrInt16 reports whether e is int16(kafkaerr.X) or kafkaerr.X.Int16().
func isKafkaerrInt16(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "int16" && len(call.Args) == 1 {
		return strings.HasPrefix(exprString(call.Args[0]), "kafkaerr.")
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Int16" {
		return strings.HasPrefix(exprString(sel.X), "kafkaerr.")
	}
	return false
}

// errorCodeDecls reports every const or var spec of f that declares an
// error code (errorCodeSpec), as "position: why".
func errorCodeDecls(fset *token.FileSet, f *ast.File) []string {
	var bad []string
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || (gd.Tok != token.CONST && gd.Tok != token.VAR) {
			continue
		}
		for _, spec := range gd.Specs {
			if why := errorCodeSpec(spec.(*ast.ValueSpec)); why != "" {
				bad = append(bad, fset.Position(spec.Pos()).String()+": "+why)
			}
		}
	}
	return bad
}

// TestErrorCodesLiveInKafkaerr: Kafka error codes have one home,
// image/kafkaerr's Code (an error, with Kafka's name). No other hand-written
// Go file of the module, tests included, declares a package-level block of
// int16 error codes, copies kafkaerr codes into int16 constants, or names
// a bare number as an error code; use kafkaerr.X, kafkaerr.X.Int16() at a
// kmsg field and kafkaerr.FromInt16 to read one. Generated files,
// testdata, nested modules and allowedCodeFiles are not checked.
func TestErrorCodesLiveInKafkaerr(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || exists(filepath.Join(p, "go.mod")) || rel == "image/kafkaerr") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		for _, a := range allowedCodeFiles {
			if ok, _ := path.Match(a, rel); ok {
				return nil
			}
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		checked++
		for _, b := range errorCodeDecls(fset, f) {
			t.Errorf("%s (use image/kafkaerr)", b)
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

// TestErrorCodeDetector: the detector of TestErrorCodesLiveInKafkaerr
// catches the shapes the module used to have (an int16 block in
// image/quota, int16(kafkaerr.X) copies in epoch/clientview, an untyped
// RebootstrapErrorCode) and passes ordinary constants.
func TestErrorCodeDetector(t *testing.T) {
	for _, tc := range []struct {
		src string
		bad bool
	}{
		{"const (\n\tcodeInvalidRequest int16 = 42\n\tcodeUnsupportedVersion int16 = 35\n)", true},
		{"const errNotLeaderOrFollower = int16(kafkaerr.NotLeaderOrFollower)", true},
		{"var x = kafkaerr.InvalidRequest.Int16()", true},
		{"const RebootstrapErrorCode = 129", true},
		{"const errUnsupportedVersionCode = 35", true},
		{"const errUnknown = -1", true},
		{"const anyCode, matchCode = 1, 2", false},
		{"const maxRecords int16 = 10000", false},
		{"const c = kafkaerr.InvalidRequest", false},
		{"var ErrUnknownTopic error = kafkaerr.UnknownTopicOrPartition", false},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", "package x\n"+tc.src+"\n", 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(errorCodeDecls(fset, f)) > 0; got != tc.bad {
			t.Errorf("%q: reported %v, want %v", tc.src, got, tc.bad)
		}
	}
}
