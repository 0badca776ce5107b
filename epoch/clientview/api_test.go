package clientview

import (
	"go/types"
	"sort"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/internal/typecheck"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// plainValues are the exported struct types with exported fields that a
// View hands out, and why a caller holding one cannot reach the view's own
// state through it.
var plainValues = map[string]string{
	"ViewConfig": "View.Config returns a copy of scalars",
	"Report":     "Merge and the hint methods make each Report, and its Events, afresh for their caller",
	"Event":      "a value of scalars, made afresh for each Report",
}

// TestViewAPIIsReadOnly lists, with go/types, every type reachable from the
// exported methods of View (results, element types of slices and
// iterators, transitively) and fails on one with exported fields that is
// not a plainValues entry: the view's topics, partitions and brokers are
// read through methods only, as image.Partition is, so no caller can write
// into a View other goroutines read without a lock.
func TestViewAPIIsReadOnly(t *testing.T) {
	_, _, pkg, _ := typecheck.Package(t, "github.com/kmeta-go/kmeta/epoch/clientview")
	seen := map[*types.Named]bool{}
	var reachable []string
	var visit func(types.Type)
	visit = func(ty types.Type) {
		switch x := ty.(type) {
		case *types.Pointer:
			visit(x.Elem())
		case *types.Slice:
			visit(x.Elem())
		case *types.Signature:
			for i := range x.Params().Len() {
				visit(x.Params().At(i).Type())
			}
		case *types.Named:
			if args := x.TypeArgs(); args != nil {
				for i := range args.Len() {
					visit(args.At(i))
				}
			}
			if x.Obj().Pkg() != pkg || seen[x] || !x.Obj().Exported() {
				return
			}
			seen[x] = true
			reachable = append(reachable, x.Obj().Name())
			if st, ok := x.Underlying().(*types.Struct); ok {
				for i := range st.NumFields() {
					if f := st.Field(i); f.Exported() {
						if _, ok := plainValues[x.Obj().Name()]; !ok {
							t.Errorf("%s.%s: an exported field of a type the view hands out", x.Obj().Name(), f.Name())
						}
						visit(f.Type())
					}
				}
			}
			for i := range x.NumMethods() {
				if m := x.Method(i); m.Exported() {
					res := m.Type().(*types.Signature).Results()
					for j := range res.Len() {
						visit(res.At(j).Type())
					}
				}
			}
		}
	}
	visit(pkg.Scope().Lookup("View").Type())
	sort.Strings(reachable)
	// The walk must reach what the view is made of, or it checks nothing.
	for _, want := range []string{"Broker", "Event", "Partition", "Report", "Topic", "View"} {
		if !containsString(reachable, want) {
			t.Errorf("%s not reached from View; reached %v", want, reachable)
		}
	}
}

func containsString(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestViewCopiesAreTheCallers: every slice a View or its topics, partitions
// and brokers return is the caller's own; writing into all of them leaves
// the view as it was.
func TestViewCopiesAreTheCallers(t *testing.T) {
	rack := "r1"
	withRack := func(r *kmsg.MetadataResponse) *kmsg.MetadataResponse {
		r.Brokers[0].Rack = &rack
		return r
	}
	r := answer(12, topicAnswer("t", 1, part(0, 1, 5), withErr(part(1, -1, 5), kafkaerr.LeaderNotAvailable.Int16())))
	r.Topics[0].Partitions[0].OfflineReplicas = []int32{3}
	v, _ := NewView(ViewConfig{}).Merge(withRack(r), MergeOptions{})
	// A second incarnation, so that RetiredIDs has an entry.
	v, _ = v.Merge(withRack(answer(12, topicAnswer("t", 2, part(0, 1, 0), part(1, 2, 0)))), MergeOptions{})
	r = answer(12, topicAnswer("t", 2, part(0, 1, 0), withErr(part(1, -1, 0), kafkaerr.LeaderNotAvailable.Int16())))
	r.Topics[0].Partitions[0].OfflineReplicas = []int32{3}
	v, _ = v.Merge(withRack(r), MergeOptions{})
	before := dumpView(v)

	tp, ok := v.Topic("t")
	if !ok || len(tp.RetiredIDs()) != 1 || !v.NeedsRefresh() {
		t.Fatalf("test view: topic %v, retired %v, refresh %v", ok, tp.RetiredIDs(), v.NeedsRefresh())
	}
	clear(tp.RetiredIDs())
	for p := range tp.Partitions() {
		for _, l := range [][]int32{p.Replicas(), p.ISR(), p.OfflineReplicas(), p.AppendReplicas(nil)} {
			for i := range l {
				l[i] = 99
			}
		}
	}
	bs := v.Brokers()
	if len(bs) != 3 {
		t.Fatalf("brokers %v", bs)
	}
	bs[0] = NewBroker(42, "elsewhere", 1, nil)
	if b, _ := v.Broker(1); b.NodeID() != 1 {
		t.Fatalf("broker 1 is %v", b)
	} else if got, has := b.Rack(); !has || got != rack {
		t.Fatalf("broker 1 rack %q %v", got, has)
	}
	rack = "changed" // the answer's own string, after the merge
	names := v.RefreshTopics(nil)
	names[0] = "other"
	if after := dumpView(v); after != before {
		t.Fatalf("the view changed through a returned value:\nbefore %s\nafter  %s", before, after)
	}
	if b, _ := v.Broker(1); func() string { r, _ := b.Rack(); return r }() != "r1" {
		t.Fatal("the view kept the answer's rack string by reference")
	}
}
