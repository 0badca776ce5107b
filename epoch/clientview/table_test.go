package clientview

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestTopicTableModel writes random sequences of sets and deletes through
// tableWriters, each started from the last table, and checks every table
// against a map model: the written table holds exactly the model, and every
// earlier table still holds its own model (a writer never modifies its base,
// views share chunks). The sequences cross rebuilds (growth and tombstones).
func TestTopicTableModel(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 1))
			var tab topicTable
			model := map[string]*Topic{}
			var tables []topicTable
			var models []map[string]*Topic
			for step := range 60 {
				w := tableWriter{base: &tab}
				next := map[string]*Topic{}
				for k, v := range model {
					next[k] = v
				}
				for range rng.IntN(40) {
					name := fmt.Sprintf("t%d", rng.IntN(300))
					old, slot := w.table().find(name)
					if old != next[name] {
						t.Fatalf("step %d: find(%q) = %p, model %p", step, name, old, next[name])
					}
					var nt *Topic
					if rng.IntN(3) > 0 {
						nt = &Topic{name: name}
					}
					if rng.IntN(2) == 0 {
						slot = -1 // no hint
					}
					s := w.set(name, old, nt, slot)
					if nt == nil {
						delete(next, name)
					} else {
						next[name] = nt
						if w.table().at(s) != nt {
							t.Fatalf("step %d: set returned slot %d, which does not hold %q", step, s, name)
						}
					}
				}
				tab = w.finish()
				model = next
				tables, models = append(tables, tab), append(models, model)
				for i := range tables {
					checkTable(t, &tables[i], models[i])
				}
			}
		})
	}
}

func checkTable(t *testing.T, tab *topicTable, model map[string]*Topic) {
	t.Helper()
	n := 0
	for x := range tab.all() {
		n++
		if model[x.name] != x {
			t.Fatalf("table holds %q (%p), model %p", x.name, x, model[x.name])
		}
	}
	if n != len(model) || tab.n != n {
		t.Fatalf("table holds %d topics (counts %d), model %d", n, tab.n, len(model))
	}
	for name, x := range model {
		if got := tab.get(name); got != x {
			t.Fatalf("get(%q) = %p, want %p", name, got, x)
		}
	}
	if tab.slots() > 0 && tab.used*4 > tab.slots()*3 {
		t.Fatalf("%d of %d slots used", tab.used, tab.slots())
	}
}
