package image_test

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/typecheck"
	"github.com/kmeta-go/kmeta/record"
)

// builderTypes are the only exported types of package image whose methods
// may write: they build images and are never reachable from one (the
// shape of immutable.MapBuilder).
var builderTypes = []string{"Builder", "TopicBuilder"}

// copiedValues are the exported types returned by value whose exported
// fields hold slices or pointers, and why those never alias an image:
// TestValuesAreCopied checks the first three.
var copiedValues = map[string]string{
	"ScramCredential": "Scram.Get and Builder.PutScram copy the bytes",
	"Token":           "Tokens.Get, Tokens.All and Builder.PutTokens copy the renewers",
	"QuotaEntityPart": "QuotaEntity.Parts and NewQuotaEntity copy the names",
	"Difference":      "Diff makes every Difference afresh for its caller",
}

// TestExportedAPIDoesNotWrite lists package image's exported API with
// go/types and fails on anything that lets a caller change a published
// image (MetadataImage is immutable in Kafka; here it must be so through
// every exported identifier):
//
//   - an exported method of a type other than the builders that writes
//     through its receiver: an assignment, increment, append, copy, clear
//     or delete rooted at the receiver, directly or through a method of the
//     package it calls on the receiver;
//   - an exported field of a type the package hands out by pointer (a
//     caller holding the pointer could assign it);
//   - an exported method of a type other than the builders that returns a
//     slice or map rooted at its receiver (the image's own array);
//   - an exported field holding a slice, map, pointer, channel or function
//     in a type an exported function returns by value, unless that type is
//     only ever built by the caller (options), is a builder, or is one of
//     copiedValues.
//
// Not covered, as for every Go value handed out by pointer: a caller may
// overwrite a whole *Partition, *Topic or *Broker it was given
// ("*p = image.Partition{}"); the types' fields are unexported, so nothing
// narrower can be written.
func TestExportedAPIDoesNotWrite(t *testing.T) {
	_, files, pkg, info := typecheck.Package(t, "github.com/kmeta-go/kmeta/image")
	w := newReceiverWrites(files, pkg, info)
	isBuilder := func(n string) bool { return slices.Contains(builderTypes, n) }
	var problems []string
	results := resultKinds{pkg: pkg, byPointer: map[string]bool{}, byValue: map[string]bool{}}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		if fn, ok := obj.(*types.Func); ok {
			results.note(fn.Signature())
			continue
		}
		tn, ok := obj.(*types.TypeName)
		if !ok {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		for m := range named.Methods() {
			if !m.Exported() {
				continue
			}
			results.note(m.Signature())
			if isBuilder(name) {
				continue
			}
			if what := w.of(m, map[*types.Func]bool{}); what != "" {
				problems = append(problems, "method "+name+"."+m.Name()+" writes: it "+what)
			}
		}
	}
	for _, name := range scope.Names() {
		if tn, ok := scope.Lookup(name).(*types.TypeName); ok && tn.Exported() && !isBuilder(name) {
			problems = append(problems, results.fieldProblems(tn)...)
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
	// The check itself: the builders' own methods are found writing, so a
	// writing method elsewhere would be too.
	b := scope.Lookup("TopicBuilder").Type().(*types.Named)
	for m := range b.Methods() {
		if m.Name() == "Put" && w.of(m, map[*types.Func]bool{}) == "" {
			t.Error("the check does not see TopicBuilder.Put write")
		}
	}
}

// receiverWrites finds what a method of package image writes through its
// receiver, directly or through the package's methods it calls on it.
type receiverWrites struct {
	pkg   *types.Package
	info  *types.Info
	decls map[*types.Func]*ast.FuncDecl // every function and method declaration
	memo  map[*types.Func]string
}

func newReceiverWrites(files []*ast.File, pkg *types.Package, info *types.Info) *receiverWrites {
	w := &receiverWrites{pkg: pkg, info: info, decls: map[*types.Func]*ast.FuncDecl{}, memo: map[*types.Func]string{}}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
					w.decls[fn] = fd
				}
			}
		}
	}
	return w
}

// of says what fn writes through its receiver ("" for nothing).
func (w *receiverWrites) of(fn *types.Func, seen map[*types.Func]bool) string {
	if found, ok := w.memo[fn]; ok {
		return found
	}
	fd := w.decls[fn]
	if fd == nil || fd.Recv == nil || len(fd.Recv.List[0].Names) == 0 || seen[fn] {
		return ""
	}
	seen[fn] = true
	recv := w.info.Defs[fd.Recv.List[0].Names[0]]
	var found string
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if found == "" {
			found = w.write(n, fn, recv, seen)
		}
		return found == ""
	})
	w.memo[fn] = found
	return found
}

