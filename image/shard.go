package image

import (
	"iter"

	"github.com/benbjohnson/immutable"
)

// shardMap is a persistent map made of many small immutable.Maps (shards),
// chosen by the top shardBits (13) bits of a key's hash, under a
// copy-on-write directory four levels deep (16, then 8, 8 and 8 pointers:
// 8192 shards). The shards' own hash array mapped tries read the hash from
// its low bits, so the two do not overlap until a shard holds hundreds of
// thousands of keys.
//
// Why: a Set in one immutable.Map of 100 000 keys copies three 32-slot
// hash-array nodes (≈ 1.9 KB with the rest of the path). Here the shard
// holds about a dozen keys, so its root is a small bitmap node, and a Set
// copies that short path plus four directory nodes (320 bytes, one
// allocation when the batch stays in one shard): about 0.6 KB. A batch of changes is grouped by shard (a counting sort), so each
// touched directory node is copied once per batch; a shard that receives
// many changes is rebuilt with an immutable.MapBuilder from its entries, into
// nodes the builder owns (a builder is never started from a published map);
// and an empty map is built shard by shard, each trie small enough to stay
// in cache. Lookups walk four small arrays and one small map and allocate
// nothing.
//
// A shardMap is a value: its directory and shards are never modified once
// the map is returned.
type shardMap[K, V any] struct {
	root   *shardRoot[K, V] // nil when empty
	size   int
	hasher immutable.Hasher[K]
}

const (
	rootBits  = 4
	dirBits   = 3
	dirWidth  = 1 << dirBits
	dirMask   = dirWidth - 1
	shardBits = rootBits + 3*dirBits
)

type shardRoot[K, V any] struct {
	kids [1 << rootBits]*shardUpper[K, V]
}
type shardUpper[K, V any] struct{ kids [dirWidth]*shardMid[K, V] }
type shardMid[K, V any] struct{ kids [dirWidth]*shardLeaf[K, V] }
type shardLeaf[K, V any] struct {
	maps [dirWidth]*immutable.Map[K, V]
}

// shardOf is the shard index of a hash.
func shardOf(h uint32) uint32 { return h >> (32 - shardBits) }

// shard returns shard s, or nil.
func (m *shardMap[K, V]) shard(s uint32) *immutable.Map[K, V] {
	if m.root == nil {
		return nil
	}
	upper := m.root.kids[s>>(3*dirBits)]
	if upper == nil {
		return nil
	}
	mid := upper.kids[(s>>(2*dirBits))&dirMask]
	if mid == nil {
		return nil
	}
	leaf := mid.kids[(s>>dirBits)&dirMask]
	if leaf == nil {
		return nil
	}
	return leaf.maps[s&dirMask]
}

// dirEditor makes a new directory from an old one (or from nothing),
// copying each node on the path to a changed shard once. Shards must be
// visited in increasing order.
type dirEditor[K, V any] struct {
	root       *shardRoot[K, V]
	upper      *shardUpper[K, V]
	mid        *shardMid[K, V]
	leaf       *shardLeaf[K, V]
	ri, ui, mi int
}

func newDirEditor[K, V any](old *shardRoot[K, V]) dirEditor[K, V] {
	return dirEditor[K, V]{root: cloneNode(old), ri: -1, ui: -1, mi: -1}
}

// dirPath is the four nodes of one path, allocated together.
type dirPath[K, V any] struct {
	root  shardRoot[K, V]
	upper shardUpper[K, V]
	mid   shardMid[K, V]
	leaf  shardLeaf[K, V]
}

