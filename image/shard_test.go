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
				m = m.update(ops, nil)
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

// TestShardMapReshards: a map grown from empty one key at a time, then
// shrunk one key at a time, changes its shard bits with its size (two to
// four keys a shard, and back when it falls below a quarter), and every
// earlier version keeps its contents and its own bits.
func TestShardMapReshards(t *testing.T) {
	m := shardMap[string, int]{hasher: stringHasher{}}
	type version struct {
		m    shardMap[string, int]
		n    int
		bits uint32
	}
	var versions []version
	const n = 5000
	for i := 0; i < n; i++ {
		m = m.update([]shardOp[string, int]{m.opSet(fmt.Sprintf("k%d", i), i)}, nil)
		if b := wantBits(m.Len()); m.bits != b {
			t.Fatalf("%d keys: %d shard bits, want %d", m.Len(), m.bits, b)
		}
		if i%97 == 0 {
			versions = append(versions, version{m, i + 1, m.bits})
		}
	}
	for i := n - 1; i >= 0; i-- {
		m = m.update([]shardOp[string, int]{m.opDelete(fmt.Sprintf("k%d", i))}, nil)
		if b := wantBits(m.Len()); m.Len() > 0 && (m.bits < b || m.bits > b+1) {
			t.Fatalf("%d keys: %d shard bits, want %d or %d", m.Len(), m.bits, b, b+1)
		}
		if i%89 == 0 {
			versions = append(versions, version{m, i, m.bits})
		}
	}
	if m.Len() != 0 || m.root != nil {
		t.Fatalf("emptied map: Len %d, root %v", m.Len(), m.root)
	}
	for _, v := range versions {
		if v.m.Len() != v.n || v.m.bits != v.bits {
			t.Fatalf("version of %d keys: Len %d, bits %d (was %d)", v.n, v.m.Len(), v.m.bits, v.bits)
		}
		got := 0
		for k, x := range v.m.All() {
			if k != fmt.Sprintf("k%d", x) || x >= v.n {
				t.Fatalf("version of %d keys holds %q = %d", v.n, k, x)
			}
			got++
		}
		if got != v.n {
			t.Fatalf("version of %d keys iterates %d", v.n, got)
		}
		if x, ok := v.m.Get(fmt.Sprintf("k%d", v.n-1)); v.n > 0 && (!ok || x != v.n-1) {
			t.Fatalf("version of %d keys: Get(last) = %d, %v", v.n, x, ok)
		}
	}
}