// write says what node n of fn's body writes through recv.
func (w *receiverWrites) write(n ast.Node, fn *types.Func, recv types.Object, seen map[*types.Func]bool) string {
	rooted := func(e ast.Expr) bool { return rootedAt(w.info, e, recv) }
	switch x := n.(type) {
	case *ast.AssignStmt:
		if x.Tok == token.DEFINE {
			return ""
		}
		for _, l := range x.Lhs {
			if rooted(l) {
				return "assigns " + types.ExprString(l)
			}
		}
	case *ast.ReturnStmt:
		for _, r := range x.Results {
			switch w.info.TypeOf(r).Underlying().(type) {
			case *types.Slice, *types.Map:
				if rooted(r) && fn.Exported() {
					return "returns its own " + types.ExprString(r)
				}
			}
		}
	case *ast.IncDecStmt:
		if rooted(x.X) {
			return "increments " + types.ExprString(x.X)
		}
	case *ast.CallExpr:
		if id, ok := x.Fun.(*ast.Ident); ok && len(x.Args) > 0 {
			if b, ok := w.info.Uses[id].(*types.Builtin); ok && slices.Contains([]string{"append", "copy", "clear", "delete"}, b.Name()) && rooted(x.Args[0]) {
				return b.Name() + " on " + types.ExprString(x.Args[0])
			}
		}
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok && rooted(sel.X) {
			if s := w.info.Selections[sel]; s != nil {
				if m, ok := s.Obj().(*types.Func); ok && m.Pkg() == w.pkg {
					if what := w.of(m, seen); what != "" {
						return "calls " + m.Name() + ", which " + what
					}
				}
			}
		}
	}
	return ""
}

// rootedAt reports whether e is recv or reached from it by selectors,
// indexes, slicing, dereferences and parentheses.
func rootedAt(info *types.Info, e ast.Expr, recv types.Object) bool {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return info.Uses[x] == recv
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.SliceExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return false
		}
	}
}

// resultKinds records which of the package's named types its exported
// functions and methods hand out by pointer, and which by value.
type resultKinds struct {
	pkg       *types.Package
	byPointer map[string]bool
	byValue   map[string]bool
}

// note records the types sig returns (through slices, maps and
// iterators too).
func (r *resultKinds) note(sig *types.Signature) {
	for v := range sig.Results().Variables() {
		r.visit(v.Type(), false)
	}
}

func (r *resultKinds) visit(t types.Type, ptr bool) {
	switch x := types.Unalias(t).(type) {
	case *types.Pointer:
		r.visit(x.Elem(), true)
	case *types.Slice:
		r.visit(x.Elem(), ptr)
	case *types.Map:
		r.visit(x.Elem(), ptr)
	case *types.Signature: // iterators: what they yield
		for v := range x.Params().Variables() {
			r.visit(v.Type(), ptr)
		}
	case *types.Named:
		if x.Obj().Pkg() != r.pkg {
			if args := x.TypeArgs(); args != nil { // iter.Seq[T] and the like
				for a := range args.Types() {
					r.visit(a, ptr)
				}
			}
			return
		}
		if ptr {
			r.byPointer[x.Obj().Name()] = true
		} else {
			r.byValue[x.Obj().Name()] = true
		}
	}
}

// fieldProblems lists the exported fields of tn a caller could write
// through: any field of a type handed out by pointer, and a field holding a
// reference in a type returned by value (unless copiedValues says why it
// is the caller's own).
func (r *resultKinds) fieldProblems(tn *types.TypeName) []string {
	name := tn.Name()
	st, ok := tn.Type().Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	var problems []string
	for f := range st.Fields() {
		if !f.Exported() {
			continue
		}
		if r.byPointer[name] {
			problems = append(problems, "field "+name+"."+f.Name()+" of a type handed out by pointer")
			continue
		}
		if !r.byValue[name] || copiedValues[name] != "" {
			continue // built by callers: options, and values passed in
		}
		switch types.Unalias(f.Type()).Underlying().(type) {
		case *types.Slice, *types.Map, *types.Pointer, *types.Chan, *types.Signature:
			problems = append(problems, "field "+name+"."+f.Name()+" ("+f.Type().String()+") of a type returned by value aliases what it points to")
		}
	}
	return problems
}

