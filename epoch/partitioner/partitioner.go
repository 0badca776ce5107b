package partitioner

// Murmur2 is Kafka's 32-bit murmur2 hash of data (Utils.murmur2):
// seed 0x9747b28c, m 0x5bd1e995, r 24, little-endian 4-byte chunks, the tail
// bytes taken unsigned, with int32 wrap-around.
func Murmur2(data []byte) int32 {
	const (
		seed = 0x9747b28c
		m    = 0x5bd1e995
		r    = 24
	)
	n := len(data)
	h := uint32(seed) ^ uint32(n)
	i := 0
	for ; i+4 <= n; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	switch n - i {
	case 3:
		h ^= uint32(data[i+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[i+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[i])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// ToPositive is Kafka's Utils.toPositive: x with its sign bit cleared.
func ToPositive(x int32) int32 { return x & 0x7fffffff }

// ForKey is the partition Kafka's default producer partitioner picks
// for a non-null key (BuiltInPartitioner.partitionForKey):
// toPositive(murmur2(key)) % numPartitions, numPartitions being every
// partition of the topic, available or not (Topic.NumPartitions). It returns
// -1 when numPartitions ≤ 0.
func ForKey(key []byte, numPartitions int) int32 {
	if numPartitions <= 0 {
		return -1
	}
	return int32(int64(ToPositive(Murmur2(key))) % int64(numPartitions))
}

// KeyMove tells where a key goes before and after a topic's partition count
// changes from before to after, and whether it moves (per-key
// order is lost across the change for the keys that move).
func KeyMove(key []byte, before, after int) (from, to int32, moved bool) {
	from, to = ForKey(key, before), ForKey(key, after)
	return from, to, from != to
}

// MovedFraction is the share of uniformly hashed keys that change partition
// when a topic grows from before to after partitions: a key stays only when
// its hash gives the same remainder modulo both counts. Growing 6 → 12 moves
// half the keys, 6 → 7 moves six in seven.
func MovedFraction(before, after int) float64 {
	if before <= 0 || after <= 0 || before == after {
		return 0
	}
	// Over one period lcm(before, after) of the hash, count residues with
	// r mod before == r mod after: for each a < min, r ≡ a (mod before) and
	// r ≡ a (mod after) has exactly one solution r = a in [0, lcm), plus
	// none other since r - a must be a multiple of lcm.
	lo := min(before, after)
	l := lcm(before, after)
	return 1 - float64(lo)/float64(l)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int) int { return a / gcd(a, b) * b }
