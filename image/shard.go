package image

import (
	"cmp"
	"iter"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/benbjohnson/immutable"
)

// shardMap is a persistent map made of many small immutable.Maps (shards),
// chosen by the top bits of a key's hash, under a copy-on-write directory
// of 8-pointer nodes. The number of shard bits follows the map's size
// (wantBits: two to four keys per shard on average), so that a shard stays
// in immutable's array node (at most eight entries, no trie below it) at
// every size, and a small map keeps a small directory: 12 500 keys use 12
// bits (4 levels), 100 000 use 15 (5 levels), a million 18 (6 levels). The
// shards' own tries, when a shard outgrows its array node, read the hash
// from its low bits, so the two do not overlap.
//
// Why: a Set in one immutable.Map of 100 000 keys copies three 32-slot
// hash-array nodes (≈ 1.9 KB with the rest of the path). Here a Set copies
// the directory path (64 bytes a level, one allocation) and the shard's
// small array node. A batch of changes is grouped by shard, so each touched
// directory node is copied once per batch; a shard that receives many
// changes is rebuilt with an immutable.MapBuilder from its entries, into
// nodes the builder owns (a builder is never started from a published map);
// and an empty map is built shard by shard, each trie small enough to stay
// in cache. When a batch moves the size out of its bits' range (four keys
// a shard on average or more, or fewer than one), the batch's result is
// re-sharded: built anew from its entries, never changing a published map. Lookups walk a few small
// arrays and one array node and allocate nothing.
//
// A shardMap is a value: its directory and shards are never modified once
// the map is returned.
type shardMap[K, V any] struct {
	root   *dirNode // nil when empty
	size   int
	bits   uint32 // shard bits: 1<<bits shards; levels(bits) directory levels
	hasher immutable.Hasher[K]
}

const (
	dirBits  = 3
	dirWidth = 1 << dirBits
	dirMask  = dirWidth - 1
	minBits  = dirBits
	maxBits  = 24 // 8 levels; the shards' tries keep the low 8 bits
)

// dirNode is one directory node. On the last level the kids are the
// shards (*immutable.Map[K, V]), above it further nodes (*dirNode): one
// untyped node type lets the depth vary with the map's size. The pointers
// are unsafe.Pointers, which the garbage collector traces like any other.
type dirNode struct {
	kids [dirWidth]unsafe.Pointer
}

// wantBits is the number of shard bits for n keys: two to four keys a
// shard (immutable's array node holds eight).
func wantBits(n int) uint32 {
	b := uint32(minBits)
	if n >= 4 {
		b = uint32(bits.Len(uint(n/2))) - 1
	}
	return min(max(b, minBits), maxBits)
}

// levels is the directory depth for b shard bits: the root uses the bits
// left over by the full levels below it.
func levels(b uint32) int { return int(b+dirBits-1) / dirBits }

// shardOf is the shard index of a hash in a map of b shard bits.
func shardOf(h, b uint32) uint32 { return h >> (32 - b) }

// shard returns shard s, or nil.
func (m *shardMap[K, V]) shard(s uint32) *immutable.Map[K, V] {
	n := m.root
	if n == nil {
		return nil
	}
	for shift := dirBits * (levels(m.bits) - 1); shift > 0; shift -= dirBits {
		n = (*dirNode)(n.kids[(s>>shift)&dirMask])
		if n == nil {
			return nil
		}
	}
	return (*immutable.Map[K, V])(n.kids[s&dirMask])
}

// dirEditor makes a new directory from an old one (or from nothing),
// copying each node on the path to a changed shard once. Shards must be
// visited in increasing order.
type dirEditor struct {
	n      int         // levels
	path   [8]*dirNode // path[0] is the new root, path[n-1] the leaf
	prefix [8]int64    // the shard prefix path[i] was copied for (-1: none)
	spare  []dirNode   // nodes to copy into before allocating
}

// start begins an edit of the directory old of b shard bits.
func (e *dirEditor) start(old *dirNode, b uint32, spare []dirNode) {
	e.n, e.spare = levels(b), spare
	e.path[0] = e.clone(old)
	for i := 1; i < e.n; i++ {
		e.prefix[i] = -1
	}
}

// clone returns a new copy of p (a zero node when p is nil), taken from the
// spare nodes when some are left.
func (e *dirEditor) clone(p *dirNode) *dirNode {
	var n *dirNode
	if len(e.spare) > 0 {
		n, e.spare = &e.spare[0], e.spare[1:]
	} else {
		n = new(dirNode)
	}
	if p != nil {
		*n = *p
	}
	return n
}

