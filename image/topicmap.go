package image

import (
	"bytes"
	"encoding/binary"
	"iter"
	"math/bits"
	"strings"
	"unsafe"

	"github.com/kmeta-go/kmeta/record"
)

// topicMap is one of the image's two topic indexes (Kafka's TopicsImage
// topicsById and topicsByName): a persistent hash map from a topic's id or
// name to its *topic. Both indexes hold the *topic itself, as Kafka's two
// maps both hold the TopicImage, so a lookup by name is one walk.
//
// Layout: the top bits of a key's hash choose a shard, under a
// copy-on-write directory of 8-pointer nodes. A shard is one array of
// slots (hash, *topic), sorted by hash and then by key, in one allocation;
// the key itself is read from the topic, so a slot is 16 bytes and a
// lookup compares the topic's key only where the hash matched. The number
// of shard bits follows the map's size (wantBits: two to four keys a shard
// on average), so a small map keeps a small directory: 12 500 keys use 12
// bits (4 levels), 100 000 use 15 (5 levels), a million 18 (6 levels).
//
// A change copies the directory path to its shard (64 bytes a level; for a
// one-topic change the two indexes' nodes of one level are one allocation,
// never a whole path: see topicIndexes.update) and the shard (16 bytes a
// key): at 100 000 topics, four path allocations (the roots are in the
// image's), two shards and the image for a topic added. A batch of changes is grouped by shard, so each
// touched node and shard is copied once per batch. When a batch moves the
// size out of its bits' range (four keys a shard on average or more, or
// fewer than one), the result is re-sharded: built anew from its entries,
// never changing a published map.
//
// A topicMap is a value: its directory and shards are never modified once
// the map is returned. Hash collisions only lengthen a shard: the keys are
// compared in full, so a shard holds any number of keys, at the cost of
// copying them on a change to it.
type topicMap struct {
	root  *dirNode // nil when empty
	size  int
	bits  uint32 // shard bits: 1<<bits shards; levels(bits) directory levels
	names bool   // keyed by name, else by id
}

// slot is one entry of a shard. The first slot of a shard also holds the
// shard's length, so that a shard is a single pointer in its directory node.
type slot struct {
	hash uint32
	n    uint32 // in a shard's first slot: its number of slots
	tp   *topic
}

// slotsAt returns the shard p points at (nil: none).
func slotsAt(p unsafe.Pointer) []slot {
	if p == nil {
		return nil
	}
	s := (*slot)(p)
	return unsafe.Slice(s, s.n)
}

// storeShard returns the directory pointer of shard s (nil when empty);
// s[0].n is set to its length, every other n to 0.
func storeShard(s []slot) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	for i := range s {
		s[i].n = 0
	}
	s[0].n = uint32(len(s))
	return unsafe.Pointer(&s[0])
}

const (
	dirBits  = 3
	dirWidth = 1 << dirBits
	dirMask  = dirWidth - 1
	minBits  = dirBits
	maxBits  = 24 // 8 levels
)

// dirNode is one directory node. On the last level the kids are the
// shards (pointers to their first slot), above it further nodes (*dirNode):
// one untyped node type lets the depth vary with the map's size. The
// pointers are unsafe.Pointers, which the garbage collector traces like
// any other.
type dirNode struct {
	kids [dirWidth]unsafe.Pointer
}

// wantBits is the number of shard bits for n keys: two to four keys a
// shard.
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

// hashID hashes a topic id: the two words mixed and avalanched (murmur3's
// fmix64), so that ids that differ in a few bits (a test's or a tool's
// counters) still spread over the shards, whose choice reads the top bits.
func hashID(u record.UUID) uint32 {
	h := binary.LittleEndian.Uint64(u[:8])*0x9E3779B97F4A7C15 ^ binary.LittleEndian.Uint64(u[8:])
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return uint32(h >> 32)
}