// TestValuesAreCopied: the slices and pointers in the values of
// copiedValues are the caller's own, both ways: changing what was given to
// the Builder, or what an accessor returned, leaves the image as it was
// (Kafka's ScramImage, DelegationTokenImage and ClientQuotaImage are
// immutable).
func TestValuesAreCopied(t *testing.T) {
	key := image.ScramKey{Mechanism: 1, User: "alice"}
	cred := &image.ScramCredential{Salt: []byte{1}, StoredKey: []byte{2}, ServerKey: []byte{3}, Iterations: 4096}
	tok := &image.Token{TokenID: "t1", Owner: "User:alice", Renewers: []string{"User:bob"}}
	name := "alice"
	qe := image.NewQuotaEntity([]image.QuotaEntityPart{{Type: "user", Name: &name}}, []image.QuotaValue{{Key: "producer_byte_rate", Value: 1}})
	cfg := []image.ConfigEntry{{Name: "retention.ms", Value: "1"}}
	res := image.ConfigResource{Type: image.ConfigTopic, Name: "orders"}
	b := image.NewBuilder(nil)
	b.PutScram(map[image.ScramKey]*image.ScramCredential{key: cred})
	b.PutTokens(map[string]*image.Token{"t1": tok})
	b.PutClientQuotas(map[string]*image.QuotaEntity{"user=alice": qe})
	b.PutConfigs(map[image.ConfigResource][]image.ConfigEntry{res: cfg})
	img := b.Image(image.EmptyProvenance)

	cred.Salt[0], tok.Renewers[0], name, cfg[0].Value = 9, "User:eve", "eve", "9"
	got, _ := img.Scram().Get(key)
	got.Salt[0] = 8
	gt, _ := img.Tokens().Get("t1")
	gt.Renewers[0] = "User:mallory"
	e, _ := img.ClientQuotas().Entity("user=alice")
	*e.Parts()[0].Name = "mallory"
	for _, es := range img.Configs().Resources() {
		es[0].Value = "8"
	}

	if c, _ := img.Scram().Get(key); c.Salt[0] != 1 {
		t.Errorf("salt %v: the image's credential changed", c.Salt)
	}
	if tk, _ := img.Tokens().Get("t1"); tk.Renewers[0] != "User:bob" {
		t.Errorf("renewers %v: the image's token changed", tk.Renewers)
	}
	if n := *e.Parts()[0].Name; n != "alice" {
		t.Errorf("entity name %q: the image's quota entity changed", n)
	}
	if v, _ := img.Configs().Get(res, "retention.ms"); v != "1" {
		t.Errorf("retention.ms %q: the image's config changed", v)
	}
}

// TestBuilderSingleUse: like immutable.MapBuilder, a Builder and a
// TopicBuilder panic when used after they handed out what they built, and
// building leaves the base image as it was.
func TestBuilderSingleUse(t *testing.T) {
	base := image.Empty()
	b := image.NewBuilder(base)
	b.SetNextProducerID(1000)
	img := b.Image(image.EmptyProvenance)
	if img.NextProducerID() != 1000 || base.NextProducerID() != -1 {
		t.Fatalf("next producer id %d, base %d", img.NextProducerID(), base.NextProducerID())
	}
	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s after freezing did not panic", what)
			}
		}()
		f()
	}
	mustPanic("Builder.SetNextProducerID", func() { b.SetNextProducerID(1) })
	mustPanic("Builder.Image", func() { b.Image(image.EmptyProvenance) })
	tb := image.NewTopicBuilder("orders", record.UUID{1})
	_ = tb.Topic()
	mustPanic("TopicBuilder.Put", func() { tb.Put(image.PartitionRegistration{}) })
	mustPanic("TopicBuilder.Topic", func() { tb.Topic() })
}

// TestBuilderRejectsSharedName: TopicsImage maps each name to one id, so a
// Builder refuses a topic that takes a live topic's name, or two topics of
// one name, and stays usable; a rename and a delete-then-recreate in one
// step are fine.
func TestBuilderRejectsSharedName(t *testing.T) {
	a, b, c := record.UUID{1}, record.UUID{2}, record.UUID{3}
	top := func(name string, id record.UUID) image.Topic { return image.NewTopicBuilder(name, id).Topic() }
	bld := image.NewBuilder(nil)
	if err := bld.PutTopics(nil, []image.Topic{top("orders", a), top("orders", b)}); err == nil {
		t.Error("two topics named orders accepted")
	}
	if err := bld.PutTopics(nil, []image.Topic{top("orders", a)}); err != nil {
		t.Fatal(err)
	}
	if err := bld.PutTopics(nil, []image.Topic{top("orders", b)}); err == nil {
		t.Error("a second topic named orders accepted")
	}
	if err := bld.PutTopics([]record.UUID{a}, []image.Topic{top("orders", b), top("audit", c)}); err != nil {
		t.Fatal(err)
	}
	if err := bld.PutTopics(nil, []image.Topic{top("payments", b), top("orders", c)}); err != nil {
		t.Fatal(err)
	}
	img := bld.Image(image.EmptyProvenance)
	if id, _ := img.Topics().IDOf("orders"); id != c || img.Topics().Len() != 2 {
		t.Errorf("orders is %v, %d topics", id, img.Topics().Len())
	}
}
