package clientview

import (
	"hash/maphash"
	"iter"
	"math/bits"
)

// topicTable is a View's index of its topics by name: an open-addressing hash
// table with linear probing whose slots hold *Topic (the key is Topic.name),
// cut into chunks so that the next view copies only the chunks a merge writes
// and shares the others (copy-on-write).
//
// Why not a Go map: a merge that replaces 500 of 5 000 topics had to clone
// the whole map (about 215 KB, every entry re-inserted) and write the 500
// into it. Here 5 000 topics fill 8 192 slots in 64 chunks of 128; the merge
// copies the directory (1.5 KB) and the chunks it writes (at most 64 KB, one
// memmove each), and a merge that replaces one topic copies 2.5 KB.
//
// A replaced topic keeps its slot, so the slot of an answer's entry is a
// stable lookup hint (View.order) until the table is rebuilt. A deleted
// topic leaves a tombstone; the table is rebuilt when topics and tombstones
// fill three quarters of it.
//
// A topicTable reachable from a returned View is never modified: a
// tableWriter makes the next one.
type topicTable struct {
	// dir holds 1<<(bits-cbits) chunks of 1<<cbits slots; nil when the
	// table has never held a topic.
	dir   [][]*Topic
	bits  uint8 // log2 of the slot count
	cbits uint8 // log2 of the chunk size
	n     int   // topics
	used  int   // topics and tombstones
}

// tableSeed is the hash seed of every table of the process: the next view's
// table inherits the receiver's slots.
var tableSeed = maphash.MakeSeed()

// tombstone marks the slot of a deleted topic: probes go on past it.
var tombstone = new(Topic)

// minTableBits is the smallest table: 16 slots.
const minTableBits = 4

func hashName(name string) uint64 { return maphash.String(tableSeed, name) }

// chunkBits is the chunk size of a table of 1<<b slots: the square root of
// the slot count (at least 64 slots, at most the table), so that the
// directory and a chunk cost the same to copy.
func chunkBits(b uint8) uint8 {
	c := max((b+1)/2, 6)
	return min(c, b)
}

// slots is the slot count.
func (t *topicTable) slots() int {
	if t.dir == nil {
		return 0
	}
	return 1 << t.bits
}

// at returns slot s (nil when empty; tombstone when deleted). s must be in
// [0, slots()).
func (t *topicTable) at(s int32) *Topic {
	return t.dir[uint32(s)>>t.cbits][uint32(s)&(1<<t.cbits-1)]
}

// topicAt returns the topic in slot s if it is named name.
func (t *topicTable) topicAt(s int32, name string) *Topic {
	if s < 0 || int(s) >= t.slots() {
		return nil
	}
	if x := t.at(s); x != nil && x != tombstone && x.name == name {
		return x
	}
	return nil
}

// find returns the topic named name and its slot (nil, -1 if none).
func (t *topicTable) find(name string) (*Topic, int32) {
	if t.n == 0 {
		return nil, -1
	}
	mask := uint32(1)<<t.bits - 1
	for s := uint32(hashName(name)) & mask; ; s = (s + 1) & mask {
		x := t.at(int32(s))
		if x == nil {
			return nil, -1
		}
		if x != tombstone && x.name == name {
			return x, int32(s)
		}
	}
}

// get returns the topic named name.
func (t *topicTable) get(name string) *Topic {
	x, _ := t.find(name)
	return x
}

// all iterates over the topics in slot order.
func (t *topicTable) all() iter.Seq[*Topic] {
	return func(yield func(*Topic) bool) {
		for _, c := range t.dir {
			for _, x := range c {
				if x != nil && x != tombstone && !yield(x) {
					return
				}
			}
		}
	}
}

// tableWriter makes the next table from a base one it never modifies
// (tableWriter{base: b}); the first set copies the base's directory.
type tableWriter struct {
	base *topicTable
	t    topicTable
	// started: t's directory is the writer's own; rebuilt: every chunk is
	// too (and slots are not the base's).
	started, rebuilt bool
}

func (w *tableWriter) start() {
	w.t = *w.base
	w.t.dir = append([][]*Topic(nil), w.base.dir...)
	w.started = true
}

// table returns the table being written (the base until the first set).
func (w *tableWriter) table() *topicTable {
	if w.started {
		return &w.t
	}
	return w.base
}

// own returns chunk c, copied first if it is still the base's.
func (w *tableWriter) own(c uint32) []*Topic {
	ch := w.t.dir[c]
	if !w.rebuilt && &ch[0] == &w.base.dir[c][0] {
		ch = append([]*Topic(nil), ch...)
		w.t.dir[c] = ch
	}
	return ch
}

// set files nt under name in place of old (nil: none; nt nil: deletes name)
// and returns nt's slot (-1 when deleted). hint is a slot where old may be
// (-1: unknown): when it is, name is not looked up.
func (w *tableWriter) set(name string, old, nt *Topic, hint int32) int32 {
	if !w.started {
		w.start()
	}
	t := &w.t
	s := int32(-1)
	if old != nil && hint >= 0 && int(hint) < t.slots() && t.at(hint) == old {
		s = hint
	} else {
		_, s = t.find(name)
	}
	if s >= 0 {
		ch := w.own(uint32(s) >> t.cbits)
		if nt == nil {
			ch[uint32(s)&(1<<t.cbits-1)] = tombstone
			t.n--
			return -1
		}
		ch[uint32(s)&(1<<t.cbits-1)] = nt
		return s
	}
	if nt == nil {
		return -1
	}
	if t.dir == nil || (t.used+1)*4 > t.slots()*3 {
		w.rebuild(t.n + 1)
	}
	// Insert at the first free slot or tombstone of name's probe sequence.
	mask := uint32(1)<<t.bits - 1
	for s := uint32(hashName(name)) & mask; ; s = (s + 1) & mask {
		x := t.at(int32(s))
		if x == nil || x == tombstone {
			if x == nil {
				t.used++
			}
			t.n++
			w.own(s >> t.cbits)[s&(1<<t.cbits-1)] = nt
			return int32(s)
		}
	}
}

// rebuild re-inserts every topic into a new table of room for n topics at
// most half full, without tombstones.
func (w *tableWriter) rebuild(n int) {
	b := uint8(max(minTableBits, bits.Len(uint(2*n-1))))
	cb := chunkBits(b)
	all := make([]*Topic, 1<<b)
	nt := topicTable{dir: make([][]*Topic, 1<<(b-cb)), bits: b, cbits: cb}
	for i := range nt.dir {
		lo := i << cb
		nt.dir[i] = all[lo : lo+1<<cb : lo+1<<cb]
	}
	mask := uint32(1)<<b - 1
	for x := range w.t.all() {
		s := uint32(hashName(x.name)) & mask
		for all[s] != nil {
			s = (s + 1) & mask
		}
		all[s] = x
		nt.n++
	}
	nt.used = nt.n
	w.t = nt
	w.rebuilt = true
}

// finish returns the written table.
func (w *tableWriter) finish() topicTable { return *w.table() }