// hashString is FNV-1a with a final avalanche (murmur3's fmix32), so that
// the top bits, which choose a shard, depend on every byte.
func hashString(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// hashOf is the hash of tp's key in m.
func (m *topicMap) hashOf(tp *topic) uint32 {
	if m.names {
		return tp.nameHash
	}
	return hashID(tp.id)
}

// compareKeys orders two topics of equal hash by their keys in m.
func (m *topicMap) compareKeys(a, b *topic) int {
	if m.names {
		return strings.Compare(a.name, b.name)
	}
	return bytes.Compare(a.id[:], b.id[:])
}

// shard returns shard s (nil when empty).
func (m *topicMap) shard(s uint32) []slot {
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
	return slotsAt(n.kids[s&dirMask])
}

// Len is the number of keys.
func (m *topicMap) Len() int { return m.size }

// levels is m's directory depth.
func (m *topicMap) levels() int { return levels(m.bits) }

// getID returns the topic with id (m is the id index).
func (m *topicMap) getID(id record.UUID) (*topic, bool) {
	h := hashID(id)
	for _, s := range m.shard(shardOf(h, m.bits)) {
		if s.hash == h && s.tp.id == id {
			return s.tp, true
		}
	}
	return nil, false
}

// getName returns the topic named name (m is the name index).
func (m *topicMap) getName(name string) (*topic, bool) {
	h := hashString(name)
	for _, s := range m.shard(shardOf(h, m.bits)) {
		if s.hash == h && s.tp.name == name {
			return s.tp, true
		}
	}
	return nil, false
}

// All iterates over every topic, shard by shard.
func (m *topicMap) All() iter.Seq[*topic] {
	return func(yield func(*topic) bool) {
		if m.root != nil {
			walkShards(m.root, m.levels(), yield)
		}
	}
}

// walkShards yields the topics of the shards under n (depth levels).
func walkShards(n *dirNode, depth int, yield func(*topic) bool) bool {
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
		for _, s := range slotsAt(kid) {
			if !yield(s.tp) {
				return false
			}
		}
	}
	return true
}

// dirEditor makes a new directory from an old one (or from nothing),
// copying each node on the path to a changed shard once. Shards must be
// visited in increasing order.
type dirEditor struct {
	n      int         // levels
	path   [8]*dirNode // path[0] is the new root, path[n-1] the leaf
	prefix [8]int64    // the shard prefix path[i] was copied for (-1: none)
	spare  []dirNode   // nodes to copy into before allocating (a build)
	level  pathNodes   // else the node to copy into at each level (nil: allocate)
}

// pathNodes is, for each level of a directory, a node an update copies the
// path's node of that level into (nil: allocate one).
type pathNodes [8]*dirNode

// start begins an edit of the directory old of b shard bits.
func (e *dirEditor) start(old *dirNode, b uint32, spare []dirNode, level pathNodes) {
	e.n, e.spare, e.level = levels(b), spare, level
	e.path[0] = e.clone(old, 0)
	for i := 1; i < e.n; i++ {
		e.prefix[i] = -1
	}
}

// clone returns a new copy of p (a zero node when p is nil) for level l of
// the directory: a spare node when some are left, else the level's node
// when one was given and not yet used, else a new one.
func (e *dirEditor) clone(p *dirNode, l int) *dirNode {
	var n *dirNode
	switch {
	case len(e.spare) > 0:
		n, e.spare = &e.spare[0], e.spare[1:]
	case e.level[l] != nil:
		n, e.level[l] = e.level[l], nil
	default:
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
			e.path[j] = e.clone((*dirNode)(*slot), j)
			*slot = unsafe.Pointer(e.path[j])
			e.prefix[j] = int64(s >> shift)
		}
		break
	}
	return e.path[e.n-1]
}

// dirNodes is the number of directory nodes of a map of b shard bits whose
// every shard is set: the leaves, and the levels above them.
func dirNodes(b uint32) int {
	n, total := 1<<b, 0
	for range levels(b) {
		n = (n + dirMask) / dirWidth
		total += n
	}
	return total
}
