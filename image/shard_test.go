package image

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/kmeta-go/kmeta/record"
)

// TestShardMapModel: batches of random sets and deletes, small and large,
// give the same contents as a Go map, and every earlier version of the
// shardMap keeps its own contents (the maps are persistent).
func TestShardMapModel(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			keys := 1 + r.IntN(20000)
			model := map[string]int{}
			var ks []string
			var vs []int
			for i := r.IntN(keys); i > 0; i-- {
				k := fmt.Sprintf("k%d", r.IntN(keys))
				ks, vs = append(ks, k), append(vs, i)
				model[k] = i
			}
			m := buildShardMap[string, int](stringHasher{}, ks, vs)
			type version struct {
				m     shardMap[string, int]
				model map[string]int
			}
			versions := []version{{m, maps.Clone(model)}}
			for step := 0; step < 60; step++ {
				n := r.IntN(8)
				if r.IntN(4) == 0 {
					n = r.IntN(5000)
				}
				var ops []shardOp[string, int]
				for i := 0; i < n; i++ {
					k := fmt.Sprintf("k%d", r.IntN(keys))
					if r.IntN(3) == 0 {
						ops = append(ops, m.opDelete(k))
						delete(model, k)
					} else {
						v := r.Int()
						ops = append(ops, m.opSet(k, v))
						model[k] = v
					}
				}
				m = m.update(ops)
				versions = append(versions, version{m, maps.Clone(model)})
			}
			for i, v := range versions {
				if v.m.Len() != len(v.model) {
					t.Fatalf("version %d: Len %d, want %d", i, v.m.Len(), len(v.model))
				}
				got := map[string]int{}
				for k, x := range v.m.All() {
					got[k] = x
				}
				if !maps.Equal(got, v.model) {
					t.Fatalf("version %d: contents differ", i)
				}
				for k, x := range v.model {
					if y, ok := v.m.Get(k); !ok || y != x {
						t.Fatalf("version %d: Get(%q) = %d, %v; want %d", i, k, y, ok, x)
					}
				}
				if _, ok := v.m.Get("absent"); ok {
					t.Fatalf("version %d: absent key found", i)
				}
			}
		})
	}
}

// TestTopicBuilderKeepsOrder: puts in any order give a topic whose
// partitions are sorted by id without duplicates (the later put of an id
// wins), as TopicDelta's partition map gives TopicImage; the builder is
// unusable once it has handed out its topic.
func TestTopicBuilderKeepsOrder(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 3))
			l := NewTopicBuilder("t", record.UUID{1})
			want := map[int32]int32{}
			for i := 0; i < 500; i++ {
				id, leader := int32(r.IntN(100)), int32(r.IntN(1000))
				l.Put(Partition{id: id, leader: leader})
				want[id] = leader
			}
			parts := l.Topic().parts
			if len(parts) != len(want) {
				t.Fatalf("%d partitions, want %d", len(parts), len(want))
			}
			for i := range parts {
				if i > 0 && parts[i-1].id >= parts[i].id {
					t.Fatalf("not sorted at %d", i)
				}
				if want[parts[i].id] != parts[i].leader {
					t.Fatalf("partition %d: leader %d, want %d", parts[i].id, parts[i].leader, want[parts[i].id])
				}
			}
			func() {
				defer func() {
					if recover() == nil {
						t.Error("Put after Topic did not panic")
					}
				}()
				l.Put(Partition{id: 1})
			}()
		})
	}
}
