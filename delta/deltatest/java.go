package deltatest

import (
	"encoding/base64"
	"slices"

	"github.com/kmeta-go/kmeta/internal/javahash"
	"github.com/kmeta-go/kmeta/record"
)

// This file emulates the pieces of the JDK whose behaviour leaks into the
// records Kafka's controller writes:
// java.util.Random (the replica placer's draws), Collections.shuffle,
// String.hashCode and the iteration order of java.util.HashMap/HashSet.

// javaRandom is java.util.Random: a 48-bit linear congruential generator
// (the constants of java.util.Random.next).
type javaRandom struct{ seed int64 }

const (
	javaMultiplier = 0x5DEECE66D
	javaMask       = (int64(1) << 48) - 1
)

func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{seed: (seed ^ javaMultiplier) & javaMask}
}

func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*javaMultiplier + 0xB) & javaMask
	return int32(uint64(r.seed) >> (48 - bits))
}

// nextInt is Random.nextInt(bound), bound > 0.
func (r *javaRandom) nextInt(bound int32) int32 {
	if bound&(-bound) == bound { // a power of two
		return int32((int64(bound) * int64(r.next(31))) >> 31)
	}
	u := r.next(31)
	for {
		v := u % bound
		if u-v+(bound-1) >= 0 { // int32 arithmetic wraps as Java's does
			return v
		}
		u = r.next(31)
	}
}

// nextLong is Random.nextLong.
func (r *javaRandom) nextLong() int64 {
	return int64(r.next(32))<<32 + int64(r.next(32))
}

// shuffle is Collections.shuffle(list, rnd) for a RandomAccess list.
func shuffle[T any](list []T, r *javaRandom) {
	for i := len(list); i > 1; i-- {
		j := r.nextInt(int32(i))
		list[i-1], list[j] = list[j], list[i-1]
	}
}

// javaStringHash is String.hashCode.
func javaStringHash(s string) int32 { return javahash.String(s) }

// hashMapSpread is HashMap.hash: h ^ (h >>> 16).
func hashMapSpread(h int32) uint32 { return uint32(h) ^ (uint32(h) >> 16) }

// tableSizeFor is HashMap.tableSizeFor: the smallest power of two >= n.
func tableSizeFor(n int) int {
	c := 1
	for c < n {
		c <<= 1
	}
	return c
}

// hashOrder returns keys (given in insertion order, no duplicates) in the
// iteration order of a java.util.HashMap or HashSet whose table started at
// initialCapacity and grew by doubling whenever its size passed 0.75 of the
// capacity (HashMap.resize): buckets ascending, insertion order within a bucket.
// Treeified buckets are not modelled.
func hashOrder[K any](keys []K, hash func(K) int32, initialCapacity int) []K {
	capacity := tableSizeFor(max(initialCapacity, 1))
	for len(keys) > capacity*3/4 {
		capacity <<= 1
	}
	out := slices.Clone(keys)
	slices.SortStableFunc(out, func(a, b K) int {
		ba, bb := hashMapSpread(hash(a))&uint32(capacity-1), hashMapSpread(hash(b))&uint32(capacity-1)
		switch {
		case ba < bb:
			return -1
		case ba > bb:
			return 1
		}
		return 0
	})
	return out
}

func intHash(i int32) int32 { return i }

// newHashSetCapacity is the table size of new HashSet(collection of n).
func newHashSetCapacity(n int) int { return max(int(float64(n)/0.75)+1, 16) }

// randomUUID is Kafka's Uuid.randomUuid over a seeded source: a version-4
// UUID (java.util.UUID.randomUUID's layout) that is neither ZERO nor the
// metadata topic id (1) and whose base64 form does not start with '-'.
func randomUUID(r *javaRandom) record.UUID {
	for {
		var u record.UUID
		msb, lsb := r.nextLong(), r.nextLong()
		hi := uint64(msb)&^0xF000 | 0x4000         // version 4
		lo := uint64(lsb)&^(0xC<<60) | (0x8 << 60) // IETF variant
		for i := 0; i < 8; i++ {
			u[i] = byte(hi >> (56 - 8*i))
			u[8+i] = byte(lo >> (56 - 8*i))
		}
		if u == (record.UUID{}) || u == (record.UUID{15: 1}) {
			continue
		}
		if base64.RawURLEncoding.EncodeToString(u[:])[0] == '-' {
			continue
		}
		return u
	}
}