// newPathEditor returns an editor for a batch whose ops all fall in shard
// s: the copied path is one allocation instead of four. (A later image that
// keeps only some of these nodes keeps the whole 320-byte object alive.)
func newPathEditor[K, V any](old *shardRoot[K, V], s uint32) dirEditor[K, V] {
	p := new(dirPath[K, V])
	r, u, m := int(s>>(3*dirBits)), int((s>>(2*dirBits))&dirMask), int((s>>dirBits)&dirMask)
	if old != nil {
		p.root = *old
	}
	if n := p.root.kids[r]; n != nil {
		p.upper = *n
	}
	if n := p.upper.kids[u]; n != nil {
		p.mid = *n
	}
	if n := p.mid.kids[m]; n != nil {
		p.leaf = *n
	}
	p.root.kids[r], p.upper.kids[u], p.mid.kids[m] = &p.upper, &p.mid, &p.leaf
	return dirEditor[K, V]{root: &p.root, upper: &p.upper, mid: &p.mid, leaf: &p.leaf, ri: r, ui: u, mi: m}
}

func cloneNode[T any](p *T) *T {
	n := new(T)
	if p != nil {
		*n = *p
	}
	return n
}

// leafOf returns the (new) leaf holding shard s.
func (e *dirEditor[K, V]) leafOf(s uint32) *shardLeaf[K, V] {
	r, u, m := int(s>>(3*dirBits)), int((s>>(2*dirBits))&dirMask), int((s>>dirBits)&dirMask)
	if r != e.ri {
		e.ri, e.ui, e.mi = r, -1, -1
		e.upper = cloneNode(e.root.kids[r])
		e.root.kids[r] = e.upper
	}
	if u != e.ui {
		e.ui, e.mi = u, -1
		e.mid = cloneNode(e.upper.kids[u])
		e.upper.kids[u] = e.mid
	}
	if m != e.mi {
		e.mi = m
		e.leaf = cloneNode(e.mid.kids[m])
		e.mid.kids[m] = e.leaf
	}
	return e.leaf
}

// Len is the number of keys.
func (m *shardMap[K, V]) Len() int { return m.size }

// Get returns the value of key.
func (m *shardMap[K, V]) Get(key K) (V, bool) {
	if sm := m.shard(shardOf(m.hasher.Hash(key))); sm != nil {
		return sm.Get(key)
	}
	var zero V
	return zero, false
}

// All iterates over every key and value, shard by shard.
func (m *shardMap[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		if m.root == nil {
			return
		}
		for s := uint32(0); s < 1<<shardBits; s++ {
			sm := m.shard(s)
			if sm == nil {
				continue
			}
			it := sm.Iterator()
			for !it.Done() {
				k, v, _ := it.Next()
				if !yield(k, v) {
					return
				}
			}
		}
	}
}

// shardOp is one change of a batch: set key to val, or delete key. update
// fills in old and had: the value the map held for key before the batch.
type shardOp[K, V any] struct {
	shard uint32
	del   bool
	had   bool
	key   K
	val   V
	old   V
}

// opSet and opDelete make the ops of a batch.
func (m *shardMap[K, V]) opSet(key K, val V) shardOp[K, V] {
	return shardOp[K, V]{shard: shardOf(m.hasher.Hash(key)), key: key, val: val}
}

func (m *shardMap[K, V]) opDelete(key K) shardOp[K, V] {
	return shardOp[K, V]{shard: shardOf(m.hasher.Hash(key)), del: true, key: key}
}

// rebuildFactor: a shard receiving at least len/rebuildFactor changes, and
// at least rebuildMin, is rebuilt with a builder instead of taking them one
// persistent Set at a time (a Set copies the shard's path; a rebuild makes
// one node per key, plus the builder's own: for one change in a shard of a
// few keys, a Set allocates less).
const (
	rebuildFactor = 4
	rebuildMin    = 4
)

