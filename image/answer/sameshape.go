package answer

import "github.com/kmeta-go/kmeta/image"

// sameShape reports whether partitions p and q have the same leader,
// replicas, ISR and replica directories: everything a Metadata partition
// entry depends on besides its id and leader epoch (and the brokers), so
// that an answer computes those fields once per distinct shape
// (KRaftMetadataCache.partitionMetadata computes them for every partition).
// It reads p and q through their accessors only.
func sameShape(p, q *image.Partition) bool {
	n := p.NumReplicas()
	if p.Leader() != q.Leader() || n != q.NumReplicas() || p.NumISR() != q.NumISR() {
		return false
	}
	for i := range n {
		if p.Replica(i) != q.Replica(i) {
			return false
		}
	}
	for i := range p.NumISR() {
		if p.ISRMember(i) != q.ISRMember(i) {
			return false
		}
	}
	pm, qm := p.AllDirectoriesMigrating(), q.AllDirectoriesMigrating()
	if pm && qm {
		return true
	}
	for i := range n {
		if p.Directory(i) != q.Directory(i) {
			return false
		}
	}
	return true
}

// shapeHash is a hash of what sameShape compares (directories aside):
// partitions of the same shape have the same hash.
func shapeHash(p *image.Partition) uint32 {
	const k0, k1 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F
	n, ni := p.NumReplicas(), p.NumISR()
	h := uint64(uint32(p.Leader())) | uint64(n)<<32 | uint64(ni)<<48
	for i := range n {
		h = (h ^ uint64(uint32(p.Replica(i)))) * k0
	}
	for i := range ni {
		h = (h ^ uint64(uint32(p.ISRMember(i)))) * k1
	}
	h ^= h >> 29
	h *= k1
	return uint32(h >> 32)
}
