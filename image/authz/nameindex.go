package authz

import (
	"maps"
	"slices"
)

// nameIndex maps resource names to the entries of their ACLs, in shards by
// the name's length and its last four bytes (shardOf): a lookup finds its shard with
// three array indexes (no second hash), and a copy-on-write update
// (Incremental) copies the path to one small shard instead of the whole
// index. Names that share a length and last bytes share a shard; that costs
// copying, never a wrong answer.
type nameIndex struct {
	byLen [64]*nameShard
}

type (
	nameShard [64]*nameLeaf
	nameLeaf  [64]map[string][]entry
)

// shardOf picks a name's shard from its length and its last four bytes,
// mixed so that names differing only in trailing digits ("topic-4242",
// "topic-4243", ...), the common case, spread over the 4 096 leaves of
// their length instead of the 100 two digits give.
func shardOf(name string) (int, int, int) {
	n := len(name)
	var b1, b2, b3, b4 byte
	switch {
	case n >= 4:
		b1, b2, b3, b4 = name[n-1], name[n-2], name[n-3], name[n-4]
	case n == 3:
		b1, b2, b3 = name[2], name[1], name[0]
	case n == 2:
		b1, b2 = name[1], name[0]
	case n == 1:
		b1 = name[0]
	}
	return n & 63, int((b1 + 37*b3) & 63), int((b2 + 37*b4) & 63)
}

// get returns the entries of name.
func (ni *nameIndex) get(name string) []entry {
	l, b, c := shardOf(name)
	if sh := ni.byLen[l]; sh != nil {
		if leaf := sh[b]; leaf != nil {
			return leaf[c][name]
		}
	}
	return nil
}

// has reports whether name has entries.
func (ni *nameIndex) has(name string) bool { return len(ni.get(name)) > 0 }

// set replaces the entries of name; an empty list removes name.
func (ni *nameIndex) set(name string, list []entry) {
	l, b, c := shardOf(name)
	sh := ni.byLen[l]
	if sh == nil {
		if len(list) == 0 {
			return
		}
		sh = &nameShard{}
		ni.byLen[l] = sh
	}
	leaf := sh[b]
	if leaf == nil {
		if len(list) == 0 {
			return
		}
		leaf = &nameLeaf{}
		sh[b] = leaf
	}
	if len(list) == 0 {
		delete(leaf[c], name)
		return
	}
	if leaf[c] == nil {
		leaf[c] = map[string][]entry{}
	}
	leaf[c][name] = list
}

// lists yields the entry lists of every name.
func (ni *nameIndex) lists(yield func([]entry) bool) {
	for _, sh := range ni.byLen {
		if sh == nil {
			continue
		}
		for _, leaf := range sh {
			if leaf == nil {
				continue
			}
			for _, m := range leaf {
				for _, list := range m {
					if !yield(list) {
						return
					}
				}
			}
		}
	}
}

// own makes ni's path to name its own (ni is a copy of another index
// value): the shard and leaf arrays and the leaf's map are copied, and
// name's list is clipped so that an append copies it, leaving the other
// index as it was.
func (ni *nameIndex) own(name string) {
	l, b, c := shardOf(name)
	sh := ni.byLen[l]
	if sh == nil {
		return
	}
	shc := *sh
	ni.byLen[l] = &shc
	leaf := sh[b]
	if leaf == nil {
		return
	}
	lc := *leaf
	shc[b] = &lc
	lc[c] = maps.Clone(leaf[c])
	if list, ok := lc[c][name]; ok {
		lc[c][name] = slices.Clip(list)
	}
}

// cloneFor returns a copy of s that shares everything with s except what
// adding or removing a (whose index entry e and resource type rt compile
// computed) changes: the resource-type map, the type's index, and in it the
// path to a's name, the prefix lengths, the names below "*" and the slices
// that grow or shrink. s is left as it was, for readers still using it.
func (s *Standard) cloneFor(rt ResourceType, e entry) *Standard {
	c := *s
	c.byType = maps.Clone(s.byType)
	ti := s.byType[rt]
	if ti == nil {
		return &c
	}
	t := *ti
	if e.literal {
		t.literal.own(e.name)
	} else {
		t.prefixed.own(e.name)
	}
	t.prefixLens = slices.Clone(ti.prefixLens)
	t.lens = maps.Clone(ti.lens)
	t.wildcard = slices.Clip(ti.wildcard)
	t.bad = slices.Clip(ti.bad)
	if ti.low != nil {
		t.low = maps.Clone(ti.low)
		if e.name != "" {
			if l, ok := t.low[e.name[0]]; ok {
				t.low[e.name[0]] = slices.Clone(l)
			}
		}
	}
	c.byType[rt] = &t
	return &c
}
