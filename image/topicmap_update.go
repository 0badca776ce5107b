package image

import (
	"cmp"
	"slices"
)

// topicOp is one change of a batch to a topicMap: put tp under its key, or
// (del) remove tp's key. update fills in old and had: the topic the map held
// under the key before the batch.
type topicOp struct {
	shard, hash uint32
	del, had    bool
	tp, old     *topic
}

// op returns the change of m that puts tp under its key, or with del
// removes tp's key.
func (m *topicMap) op(tp *topic, del bool) topicOp {
	h := m.hashOf(tp)
	return topicOp{shard: shardOf(h, m.bits), hash: h, del: del, tp: tp}
}

// update returns m with ops (made by m's op) applied in order (for one key,
// the later op wins). ops is reordered (stably, by shard), and each op's
// old and had are set to what m holds for its key: read shard by shard
// just before the shard is copied. The copied nodes of the directory are
// taken from level where it has one for their level (see
// topicIndexes.update), else allocated one by one.
func (m *topicMap) update(ops []topicOp, level pathNodes) topicMap {
	if len(ops) == 0 {
		return *m
	}
	if m.root == nil {
		return m.updateEmpty(ops)
	}
	sortOps(ops, m.bits)
	out := topicMap{size: m.size, bits: m.bits, names: m.names}
	var e dirEditor
	e.start(m.root, m.bits, nil, level)
	for i := 0; i < len(ops); {
		s := ops[i].shard
		j := i + 1
		for j < len(ops) && ops[j].shard == s {
			j++
		}
		leaf := e.leafOf(s)
		old := slotsAt(leaf.kids[s&dirMask])
		next := m.applyShard(old, ops[i:j])
		out.size += len(next) - len(old)
		leaf.kids[s&dirMask] = storeShard(next)
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

// applyShard returns a new shard: old with ops (all of its shard) applied in
// order, nil when nothing is left. Each op's old and had are read from old.
func (m *topicMap) applyShard(old []slot, ops []topicOp) []slot {
	var buf [16]slot // a shard holds two to four keys on average
	work := append(buf[:0], old...)
	for i := range ops {
		op := &ops[i]
		if k, ok := m.find(old, op.hash, op.tp); ok {
			op.old, op.had = old[k].tp, true
		}
		k, found := m.find(work, op.hash, op.tp)
		switch {
		case op.del && found:
			work = slices.Delete(work, k, k+1)
		case op.del:
		case found:
			work[k].tp = op.tp
		default:
			work = slices.Insert(work, k, slot{hash: op.hash, tp: op.tp})
		}
	}
	if len(work) == 0 {
		return nil
	}
	out := make([]slot, len(work))
	copy(out, work)
	return out
}

// find returns where the key of tp (of hash h) is or belongs in s, which is
// sorted by hash and then by key, and whether it is there.
func (m *topicMap) find(s []slot, h uint32, tp *topic) (int, bool) {
	for k := range s {
		if s[k].hash < h {
			continue
		}
		if s[k].hash > h {
			return k, false
		}
		if c := m.compareKeys(s[k].tp, tp); c >= 0 {
			return k, c == 0
		}
	}
	return len(s), false
}

// compareSlots orders slots by hash, then by key: the topics are read
// only when the hashes are equal.
func (m *topicMap) compareSlots(x, y slot) int {
	if x.hash != y.hash {
		return cmp.Compare(x.hash, y.hash)
	}
	return m.compareKeys(x.tp, y.tp)
}

// updateEmpty is update on an empty map: for each key the last op decides,
// and the map is built for its size.
func (m *topicMap) updateEmpty(ops []topicOp) topicMap {
	slices.SortStableFunc(ops, func(x, y topicOp) int {
		return m.compareSlots(slot{hash: x.hash, tp: x.tp}, slot{hash: y.hash, tp: y.tp})
	})
	var topics []*topic
	for i := range ops {
		last := i+1 == len(ops) || ops[i+1].hash != ops[i].hash || m.compareKeys(ops[i+1].tp, ops[i].tp) != 0
		if last && !ops[i].del {
			topics = append(topics, ops[i].tp)
		}
	}
	return buildTopicMap(m.names, topics)
}

// reshard returns m built anew with the shard bits its size wants.
func (m *topicMap) reshard() topicMap {
	topics := make([]*topic, 0, m.size)
	for tp := range m.All() {
		topics = append(topics, tp)
	}
	return buildTopicMap(m.names, topics)
}

// buildTopicMap returns the index (by name when names, else by id) of
// topics; of two topics with one key, the later wins. The topics are
// grouped by shard with a counting sort into one array of slots, which
// every shard is a part of, and the directory's nodes are one array too:
// a build makes a handful of objects, however many topics.
func buildTopicMap(names bool, topics []*topic) topicMap {
	out := topicMap{names: names, bits: wantBits(len(topics))}
	if len(topics) == 0 {
		return out
	}
	b := out.bits
	count := make([]int32, 1<<b+1)
	hashes := make([]uint32, len(topics))
	for i, tp := range topics {
		hashes[i] = out.hashOf(tp)
		count[shardOf(hashes[i], b)+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	slots := make([]slot, len(topics))
	next := slices.Clone(count)
	for i, tp := range topics {
		s := shardOf(hashes[i], b)
		slots[next[s]] = slot{hash: hashes[i], tp: tp}
		next[s]++
	}
	var e dirEditor
	e.start(nil, b, make([]dirNode, dirNodes(b)), pathNodes{})
	for s := uint32(0); s < 1<<b; s++ {
		sh := slots[count[s]:count[s+1]:count[s+1]]
		if len(sh) == 0 {
			continue
		}
		slices.SortStableFunc(sh, out.compareSlots)
		w := 0
		for k := range sh {
			if k+1 < len(sh) && out.compareSlots(sh[k], sh[k+1]) == 0 {
				continue // a later topic has this key
			}
			sh[w] = sh[k]
			w++
		}
		out.size += w
		e.leafOf(s).kids[s&dirMask] = storeShard(sh[:w])
	}
	out.root = e.path[0]
	return out
}

// sortOps orders ops by shard, keeping the order of ops of one shard: an
// insertion sort for a few ops, a counting sort for many compared with the
// shards (b shard bits), else a sort of their indexes.
func sortOps(ops []topicOp, b uint32) {
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
		slices.SortStableFunc(ops, func(x, y topicOp) int { return cmp.Compare(x.shard, y.shard) })
		return
	}
	count := make([]int32, 1<<b+1)
	for i := range ops {
		count[ops[i].shard+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	sorted := make([]topicOp, n)
	for i := range ops {
		s := ops[i].shard
		sorted[count[s]] = ops[i]
		count[s]++
	}
	copy(ops, sorted)
}