// update returns m with ops applied in order (for one key, the later op
// wins). ops is reordered (stably, by shard), and each op's old and had are
// set to what m holds for its key: looked up shard by shard just before the
// shard changes, so the lookup warms the path the change then copies.
func (m *shardMap[K, V]) update(ops []shardOp[K, V]) shardMap[K, V] {
	if len(ops) == 0 {
		return *m
	}
	sortOps(ops)
	out := shardMap[K, V]{size: m.size, hasher: m.hasher}
	var e dirEditor[K, V]
	if ops[0].shard == ops[len(ops)-1].shard {
		e = newPathEditor(m.root, ops[0].shard)
	} else {
		e = newDirEditor(m.root)
	}
	for i := 0; i < len(ops); {
		s := ops[i].shard
		j := i + 1
		for j < len(ops) && ops[j].shard == s {
			j++
		}
		leaf := e.leafOf(s)
		old := leaf.maps[s&dirMask]
		before := 0
		if old != nil {
			before = old.Len()
		}
		if old != nil {
			for k := i; k < j; k++ {
				ops[k].old, ops[k].had = old.Get(ops[k].key)
			}
		}
		sm := applyShard(old, ops[i:j], m.hasher)
		after := sm.Len()
		out.size += after - before
		if after == 0 {
			sm = nil
		}
		leaf.maps[s&dirMask] = sm
		i = j
	}
	if out.size > 0 {
		out.root = e.root
	}
	return out
}

// applyShard applies ops (all of one shard) to old, which may be nil.
func applyShard[K, V any](old *immutable.Map[K, V], ops []shardOp[K, V], h immutable.Hasher[K]) *immutable.Map[K, V] {
	if old == nil || (len(ops) >= rebuildMin && len(ops)*rebuildFactor >= old.Len()) {
		b := immutable.NewMapBuilder[K, V](h)
		if old != nil {
			it := old.Iterator()
			for !it.Done() {
				k, v, _ := it.Next()
				b.Set(k, v)
			}
		}
		for i := range ops {
			if ops[i].del {
				b.Delete(ops[i].key)
			} else {
				b.Set(ops[i].key, ops[i].val)
			}
		}
		return b.Map()
	}
	sm := old
	for i := range ops {
		if ops[i].del {
			sm = sm.Delete(ops[i].key)
		} else {
			sm = sm.Set(ops[i].key, ops[i].val)
		}
	}
	return sm
}

// sortOps orders ops by shard, keeping the order of ops of one shard: an
// insertion sort for a few ops, a counting sort for many.
func sortOps[K, V any](ops []shardOp[K, V]) {
	if len(ops) < 64 {
		for i := 1; i < len(ops); i++ {
			for j := i; j > 0 && ops[j-1].shard > ops[j].shard; j-- {
				ops[j-1], ops[j] = ops[j], ops[j-1]
			}
		}
		return
	}
	var count [1<<shardBits + 1]int32
	for i := range ops {
		count[ops[i].shard+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	sorted := make([]shardOp[K, V], len(ops))
	for i := range ops {
		s := ops[i].shard
		sorted[count[s]] = ops[i]
		count[s]++
	}
	copy(ops, sorted)
}

// buildShardMap returns a map of keys[i] → vals[i] (for a key given twice,
// the later wins). Entries are grouped by shard with a counting sort, and
// each shard is built by its own immutable.MapBuilder, so a build works on
// one small trie at a time.
func buildShardMap[K, V any](h immutable.Hasher[K], keys []K, vals []V) shardMap[K, V] {
	out := shardMap[K, V]{hasher: h}
	if len(keys) == 0 {
		return out
	}
	shards := make([]uint16, len(keys))
	var count [1<<shardBits + 1]int32
	for i := range keys {
		s := shardOf(h.Hash(keys[i]))
		shards[i] = uint16(s)
		count[s+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	// Lay the entries out shard after shard, so that the builders below
	// read them in order (the writes here go all over; the reads there
	// would otherwise).
	sk, sv := make([]K, len(keys)), make([]V, len(vals))
	next := count
	for i, s := range shards {
		p := next[s]
		next[s]++
		sk[p], sv[p] = keys[i], vals[i]
	}
	e := newDirEditor[K, V](nil)
	for s := uint32(0); s < 1<<shardBits; s++ {
		lo, hi := count[s], count[s+1]
		if lo == hi {
			continue
		}
		b := immutable.NewMapBuilder[K, V](h)
		for p := lo; p < hi; p++ {
			b.Set(sk[p], sv[p])
		}
		sm := b.Map()
		out.size += sm.Len()
		e.leafOf(s).maps[s&dirMask] = sm
	}
	out.root = e.root
	return out
}
