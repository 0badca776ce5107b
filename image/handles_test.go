package image

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/internal/typecheck"
)

// blockTypes are the types whose values live in topic blocks, memory the
// garbage collector does not scan (topicblock.go), and their handles: a
// pointer to any of them handed out would let a caller write into a block
// (*p = q), planting a pointer the collector does not see.
var blockTypes = []string{"topic", "PartitionRegistration", "Topic", "Partition"}

// TestNoExportedPointerIntoTopicBlocks lists, with go/types, every exported
// function and method (of the exported types, promoted ones included) of
// the package and fails on one whose results reach a
// pointer to a type living in a topic block: through slices, arrays, maps,
// channels, the exported fields of structs, type arguments (iter.Seq) and
// the parameters and results of function types (an iterator's yield). The
// accessors hand out Topic and Partition handles and PartitionRegistration
// values instead, so that `*p = …` has nothing to write through; the test
// keeps that door closed.
func TestNoExportedPointerIntoTopicBlocks(t *testing.T) {
	_, _, pkg, _ := typecheck.Package(t, "github.com/kmeta-go/kmeta/image")
	block := map[types.Object]bool{}
	for _, n := range blockTypes {
		obj := pkg.Scope().Lookup(n)
		if obj == nil {
			t.Fatalf("type %s not found", n)
		}
		block[obj] = true
	}
	w := &blockWalk{t: t, pkg: pkg, block: block}
	checked := 0
	check := func(where string, sig *types.Signature) {
		checked++
		w.results(where, sig)
	}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		switch obj := scope.Lookup(name).(type) {
		case *types.Func:
			if obj.Exported() {
				check(name, obj.Type().(*types.Signature))
			}
		case *types.TypeName:
			// The method set of *T holds T's methods and those promoted
			// from embedded fields.
			if !obj.Exported() {
				continue
			}
			ms := types.NewMethodSet(types.NewPointer(obj.Type()))
			for i := range ms.Len() {
				if m := ms.At(i).Obj(); m.Exported() {
					check(name+"."+m.Name(), m.Type().(*types.Signature))
				}
			}
		}
	}
	// The walk must have seen the accessors, or it checks nothing.
	if checked < 100 {
		t.Fatalf("checked %d exported functions and methods, want the whole API", checked)
	}
}

// TestAssignThroughAccessorsDoesNotCompile type-checks, with go/types, a
// caller that assigns through what each topic and partition accessor
// returns (`*p = …`, the use-after-free the handles close) and wants every
// one of them refused by the compiler.
func TestAssignThroughAccessorsDoesNotCompile(t *testing.T) {
	attempts := map[string]string{
		"Image.Topic":        `t, _ := img.Topic("x"); *t = image.Topic{}`,
		"Image.TopicByID":    `t, _ := img.TopicByID(record.UUID{}); *t = image.Topic{}`,
		"Topics.ByID":        `t, _ := img.Topics().ByID(record.UUID{}); *t = image.Topic{}`,
		"Topics.ByName":      `t, _ := img.Topics().ByName("x"); *t = image.Topic{}`,
		"Topics.ByNameAt":    `t := img.Topics().ByNameAt(0); *t = image.Topic{}`,
		"Topics.All":         `for t := range img.Topics().All() { *t = image.Topic{} }`,
		"Topics.AllByName":   `for t := range img.Topics().AllByName() { *t = image.Topic{} }`,
		"Topics.Sorted":      `for _, t := range img.Topics().Sorted() { *t = image.Topic{} }`,
		"Topics.Partition":   `p, _ := img.Topics().Partition(record.UUID{}, 0); *p = image.PartitionRegistration{}`,
		"Topics.HostedBy":    `for _, p := range img.Topics().HostedBy(1) { *p = image.PartitionRegistration{} }`,
		"Topic.Partition":    `t, _ := img.Topic("x"); p, _ := t.Partition(0); *p = image.PartitionRegistration{}`,
		"Topic.PartitionAt":  `t, _ := img.Topic("x"); p := t.PartitionAt(0); *p = image.PartitionRegistration{}`,
		"Topic.Partitions":   `t, _ := img.Topic("x"); for p := range t.Partitions() { *p = image.PartitionRegistration{} }`,
		"TopicBuilder.Topic": `t := image.NewTopicBuilder("x", record.UUID{}).Topic(); *t = image.Topic{}`,
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	for name, body := range attempts {
		src := "package caller\n\nimport (\n\t\"github.com/kmeta-go/kmeta/image\"\n\t\"github.com/kmeta-go/kmeta/record\"\n)\n\n" +
			"var _ record.UUID\n\nfunc f(img *image.Image) {\n\t" + body + "\n}\n"
		f, err := parser.ParseFile(fset, name+".go", src, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var errs []string
		conf := types.Config{Importer: imp, Error: func(err error) { errs = append(errs, err.Error()) }}
		_, _ = conf.Check("caller", fset, []*ast.File{f}, nil)
		indirect := false
		for _, e := range errs {
			if strings.Contains(e, "cannot indirect") {
				indirect = true
			}
		}
		if !indirect {
			t.Errorf("%s: `%s` type-checks (errors: %q); it must be refused as an indirection of a non-pointer", name, body, errs)
		}
	}
}

// blockWalk looks for pointers to block types in the types a signature
// hands out.
type blockWalk struct {
	t     *testing.T
	pkg   *types.Package
	block map[types.Object]bool
}

// results reports every pointer to a block type reachable from sig's
// results.
func (w *blockWalk) results(where string, sig *types.Signature) {
	seen := map[types.Type]bool{}
	for i := range sig.Results().Len() {
		w.visit(where, seen, "result", sig.Results().At(i).Type())
	}
}

func (w *blockWalk) visit(where string, seen map[types.Type]bool, path string, ty types.Type) {
	if seen[ty] {
		return
	}
	seen[ty] = true
	switch x := ty.(type) {
	case *types.Pointer:
		if n, ok := x.Elem().(*types.Named); ok && w.block[n.Obj()] {
			w.t.Errorf("%s hands out %s, a pointer into a topic block (%s)", where, types.TypeString(x, types.RelativeTo(w.pkg)), path)
		}
		w.visit(where, seen, path+" → *", x.Elem())
	case *types.Slice:
		w.visit(where, seen, path+" → []", x.Elem())
	case *types.Array:
		w.visit(where, seen, path+" → [n]", x.Elem())
	case *types.Map:
		w.visit(where, seen, path+" → map key", x.Key())
		w.visit(where, seen, path+" → map value", x.Elem())
	case *types.Chan:
		w.visit(where, seen, path+" → chan", x.Elem())
	case *types.Signature:
		for i := range x.Params().Len() {
			w.visit(where, seen, path+" → func param", x.Params().At(i).Type())
		}
		for i := range x.Results().Len() {
			w.visit(where, seen, path+" → func result", x.Results().At(i).Type())
		}
	case *types.Struct:
		for i := range x.NumFields() {
			if f := x.Field(i); f.Exported() {
				w.visit(where, seen, path+" → ."+f.Name(), f.Type())
			}
		}
	case *types.Named:
		if args := x.TypeArgs(); args != nil {
			for i := range args.Len() {
				w.visit(where, seen, path+" → ["+x.Obj().Name()+"]", args.At(i))
			}
		}
		if x.Obj().Pkg() == w.pkg {
			w.visit(where, seen, path+" → "+x.Obj().Name(), x.Underlying())
		}
	}
}
