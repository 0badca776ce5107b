package image

// SameAssignment reports whether p and q have the same replicas, ISR,
// reassignment lists, ELR, last known ELR, replica directories and leader:
// everything Equal compares but the partition id, the epochs and the leader
// recovery state. Every per-partition field of a Metadata answer other than
// the id and the leader epoch depends only on these (and on the brokers),
// so an answer computes them once per distinct assignment
// (KRaftMetadataCache computes them for every partition).
func (p *PartitionRegistration) SameAssignment(q *PartitionRegistration) bool {
	// Field by field: comparing the arrays whole calls memequal.
	if p.leader != q.leader || p.hasDirs != q.hasDirs ||
		p.n[0] != q.n[0] || p.n[1] != q.n[1] || p.n[2] != q.n[2] ||
		p.n[3] != q.n[3] || p.n[4] != q.n[4] || p.n[5] != q.n[5] {
		return false
	}
	if p.ids == nil && q.ids == nil { // slots past the ids are zero in both
		a, b := &p.inline, &q.inline
		return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3] && a[4] == b[4] && a[5] == b[5]
	}
	a, b := p.all(), q.all() // of equal lengths: n and hasDirs are equal
	b = b[:len(a)]
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// AssignmentHash is a hash of what SameAssignment compares: partitions it
// reports the same have the same hash.
func (p *PartitionRegistration) AssignmentHash() uint32 {
	const k0, k1, k2 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
	h := uint64(uint32(p.leader)) | uint64(p.n[listReplicas])<<32 | uint64(p.n[listISR])<<48
	if p.hasDirs {
		h = ^h
	}
	if p.ids == nil {
		w0 := uint64(uint32(p.inline[0])) | uint64(uint32(p.inline[1]))<<32
		w1 := uint64(uint32(p.inline[2])) | uint64(uint32(p.inline[3]))<<32
		w2 := uint64(uint32(p.inline[4])) | uint64(uint32(p.inline[5]))<<32
		h ^= w0*k0 ^ w1*k1 ^ w2*k2
	} else {
		for _, x := range p.ids {
			h = (h ^ uint64(uint32(x))) * k0
		}
	}
	h ^= h >> 29
	h *= k1
	return uint32(h >> 32)
}
