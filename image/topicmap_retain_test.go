package image

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"weak"

	"github.com/kmeta-go/kmeta/record"
)

// TestStaleNodesFreedSeed1: after a run of one-topic changes, each applied
// to the indexes the one before made (a delta stream's steady state), the
// directory nodes of the dropped indexes are collected. A node copied for
// a change stays current until a later change copies it again; were a
// whole path one allocation, a current leaf would keep the stale root
// beside it, and that root every node of the image before, and so on down
// the whole history (the heap grew by ~1.6 KB a change at 100 000 topics).
func TestStaleNodesFreedSeed1(t *testing.T) {
	const n, changes, watched = 20000, 3000, 200
	r := rand.New(rand.NewPCG(1, 0))
	topics := make([]*topic, n)
	for i := range topics {
		topics[i] = testTopic(fmt.Sprintf("t%d", i), record.UUID{byte(i), byte(i >> 8), byte(i >> 16), 7, byte(r.Uint32()), byte(r.Uint32())})
	}
	idx := buildTopics(topics)
	var roots []weak.Pointer[dirNode]
	for i := range changes {
		old := topics[r.IntN(n)]
		next, err := idx.update(nil, []*topic{testTopic(old.name, old.id)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		idx = next
		if i < watched {
			roots = append(roots, weak.Make(idx.byID.root), weak.Make(idx.byName.root))
		}
	}
	runtime.GC()
	runtime.GC()
	live := 0
	for _, w := range roots {
		if w.Value() != nil {
			live++
		}
	}
	if live > 0 {
		t.Fatalf("%d of the %d roots of the first %d of %d chained changes are still reachable", live, len(roots), watched, changes)
	}
	if idx.byID.Len() != n || idx.byName.Len() != n {
		t.Fatalf("sizes %d, %d, want %d", idx.byID.Len(), idx.byName.Len(), n)
	}
}