// leafOf returns the (new) leaf node holding shard s.
func (e *dirEditor) leafOf(s uint32) *dirNode {
	for i := 1; i < e.n; i++ {
		shift := dirBits * (e.n - i)
		p := int64(s >> shift)
		if e.prefix[i] == p {
			continue
		}
		for j := i; j < e.n; j++ {
			shift = dirBits * (e.n - j)
			slot := &e.path[j-1].kids[(s>>shift)&dirMask]
			e.path[j] = e.clone((*dirNode)(*slot))
			*slot = unsafe.Pointer(e.path[j])
			e.prefix[j] = int64(s >> shift)
		}
		break
	}
	return e.path[e.n-1]
}

// Len is the number of keys.
func (m *shardMap[K, V]) Len() int { return m.size }

// levels is m's directory depth.
func (m *shardMap[K, V]) levels() int { return levels(m.bits) }

// Get returns the value of key.
func (m *shardMap[K, V]) Get(key K) (V, bool) {
	if sm := m.shard(shardOf(m.hasher.Hash(key), m.bits)); sm != nil {
		return sm.Get(key)
	}
	var zero V
	return zero, false
}

// All iterates over every key and value, shard by shard.
func (m *shardMap[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		if m.root != nil {
			walkShards(m.root, m.levels(), yield)
		}
	}
}

