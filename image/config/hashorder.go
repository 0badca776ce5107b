package config

import (
	"slices"

	"github.com/kmeta-go/kmeta/internal/javahash"
)

// javaBucket is the bucket of key in a java.util.HashMap table of size
// capacity (HashMap.hash: h ^ h>>>16, masked).
func javaBucket(key string, capacity int) int {
	h := uint32(javahash.String(key))
	return int((h ^ h>>16) & uint32(capacity-1))
}

// grownCapacity is the table size of a HashMap made empty and given n
// entries one by one (16, doubled whenever the size passes 3/4 of it).
func grownCapacity(n int) int {
	c := 16
	for n > c*3/4 {
		c *= 2
	}
	return c
}

// javaOrder sorts keys, given in insertion order, into the iteration order
// of a HashMap of the given capacity: by bucket, and in a bucket by
// insertion (a resize keeps the order of the entries it splits).
func javaOrder(keys []string, capacity int) {
	slices.SortStableFunc(keys, func(a, b string) int {
		return javaBucket(a, capacity) - javaBucket(b, capacity)
	})
}
