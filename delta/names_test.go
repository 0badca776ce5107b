package delta

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kmeta-go/kmeta/record"
)

// TestNameMapModel: random sets and deletes give the contents of a Go map,
// with every hash distinct and with only four hashes for all names (every
// name past the fourth clashes).
func TestNameMapModel(t *testing.T) {
	for _, collide := range []uint64{0, ^uint64(3)} {
		t.Run(fmt.Sprintf("collide=%#x", collide), func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, uint64(collide)))
			m := nameMap{collide: collide}
			model := map[string]record.UUID{}
			for step := 0; step < 20000; step++ {
				name := fmt.Sprintf("t%d", r.IntN(200))
				if r.IntN(3) == 0 {
					m.delete(name)
					delete(model, name)
				} else {
					id := record.UUID{byte(step), byte(step >> 8), 1}
					m.set(&topicDelta{name: name, id: id})
					model[name] = id
				}
				probe := fmt.Sprintf("t%d", r.IntN(220))
				got, ok := m.get(probe)
				want, wantOK := model[probe]
				if ok != wantOK || got != want {
					t.Fatalf("step %d: get(%s) = %v, %v; want %v, %v", step, probe, got, ok, want, wantOK)
				}
			}
			n := len(m.byHash) + len(m.clash)
			if n != len(model) {
				t.Fatalf("%d names held, want %d", n, len(model))
			}
			if collide != 0 && len(m.clash) == 0 {
				t.Fatal("no name clashed")
			}
		})
	}
}
