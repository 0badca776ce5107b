package delta

import (
	"hash/maphash"

	"github.com/kmeta-go/kmeta/record"
)

// nameMap maps the names of the topics created in a delta to their ids
// (the name side of TopicsDelta's createdTopics). It is keyed by a 64-bit
// hash of the name, with the name kept in the value, so that the map's
// growth rehashes integers and never rereads the names: replaying a
// snapshot of a million topics, those reads missed the cache on every
// rehash. A name whose hash another name already holds goes to clash.
// The zero value is an empty map.
type nameMap struct {
	seed    maphash.Seed
	byHash  map[uint64]namedID
	clash   map[string]record.UUID
	collide uint64 // hash bits dropped (tests force clashes with it)
}

type namedID struct {
	name string
	id   record.UUID
}

func (m *nameMap) hash(name string) uint64 { return maphash.String(m.seed, name) &^ m.collide }

// get returns the id of name.
func (m *nameMap) get(name string) (record.UUID, bool) {
	if m.byHash == nil {
		return record.UUID{}, false
	}
	if e, ok := m.byHash[m.hash(name)]; ok && e.name == name {
		return e.id, true
	}
	id, ok := m.clash[name]
	return id, ok
}

// set maps name to id.
func (m *nameMap) set(name string, id record.UUID) {
	if m.byHash == nil {
		m.seed, m.byHash = maphash.MakeSeed(), map[uint64]namedID{}
	}
	h := m.hash(name)
	if e, ok := m.byHash[h]; ok && e.name != name {
		if m.clash == nil {
			m.clash = map[string]record.UUID{}
		}
		m.clash[name] = id
		return
	}
	m.byHash[h] = namedID{name, id}
	delete(m.clash, name)
}

// delete removes name.
func (m *nameMap) delete(name string) {
	if m.byHash == nil {
		return
	}
	if h := m.hash(name); m.byHash[h].name == name {
		delete(m.byHash, h)
	}
	delete(m.clash, name)
}
