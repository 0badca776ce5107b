package image

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/kmeta-go/kmeta/record"
)

// TestAllByName: for random batches of creates, renames and deletes, every
// version of the topics iterates in name order over exactly its own topics,
// concurrent first readers agree (go test -race checks the lazy
// computation), ByNameAt indexes the same order, and Sorted is a copy the
// caller may change.
func TestAllByName(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 11))
			model := map[record.UUID]string{}
			tops := emptyTopics
			for step := 0; step < 30; step++ {
				var deleted []record.UUID
				var changed []*topic
				seen := map[record.UUID]bool{}
				names := map[string]bool{}
				for _, n := range model {
					names[n] = true
				}
				for i := r.IntN(40); i > 0; i-- {
					id := record.UUID{0: byte(r.IntN(200)), 15: 1}
					if seen[id] {
						continue
					}
					seen[id] = true
					if _, ok := model[id]; ok && r.IntN(3) == 0 {
						deleted = append(deleted, id)
						delete(names, model[id])
						delete(model, id)
						continue
					}
					n := fmt.Sprintf("t-%d", r.IntN(1000))
					if names[n] {
						continue
					}
					if old, ok := model[id]; ok {
						delete(names, old)
					}
					names[n] = true
					changed = append(changed, NewTopicBuilder(n, id).Topic().t)
					model[id] = n
				}
				idx, err := tops.update(deleted, changed, nil)
				if err != nil {
					t.Fatal(err)
				}
				next := &Topics{topicIndexes: idx}
				checkNameOrder(t, step, next, model)
				tops = next
			}
		})
	}
}

// checkNameOrder checks one version of TestAllByName's topics against the
// model: four concurrent first readers of AllByName, ByNameAt and Sorted.
func checkNameOrder(t *testing.T, step int, next *Topics, model map[record.UUID]string) {
	t.Helper()
	var want []string
	for _, n := range model {
		want = append(want, n)
	}
	slices.Sort(want)
	var wg sync.WaitGroup
	got := make([][]string, 4)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for tp := range next.AllByName() {
				got[g] = append(got[g], tp.Name())
			}
		}()
	}
	wg.Wait()
	for g := range got {
		if !slices.Equal(got[g], want) {
			t.Fatalf("step %d reader %d: %v, want %v", step, g, got[g], want)
		}
	}
	for i, n := range want {
		if got := next.ByNameAt(i).Name(); got != n {
			t.Fatalf("step %d: ByNameAt(%d) is %s, want %s", step, i, got, n)
		}
	}
	s := next.Sorted()
	if len(s) > 0 {
		s[0] = Topic{}
		if first := slices.Collect(next.AllByName()); first[0].IsZero() {
			t.Fatal("Sorted shares the image's order")
		}
	}
}
