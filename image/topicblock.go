package image

import (
	"unsafe"

	"github.com/kmeta-go/kmeta/record"
)

// A frozen topic is one pointer-free allocation (a topic block):
//
//	| topic | partitions | long id lists | name bytes |
//
// The topic's name and parts, and every partition's ids, point into the
// block itself, never out of it. The garbage collector therefore has
// nothing to find in a block: the block is allocated as pointer-free
// memory (a []uint64), and the collector neither scans it nor needs to,
// since whatever a pointer into the block keeps alive is the block. A
// million-partition image is then a million 80-byte partitions the
// collector does not read at all; what it still marks is the two indexes.
//
// The rule that makes this safe: nothing written into a block points
// outside it (TestTopicBlockPointsOnlyIntoItself), topic and
// PartitionRegistration have no pointer fields but the ones newTopicBlock
// redirects (TestTopicBlockKnowsEveryPointerField), and nothing but the
// package writes into a block: the package hands out Topic and Partition
// handles, whose one pointer is unexported, and PartitionRegistration
// values the caller owns, never a pointer into a block
// (TestNoExportedPointerIntoTopicBlocks). A reader may keep a Topic, a
// Partition, a PartitionRegistration copied out of one (its ids still
// point into the block) or the name: each keeps the whole block alive.

const (
	topicSize     = unsafe.Sizeof(topic{})
	partitionSize = unsafe.Sizeof(PartitionRegistration{})
	// wordPad pads PartitionRegistration after its slice header on 32-bit platforms,
	// where the header is 12 bytes instead of 24, so that a partition stays
	// a whole number of 8-byte words there too (0 on 64-bit platforms).
	wordPad = 4 - 4*(unsafe.Sizeof(uintptr(0))/8)
)

// The block is laid out in 8-byte words: the topic and the partitions must
// keep every field aligned.
var (
	_ = [1]struct{}{}[topicSize%8]
	_ = [1]struct{}{}[partitionSize%8]
	_ = [1]struct{}{}[unsafe.Alignof(topic{})/9]
	_ = [1]struct{}{}[unsafe.Alignof(PartitionRegistration{})/9]
)

// block is one topic block being laid out: the topic at its start, room
// for cap(parts) partitions, then pool int32s, then the name's bytes.
type block struct {
	t     *topic
	parts []PartitionRegistration // len 0, the block's room for partitions
	pool  []int32
	name  string // the name, in the block
}

// allocBlock allocates a zeroed block for a topic named name with room for
// nparts partitions and pool long-list ids, in pointer-free memory.
func allocBlock(name string, nparts, pool int) block {
	partsOff := topicSize
	poolOff := partsOff + uintptr(nparts)*partitionSize
	nameOff := poolOff + uintptr(pool)*4
	size := nameOff + uintptr(len(name))
	words := make([]uint64, (size+7)/8)
	base := unsafe.Pointer(unsafe.SliceData(words))
	bl := block{t: (*topic)(base)}
	if nparts > 0 {
		bl.parts = unsafe.Slice((*PartitionRegistration)(unsafe.Add(base, partsOff)), nparts)[:0]
	}
	if pool > 0 {
		bl.pool = unsafe.Slice((*int32)(unsafe.Add(base, poolOff)), pool)
	}
	if len(name) > 0 {
		nb := unsafe.Slice((*byte)(unsafe.Add(base, nameOff)), len(name))
		copy(nb, name)
		bl.name = unsafe.String(&nb[0], len(nb))
	}
	return bl
}

// finish writes the topic at the block's start, with parts (which must lie
// in the block) as its partitions, and returns it.
func (bl block) finish(id record.UUID, nameHash uint32, parts []PartitionRegistration) *topic {
	t := bl.t
	t.name, t.id, t.nameHash = bl.name, id, nameHash
	if len(parts) > 0 {
		t.parts = parts[:len(parts):len(parts)]
	}
	return t
}

// newTopicBlock returns a topic named name with id and a copy of parts,
// all in one pointer-free block of exactly their size. parts is not
// retained (nor are the id arrays of its partitions).
func newTopicBlock(name string, id record.UUID, nameHash uint32, parts []PartitionRegistration) *topic {
	pool := 0
	for i := range parts {
		if parts[i].ids != nil {
			pool += len(parts[i].ids)
		}
	}
	bl := allocBlock(name, len(parts), pool)
	ps, ids := bl.parts[:len(parts)], bl.pool
	for i := range parts {
		q := parts[i]
		if q.ids != nil {
			n := copy(ids, q.ids)
			q.ids, ids = ids[:n:n], ids[n:]
		}
		ps[i] = q
	}
	return bl.finish(id, nameHash, ps)
}
