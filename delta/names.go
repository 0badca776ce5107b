package delta

import (
	"hash/maphash"

	"github.com/kmeta-go/kmeta/record"
)

// nameMap maps the names of the topics created in a delta to their
// topicDeltas (the name side of TopicsDelta's createdTopics; a topicDelta
// holds its name and id). It is keyed by a 64-bit hash of the name, so that
// the map's growth rehashes 16-byte entries and never rereads the names:
// replaying a snapshot of a million topics, those reads missed the cache on
// every rehash. A name whose hash another name already holds goes to clash.
// The zero value is an empty map.
type nameMap struct {
	seed    maphash.Seed
	byHash  map[uint64]*topicDelta
	clash   map[string]*topicDelta
	collide uint64 // hash bits dropped (tests force clashes with it)
}

func (m *nameMap) hash(name string) uint64 { return maphash.String(m.seed, name) &^ m.collide }

// get returns the id of name.
func (m *nameMap) get(name string) (record.UUID, bool) {
	if m.byHash == nil {
		return record.UUID{}, false
	}
	if td, ok := m.byHash[m.hash(name)]; ok && td.name == name {
		return td.id, true
	}
	if td, ok := m.clash[name]; ok {
		return td.id, true
	}
	return record.UUID{}, false
}

// set maps td's name to td.
func (m *nameMap) set(td *topicDelta) {
	if m.byHash == nil {
		m.seed, m.byHash = maphash.MakeSeed(), map[uint64]*topicDelta{}
	}
	h := m.hash(td.name)
	if e, ok := m.byHash[h]; ok && e.name != td.name {
		if m.clash == nil {
			m.clash = map[string]*topicDelta{}
		}
		m.clash[td.name] = td
		return
	}
	m.byHash[h] = td
	delete(m.clash, td.name)
}

// delete removes name.
func (m *nameMap) delete(name string) {
	if m.byHash == nil {
		return
	}
	if h := m.hash(name); m.byHash[h] != nil && m.byHash[h].name == name {
		delete(m.byHash, h)
	}
	delete(m.clash, name)
}
