package image

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/kmeta-go/kmeta/record"
)

// testTopic is a topic for the index tests: only its keys matter.
func testTopic(name string, id record.UUID) *topic {
	return &topic{name: name, id: id, nameHash: hashString(name)}
}

// keyOf is tp's key in m, as a string for the tests' models.
func keyOf(m *topicMap, tp *topic) string {
	if m.names {
		return tp.name
	}
	return string(tp.id[:])
}

// testKey makes the topic of key k for m's kind of index: by name, k is
// the name (the id is random); by id, k picks the id (the name is random).
func testKey(r *rand.Rand, names bool, k int) *topic {
	if names {
		return testTopic(fmt.Sprintf("k%d", k), record.UUID{byte(r.Uint32()), byte(r.Uint32()), 1})
	}
	var id record.UUID
	binary.LittleEndian.PutUint64(id[:], uint64(k)) // a counter: hashID must spread it
	id[15] = 0x5a
	return testTopic(fmt.Sprintf("n%d", r.Uint32()), id)
}

// checkTopicMap fails unless every shard of m is where its hashes say,
// sorted by hash and key without repeats, with its length in its first
// slot, and the shards' lengths add up to m's size.
func checkTopicMap(t *testing.T, m *topicMap) {
	t.Helper()
	total := 0
	for s := uint32(0); m.root != nil && s < 1<<m.bits; s++ {
		sh := m.shard(s)
		for k := range sh {
			if shardOf(sh[k].hash, m.bits) != s || sh[k].hash != m.hashOf(sh[k].tp) {
				t.Fatalf("shard %d slot %d: hash %#x misplaced", s, k, sh[k].hash)
			}
			if k > 0 && m.compareSlots(sh[k-1], sh[k]) >= 0 {
				t.Fatalf("shard %d: slots %d and %d out of order", s, k-1, k)
			}
			if want := uint32(len(sh) * btoi(k == 0)); sh[k].n != want {
				t.Fatalf("shard %d slot %d: n = %d, want %d", s, k, sh[k].n, want)
			}
		}
		total += len(sh)
	}
	if total != m.Len() {
		t.Fatalf("shards hold %d keys, Len %d", total, m.Len())
	}
}

// checkSpread fails when a shard of m holds far more keys than the two to
// four a shard averages: the hash does not spread m's keys (the tests' ids
// are counters, names a prefix and a counter).
func checkSpread(t *testing.T, m *topicMap) {
	t.Helper()
	for s := uint32(0); m.root != nil && s < 1<<m.bits; s++ {
		if n := len(m.shard(s)); n > 32 {
			t.Fatalf("shard %d of %d holds %d of %d keys", s, 1<<m.bits, n, m.Len())
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lookup finds tp's key in m through the index's own lookup.
func lookup(m *topicMap, tp *topic) (*topic, bool) {
	if m.names {
		return m.getName(tp.name)
	}
	return m.getID(tp.id)
}

// TestTopicMapModel: batches of random puts and deletes, small and large,
// on an index by name and one by id, give the same contents as a Go map,
// and every earlier version keeps its own contents (the maps are
// persistent).
func TestTopicMapModel(t *testing.T) {
	for _, names := range []bool{true, false} {
		for seed := uint64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("names=%v/seed=%d", names, seed), func(t *testing.T) {
				testTopicMapModel(t, names, seed)
			})
		}
	}
}

func testTopicMapModel(t *testing.T, names bool, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 7))
	keys := 1 + r.IntN(20000)
	model := map[string]*topic{}
	var initial []*topic
	for i := r.IntN(keys); i > 0; i-- {
		tp := testKey(r, names, r.IntN(keys))
		initial = append(initial, tp)
	}
	m := buildTopicMap(names, initial)
	for _, tp := range initial {
		model[keyOf(&m, tp)] = tp
	}
	type version struct {
		m     topicMap
		model map[string]*topic
	}
	versions := []version{{m, maps.Clone(model)}}
	for step := 0; step < 60; step++ {
		n := r.IntN(8)
		if r.IntN(4) == 0 {
			n = r.IntN(5000)
		}
		var ops []topicOp
		for i := 0; i < n; i++ {
			tp := testKey(r, names, r.IntN(keys))
			del := r.IntN(3) == 0
			ops = append(ops, m.op(tp, del))
			if del {
				delete(model, keyOf(&m, tp))
			} else {
				model[keyOf(&m, tp)] = tp
			}
		}
		m = m.update(ops, pathNodes{})
		checkTopicMap(t, &m)
		checkSpread(t, &m)
		versions = append(versions, version{m, maps.Clone(model)})
	}
	for i, v := range versions {
		if v.m.Len() != len(v.model) {
			t.Fatalf("version %d: Len %d, want %d", i, v.m.Len(), len(v.model))
		}
		got := map[string]*topic{}
		for tp := range v.m.All() {
			got[keyOf(&v.m, tp)] = tp
		}
		if !maps.Equal(got, v.model) {
			t.Fatalf("version %d: contents differ", i)
		}
		for _, tp := range v.model {
			if x, ok := lookup(&v.m, tp); !ok || x != tp {
				t.Fatalf("version %d: lookup of %q = %v, %v", i, keyOf(&v.m, tp), x, ok)
			}
		}
		if _, ok := lookup(&v.m, testKey(r, names, keys+1)); ok {
			t.Fatalf("version %d: absent key found", i)
		}
	}
}