// walkShards yields the entries of the shards under n (depth levels).
func walkShards[K, V any](n *dirNode, depth int, yield func(K, V) bool) bool {
	for _, kid := range n.kids {
		if kid == nil {
			continue
		}
		if depth > 1 {
			if !walkShards((*dirNode)(kid), depth-1, yield) {
				return false
			}
			continue
		}
		it := (*immutable.Map[K, V])(kid).Iterator()
		for !it.Done() {
			k, v, _ := it.Next()
			if !yield(k, v) {
				return false
			}
		}
	}
	return true
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

// opSet and opDelete make the ops of a batch for m.
func (m *shardMap[K, V]) opSet(key K, val V) shardOp[K, V] {
	return shardOp[K, V]{shard: shardOf(m.hasher.Hash(key), m.bits), key: key, val: val}
}

func (m *shardMap[K, V]) opDelete(key K) shardOp[K, V] {
	return shardOp[K, V]{shard: shardOf(m.hasher.Hash(key), m.bits), del: true, key: key}
}

// rebuildFactor: a shard receiving at least len/rebuildFactor changes, and
// at least rebuildMin, is rebuilt with a builder instead of taking them one
// persistent Set at a time. A Set on a shard in immutable's array node
// copies the map, the node and its entries; a rebuild makes them once, its
// entries growing by appends (1, 2, 4, 8): for one or two changes Sets
// allocate fewer objects, for three in a shard of at most eight keys a
// rebuild does.
const (
	rebuildFactor = 4
	rebuildMin    = 3
)

// update returns m with ops (made by m's opSet and opDelete) applied in
// order (for one key, the later op wins). ops is reordered (stably, by
// shard), and each op's old and had are set to what m holds for its key:
// looked up shard by shard just before the shard changes, so the lookup
// warms the path the change then copies. When all of ops fall in one
// shard, the copied path is one allocation, taken from spare when it has
// room for it (the caller's batch of nodes for several maps' paths).
func (m *shardMap[K, V]) update(ops []shardOp[K, V], spare *[]dirNode) shardMap[K, V] {
	if len(ops) == 0 {
		return *m
	}
	if m.root == nil {
		return m.updateEmpty(ops)
	}
	sortOps(ops, m.bits)
	out := shardMap[K, V]{size: m.size, bits: m.bits, hasher: m.hasher}
	var nodes []dirNode
	if n := m.levels(); ops[0].shard == ops[len(ops)-1].shard {
		if spare != nil && len(*spare) >= n {
			nodes, *spare = (*spare)[:n:n], (*spare)[n:]
		} else {
			nodes = make([]dirNode, n)
		}
	}
	var e dirEditor
	e.start(m.root, m.bits, nodes)
	for i := 0; i < len(ops); {
		s := ops[i].shard
		j := i + 1
		for j < len(ops) && ops[j].shard == s {
			j++
		}
		leaf := e.leafOf(s)
		old := (*immutable.Map[K, V])(leaf.kids[s&dirMask])
		before := 0
		if old != nil {
			before = old.Len()
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
		leaf.kids[s&dirMask] = unsafe.Pointer(sm)
		i = j
	}
	if out.size > 0 {
		out.root = e.path[0]
	}
	if b := wantBits(out.size); out.root != nil && (b > m.bits || b+1 < m.bits) {
		out = out.reshard()
	}
	return out
}

// updateEmpty is update on an empty map: the ops are applied in order to a
// builder, and the result is sharded for its size.
func (m *shardMap[K, V]) updateEmpty(ops []shardOp[K, V]) shardMap[K, V] {
	b := immutable.NewMapBuilder[K, V](m.hasher)
	for i := range ops {
		if ops[i].del {
			b.Delete(ops[i].key)
		} else {
			b.Set(ops[i].key, ops[i].val)
		}
	}
	flat := b.Map()
	keys, vals := make([]K, 0, flat.Len()), make([]V, 0, flat.Len())
	it := flat.Iterator()
	for !it.Done() {
		k, v, _ := it.Next()
		keys, vals = append(keys, k), append(vals, v)
	}
	return buildShardMap(m.hasher, keys, vals)
}

// reshard returns m built anew with the shard bits its size wants.
func (m *shardMap[K, V]) reshard() shardMap[K, V] {
	keys, vals := make([]K, 0, m.size), make([]V, 0, m.size)
	for k, v := range m.All() {
		keys, vals = append(keys, k), append(vals, v)
	}
	return buildShardMap(m.hasher, keys, vals)
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
// insertion sort for a few ops, a counting sort for many compared with the
// shards (b shard bits), else a sort of their indexes.
func sortOps[K, V any](ops []shardOp[K, V], b uint32) {
	n := len(ops)
	switch {
	case n < 64:
		for i := 1; i < n; i++ {
			for j := i; j > 0 && ops[j-1].shard > ops[j].shard; j-- {
				ops[j-1], ops[j] = ops[j], ops[j-1]
			}
		}
		return
	case n*16 < 1<<b:
		perm := make([]int32, n)
		for i := range perm {
			perm[i] = int32(i)
		}
		slices.SortFunc(perm, func(x, y int32) int {
			return cmp.Or(cmp.Compare(ops[x].shard, ops[y].shard), cmp.Compare(x, y))
		})
		sorted := make([]shardOp[K, V], n)
		for i, p := range perm {
			sorted[i] = ops[p]
		}
		copy(ops, sorted)
		return
	}
	count := make([]int32, 1<<b+1)
	for i := range ops {
		count[ops[i].shard+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	sorted := make([]shardOp[K, V], n)
	for i := range ops {
		s := ops[i].shard
		sorted[count[s]] = ops[i]
		count[s]++
	}
	copy(ops, sorted)
}

// buildShardMap returns a map of keys[i] → vals[i] (for a key given twice,
// the later wins), with the shard bits len(keys) wants. Entries are
// grouped by shard with a counting sort, and each shard is built by its
// own immutable.MapBuilder, so a build works on one small trie at a time.
func buildShardMap[K, V any](h immutable.Hasher[K], keys []K, vals []V) shardMap[K, V] {
	b := wantBits(len(keys))
	out := shardMap[K, V]{hasher: h, bits: b}
	if len(keys) == 0 {
		return out
	}
	shards := make([]uint32, len(keys))
	count := make([]int32, 1<<b+1)
	for i := range keys {
		s := shardOf(h.Hash(keys[i]), b)
		shards[i] = s
		count[s+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	// Lay the entries out shard after shard, so that the builders below
	// read them in order (the writes here go all over; the reads there
	// would otherwise).
	sk, sv := make([]K, len(keys)), make([]V, len(vals))
	next := slices.Clone(count)
	for i, s := range shards {
		p := next[s]
		next[s]++
		sk[p], sv[p] = keys[i], vals[i]
	}
	var e dirEditor
	e.start(nil, b, nil)
	for s := uint32(0); s < 1<<b; s++ {
		lo, hi := count[s], count[s+1]
		if lo == hi {
			continue
		}
		mb := immutable.NewMapBuilder[K, V](h)
		for p := lo; p < hi; p++ {
			mb.Set(sk[p], sv[p])
		}
		sm := mb.Map()
		out.size += sm.Len()
		e.leafOf(s).kids[s&dirMask] = unsafe.Pointer(sm)
	}
	out.root = e.path[0]
	return out
}
