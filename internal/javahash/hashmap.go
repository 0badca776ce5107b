package javahash

import "slices"

// HashMapOrder returns the iteration order of a java.util.HashMap<String, V>
// created with the default capacity (16, load factor 0.75) into which keys
// were put in the given order: the indexes of the distinct keys (the first
// occurrence of each), as HashMap.keySet iterates them. A HashMap iterates
// its table's buckets in index order, each bucket's nodes in insertion order
// (resize splits keep it); the bucket is spread(hashCode) & (capacity-1) with
// spread(h) = h ^ (h >>> 16). The capacity doubles when the size passes
// three quarters of it, and when a ninth node joins a bucket of a table
// smaller than 64 (putVal's treeifyBin resizes instead of treeifying).
// Buckets that Java turns into trees (nine or more keys of one bucket in a
// table of 64 or more) are not modelled: their order would follow the tree.
func HashMapOrder(keys []string) []int {
	var idx []int
	var hashes []uint32
	seen := make(map[string]bool, len(keys))
	for i, k := range keys {
		if !seen[k] {
			seen[k] = true
			idx = append(idx, i)
			h := uint32(String(k))
			hashes = append(hashes, h^(h>>16))
		}
	}
	capacity := uint32(16)
	bins := map[uint32]int{}
	resize := func(n int) {
		capacity *= 2
		clear(bins)
		for _, h := range hashes[:n+1] {
			bins[h&(capacity-1)]++
		}
	}
	for n, h := range hashes {
		bins[h&(capacity-1)]++
		if bins[h&(capacity-1)] >= 9 && capacity < 64 {
			resize(n) // treeifyBin on a small table
		}
		if uint32(n+1) > capacity/4*3 {
			resize(n) // ++size > threshold
		}
	}
	order := make([]int, len(idx))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return int(hashes[a]&(capacity-1)) - int(hashes[b]&(capacity-1))
	})
	for i, o := range order {
		order[i] = idx[o]
	}
	return order
}