// TestTopicMapCollisions: topics whose hashes are all equal share one
// shard, which keeps them apart by key, in key order, through puts,
// replacements and deletes in any order.
func TestTopicMapCollisions(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	m := topicMap{names: true}
	model := map[string]*topic{}
	for i := 0; i < 400; i++ {
		tp := testTopic(fmt.Sprintf("c%d", r.IntN(60)), record.UUID{byte(i)})
		tp.nameHash = 0xdecafbad
		del := r.IntN(4) == 0
		m = m.update([]topicOp{m.op(tp, del)}, pathNodes{})
		if del {
			delete(model, tp.name)
		} else {
			model[tp.name] = tp
		}
		checkTopicMap(t, &m)
		if m.Len() != len(model) {
			t.Fatalf("step %d: Len %d, want %d", i, m.Len(), len(model))
		}
		for _, want := range model {
			sh := m.shard(shardOf(want.nameHash, m.bits))
			k, ok := m.find(sh, want.nameHash, want)
			if !ok || sh[k].tp != want {
				t.Fatalf("step %d: %s not found in its shard", i, want.name)
			}
		}
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
				l.Put(PartitionRegistration{id: id, leader: leader})
				want[id] = leader
			}
			parts := l.Topic().t.parts
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
						t.Error("Put after topic did not panic")
					}
				}()
				l.Put(PartitionRegistration{id: 1})
			}()
		})
	}
}

// TestTopicMapReshards: an index grown from empty one topic at a time,
// then shrunk one topic at a time, changes its shard bits with its size (two
// to four keys a shard, and back when it falls below a quarter), and every
// earlier version keeps its contents and its own bits.
func TestTopicMapReshards(t *testing.T) {
	m := topicMap{names: true}
	type version struct {
		m    topicMap
		n    int
		bits uint32
	}
	var versions []version
	const n = 5000
	topics := make([]*topic, n)
	for i := range topics {
		topics[i] = testTopic(fmt.Sprintf("k%d", i), record.UUID{byte(i), byte(i >> 8)})
	}
	for i := 0; i < n; i++ {
		m = m.update([]topicOp{m.op(topics[i], false)}, pathNodes{})
		if b := wantBits(m.Len()); m.bits != b {
			t.Fatalf("%d keys: %d shard bits, want %d", m.Len(), m.bits, b)
		}
		if i%97 == 0 {
			versions = append(versions, version{m, i + 1, m.bits})
		}
	}
	for i := n - 1; i >= 0; i-- {
		m = m.update([]topicOp{m.op(topics[i], true)}, pathNodes{})
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
		for tp := range v.m.All() {
			var i int
			if _, err := fmt.Sscanf(tp.name, "k%d", &i); err != nil || i >= v.n || topics[i] != tp {
				t.Fatalf("version of %d keys holds %q", v.n, tp.name)
			}
			got++
		}
		if got != v.n {
			t.Fatalf("version of %d keys iterates %d", v.n, got)
		}
		if v.n > 0 {
			if x, ok := v.m.getName(topics[v.n-1].name); !ok || x != topics[v.n-1] {
				t.Fatalf("version of %d keys: getName(last) = %v, %v", v.n, x, ok)
			}
		}
	}
}
