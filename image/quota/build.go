package quota

import (
	"math"

	"github.com/kmeta-go/kmeta/image"
)

// Ignored is one quota of the image that a broker's quota managers do not
// hold, and why (ClientQuotaMetadataManager logs these and goes on).
type Ignored struct {
	// Entity is the entity's canonical key (image.QuotaEntityKey).
	Entity string
	// Key is the quota key, "" when the whole entity is ignored.
	Key    string
	Reason string
}

// Reasons of Ignored.
const (
	// ReasonUnsupportedEntity: an entity of neither user, client-id nor
	// ip ("Ignoring unsupported quota entity").
	ReasonUnsupportedEntity = "unsupported quota entity"
	// ReasonUnexpectedKey: a key that is not one of the four client quota
	// keys on a user or client-id entity, or not connection_creation_rate
	// on an ip entity ("Ignoring unexpected quota key").
	ReasonUnexpectedKey = "unexpected quota key"
	// ReasonUnresolvedIP: an ip entity whose name is not an IP address
	// literal (ParseIP). Kafka resolves such a name as a host name
	// (InetAddress.getByName), which kmeta does not do.
	ReasonUnresolvedIP = "ip entity name is not an IP address literal"
	// ReasonShadowed: an ip entity naming the same address as another
	// (01.2.3.4 and 1.2.3.4), which a broker holds under one key. Kafka
	// keeps whichever it applied last, an order the image does not record;
	// kmeta keeps the entity whose name is the address's canonical form
	// (HostAddress), else the last in key order.
	ReasonShadowed = "shadowed by another entity under the same key"
)

// NewIndex builds the index of q, routing each entity and quota key as
// ClientQuotaMetadataManager.update does: an entity with an ip part is an
// IP quota (connection_creation_rate only; ConnectionQuotas), else one with
// a user or client-id part is a client quota of the type its key is routed
// to (TypeOf), with the user name sanitized (Sanitize) as
// transferToClientQuotaEntity does; anything else is ignored (Ignored).
// Parts of other types beside a user or client-id part are disregarded, as
// Kafka disregards them, so {user=alice, group=g} is held as user=alice;
// when both exist Kafka keeps whichever it applied last, kmeta the entity
// without the extra part (entities with extra parts are applied first, in
// key order).
func NewIndex(q *image.ClientQuotas) *Index {
	ix := &Index{
		users:   map[string]*userEntry{},
		clients: map[string]*clientEntry{},
		pairs:   map[pair]*vals{},
		ip:      newIPIndex(),
	}
	var plain, extra []clientEntity
	for key, e := range q.Entities() {
		parts := e.Parts()
		switch {
		case hasPart(parts, EntityIP):
			ix.addIP(key, parts, e)
		case hasPart(parts, EntityUser) || hasPart(parts, EntityClientID):
			if len(parts) == countParts(parts) {
				plain = append(plain, clientEntity{key, parts, e})
			} else {
				extra = append(extra, clientEntity{key, parts, e})
			}
		default:
			ix.ignored = append(ix.ignored, Ignored{Entity: key, Reason: ReasonUnsupportedEntity})
		}
	}
	for _, e := range append(extra, plain...) {
		ix.addClient(e.key, e.parts, e.e)
	}
	ix.ip.finish(ix)
	return ix
}

// Ignored is every quota of the image the index does not hold, by entity
// key.
func (ix *Index) Ignored() []Ignored { return append([]Ignored(nil), ix.ignored...) }

func hasPart(parts []image.QuotaEntityPart, typ string) bool {
	for _, p := range parts {
		if p.Type == typ {
			return true
		}
	}
	return false
}

// countParts is the number of user and client-id parts.
func countParts(parts []image.QuotaEntityPart) int {
	n := 0
	for _, p := range parts {
		if p.Type == EntityUser || p.Type == EntityClientID {
			n++
		}
	}
	return n
}

// part returns the part of type typ: present, and its name (nil for the
// default).
func part(parts []image.QuotaEntityPart, typ string) (*string, bool) {
	for _, p := range parts {
		if p.Type == typ {
			return p.Name, true
		}
	}
	return nil, false
}

// clientEntity is an entity of the image routed to the client quota
// managers, with its key and parts.
type clientEntity struct {
	key   string
	parts []image.QuotaEntityPart
	e     *image.QuotaEntity
}

// addClient puts the client quotas of e (ClientQuotaMetadataManager.update
// and handleUserClientQuotaChange, then ClientQuotaManager.updateQuota).
func (ix *Index) addClient(key string, parts []image.QuotaEntityPart, e *image.QuotaEntity) {
	slot := ix.slot(parts)
	for _, qv := range e.Values() {
		t, ok := TypeOf(qv.Key)
		if !ok {
			ix.ignored = append(ix.ignored, Ignored{Entity: key, Key: qv.Key, Reason: ReasonUnexpectedKey})
			continue
		}
		slot.put(t, qv.Value)
		ix.enabled[t] |= level(parts)
	}
}

// level is the level of an entity's parts (ClientQuotaManager's
// updateQuotaTypes).
func level(parts []image.QuotaEntityPart) Levels {
	_, u := part(parts, EntityUser)
	_, c := part(parts, EntityClientID)
	switch {
	case u && c:
		return LevelUserClientID
	case u:
		return LevelUser
	}
	return LevelClientID
}

// slot is where the quotas of an entity with parts go: the eight shapes of
// ClientQuotaMetadataManager's QuotaEntity (UserEntity, DefaultUserEntity,
// ClientIdEntity, ..., DefaultUserDefaultClientIdEntity).
func (ix *Index) slot(parts []image.QuotaEntityPart) *vals {
	user, hasUser := part(parts, EntityUser)
	client, hasClient := part(parts, EntityClientID)
	switch {
	case hasUser && user == nil && hasClient && client == nil:
		return &ix.defBoth
	case hasUser && user == nil && hasClient:
		return &ix.clientEntry(*client).defUser
	case hasUser && user == nil:
		return &ix.defUser
	case hasUser && hasClient && client == nil:
		return &ix.userEntry(*user).defClient
	case hasUser && hasClient:
		ix.userEntry(*user).withClients = true
		k := pair{Sanitize(*user), *client}
		v := ix.pairs[k]
		if v == nil {
			v = &vals{}
			ix.pairs[k] = v
		}
		return v
	case hasUser:
		return &ix.userEntry(*user).own
	case client == nil:
		return &ix.defClient
	}
	return &ix.clientEntry(*client).own
}

// userEntry is the entry of user (a name from the image, sanitized here),
// made when absent.
func (ix *Index) userEntry(user string) *userEntry {
	s := Sanitize(user)
	ue := ix.users[s]
	if ue == nil {
		ue = &userEntry{}
		ix.users[s] = ue
	}
	return ue
}

func (ix *Index) clientEntry(clientID string) *clientEntry {
	ce := ix.clients[clientID]
	if ce == nil {
		ce = &clientEntry{}
		ix.clients[clientID] = ce
	}
	return ce
}

// javaInt is Scala's Double.toInt and Java's (int) cast: toward zero,
// saturating, NaN to 0.
func javaInt(x float64) int32 {
	switch {
	case math.IsNaN(x):
		return 0
	case x >= math.MaxInt32:
		return math.MaxInt32
	case x <= math.MinInt32:
		return math.MinInt32
	}
	return int32(x)
}
