package quota

import (
	"github.com/kmeta-go/kmeta/image"
)

// Type is a client quota type: which ClientQuotaManager of a broker
// (QuotaFactory.QuotaManagers) a quota key is routed to.
type Type uint8

// The client quota types, each with its quota key (QuotaConfig).
const (
	Produce            Type = iota // producer_byte_rate: QuotaManagers.produce
	Fetch                          // consumer_byte_rate: QuotaManagers.fetch
	Request                        // request_percentage: QuotaManagers.request
	ControllerMutation             // controller_mutation_rate: QuotaManagers.controllerMutation
	numTypes
)

// Types returns every client quota type, in order (a copy: no caller
// changes it for another).
func Types() [4]Type { return [numTypes]Type{Produce, Fetch, Request, ControllerMutation} }

// The quota keys of QuotaConfig: one per client quota type, and the IP
// connection rate.
const (
	KeyProducerByteRate       = "producer_byte_rate"
	KeyConsumerByteRate       = "consumer_byte_rate"
	KeyRequestPercentage      = "request_percentage"
	KeyControllerMutationRate = "controller_mutation_rate"
	KeyConnectionCreationRate = "connection_creation_rate"
)

// The client quota entity types (ClientQuotaEntity.USER, CLIENT_ID, IP).
const (
	EntityUser     = "user"
	EntityClientID = "client-id"
	EntityIP       = "ip"
)

// Key is the quota key of t ("producer_byte_rate" for Produce).
func (t Type) Key() string {
	switch t {
	case Produce:
		return KeyProducerByteRate
	case Fetch:
		return KeyConsumerByteRate
	case Request:
		return KeyRequestPercentage
	case ControllerMutation:
		return KeyControllerMutationRate
	}
	return ""
}

// String is t's QuotaType name ("Produce", "Fetch", "Request",
// "ControllerMutation").
func (t Type) String() string {
	switch t {
	case Produce:
		return "Produce"
	case Fetch:
		return "Fetch"
	case Request:
		return "Request"
	case ControllerMutation:
		return "ControllerMutation"
	}
	return "Type(?)"
}

// TypeOf is the client quota type quota key is routed to, as
// ClientQuotaMetadataManager.handleUserClientQuotaChange routes it; ok is
// false for any other key (Kafka logs it and ignores it).
func TypeOf(key string) (t Type, ok bool) {
	switch key {
	case KeyConsumerByteRate:
		return Fetch, true
	case KeyProducerByteRate:
		return Produce, true
	case KeyRequestPercentage:
		return Request, true
	case KeyControllerMutationRate:
		return ControllerMutation, true
	}
	return 0, false
}

// Levels is the set of entity levels at which one quota type has at least
// one quota: ClientQuotaManager's quotaTypesEnabled bits.
type Levels uint8

// The levels of Levels (ClientQuotaManager.CLIENT_ID_QUOTA_ENABLED,
// USER_QUOTA_ENABLED, USER_CLIENT_ID_QUOTA_ENABLED). An entity of a user
// and a client id (either of them the default) is at LevelUserClientID;
// one of a user alone (or the default user) at LevelUser; one of a client
// id alone (or the default client id) at LevelClientID.
const (
	LevelClientID     Levels = 1
	LevelUser         Levels = 2
	LevelUserClientID Levels = 4
)

// Tags is the metric tags of a client's quota sensor, as
// ClientQuotaManager's DefaultQuotaCallback.quotaMetricTags chooses them:
// clients whose Tags are equal share one quota bucket (one Kafka sensor,
// "<QuotaType>-<user>:<client-id>"). User is the sanitized user name
// (Sanitize) or "", ClientID the client id or "".
type Tags struct {
	User     string
	ClientID string
}

// Limit is a client's quota of one type: the bucket it is counted in and
// the bound of that bucket.
type Limit struct {
	Tags Tags
	// Bound is the quota (bytes per second, request percentage or
	// mutations per second); meaningful when OK.
	Bound float64
	// OK is false when no quota applies: DefaultQuotaCallback.quotaLimit
	// returns null, and ClientQuotaManager's bound is Long.MAX_VALUE.
	OK bool
}

// vals is the quotas of one entity by type; set has bit t when type t's
// key is set.
type vals struct {
	set uint8
	v   [numTypes]float64
}

func (v *vals) has(t Type) bool { return v != nil && v.set&(1<<t) != 0 }

func (v *vals) put(t Type, x float64) { v.set |= 1 << t; v.v[t] = x }

// userEntry is what the index holds for one sanitized user name.
type userEntry struct {
	own       vals // user=U
	defClient vals // user=U, client-id=<default>
	// withClients: the user has user=U, client-id=C entities (in
	// Index.pairs).
	withClients bool
}

// pair is the key of a user=U, client-id=C entity: the sanitized user name
// and the client id. One map of pairs costs a lookup less memory than a
// map per user, so a broker looking up many clients misses the cache less.
type pair struct{ user, clientID string }

// clientEntry is what the index holds for one client id.
type clientEntry struct {
	own     vals // client-id=C
	defUser vals // user=<default>, client-id=C
}

// Index is the client and IP quotas of one image in the form a broker's
// quota managers hold them (ClientQuotaManager's overriddenQuotas and
// quotaTypesEnabled per quota type, ConnectionQuotas' per-IP rates), made
// for lookups that allocate nothing. It is immutable and safe for
// concurrent use. Of returns the index of an image, built once per set of
// quotas.
type Index struct {
	users     map[string]*userEntry // by sanitized user name
	clients   map[string]*clientEntry
	pairs     map[pair]*vals // user=U, client-id=C
	defUser   vals           // user=<default>
	defBoth   vals           // user=<default>, client-id=<default>
	defClient vals           // client-id=<default>
	enabled   [numTypes]Levels
	ip        ipIndex
	ignored   []Ignored
}

// indexKey is the key Of keeps its Index under (ClientQuotas.Derived).
type indexKey struct{}

// Of returns the quota index of img. It is built on first use and kept
// with img's client quotas, so every image that shares them (every image
// whose quotas did not change) shares one index.
func Of(img *image.Image) *Index {
	return img.ClientQuotas().Derived(indexKey{}, func(q *image.ClientQuotas) any { return NewIndex(q) }).(*Index)
}

// Enabled is the levels at which quota type t has quotas
// (ClientQuotaManager.quotaTypesEnabled).
func (ix *Index) Enabled(t Type) Levels {
	if t >= numTypes {
		return 0
	}
	return ix.enabled[t]
}

// Client returns the quota of type t for a client whose principal's
// sanitized name is user (Sanitize(principal.getName()), the
// Session.sanitizedUser a broker computes once per connection) and whose
// request header carries clientID. It is ClientQuotaManager's default
// callback: the metric tags first (quotaMetricTags, from the levels that
// hold quotas of type t), then the limit of those tags (quotaLimit), the
// first entity holding a quota of type t winning in this order:
//
//	tags (user, client-id), both not empty:
//	  user=U, client-id=C;  user=U, client-id=<default>;
//	  user=<default>, client-id=C;  user=<default>, client-id=<default>
//	tags (user, ""), user not empty:
//	  user=U;  user=<default>
//	tags ("", client-id), client id not empty:
//	  client-id=C;  client-id=<default>
//	tags ("", ""): no quota
//
// With quotas at one level only the tags are that level's (user and client
// id for LevelUserClientID, user for LevelUser, client id otherwise), so a
// client whose tag is empty there has no quota: with only
// client-id=<default> set, a client with an empty client id has none.
// Client allocates nothing.
func (ix *Index) Client(t Type, user, clientID string) Limit {
	if t >= numTypes {
		return Limit{}
	}
	ue := ix.users[user]
	ce := ix.clients[clientID]
	var uc *vals
	if ue != nil && ue.withClients {
		uc = ix.pairs[pair{user, clientID}]
	}
	tags := ix.tags(t, user, clientID, ue, ce, uc)
	v, ok := ix.limit(t, tags, ue, ce, uc)
	return Limit{Tags: tags, Bound: v, OK: ok}
}

// tags is DefaultQuotaCallback.quotaMetricTags(sanitizedUser, clientId):
// ue, ce and uc are the entries of user=U, client-id=C and user=U,
// client-id=C (nil when absent).
func (ix *Index) tags(t Type, user, clientID string, ue *userEntry, ce *clientEntry, uc *vals) Tags {
	switch ix.enabled[t] {
	case 0, LevelClientID:
		return Tags{ClientID: clientID}
	case LevelUser:
		return Tags{User: user}
	case LevelUserClientID:
		return Tags{User: user, ClientID: clientID}
	}
	both, userOnly := Tags{User: user, ClientID: clientID}, Tags{User: user}
	switch {
	case uc.has(t):
		return both
	case ue != nil && ue.defClient.has(t):
		return both
	case ue != nil && ue.own.has(t):
		return userOnly
	case ce != nil && ce.defUser.has(t):
		return both
	case ix.defBoth.has(t):
		return both
	case ix.defUser.has(t):
		return userOnly
	}
	return Tags{ClientID: clientID}
}

// limit is DefaultQuotaCallback.quotaLimit(tags): ue, ce and uc are the
// entries of the client's user, client id and both. A tag that is not empty
// is the client's own name, so they are the tags' entries where the limit
// reads them.
func (ix *Index) limit(t Type, tags Tags, ue *userEntry, ce *clientEntry, uc *vals) (float64, bool) {
	switch {
	case tags.User != "" && tags.ClientID != "":
		if uc.has(t) {
			return uc.v[t], true
		}
		if ue != nil && ue.defClient.has(t) {
			return ue.defClient.v[t], true
		}
		if ce != nil && ce.defUser.has(t) {
			return ce.defUser.v[t], true
		}
		return ix.defBoth.v[t], ix.defBoth.has(t)
	case tags.User != "":
		if ue != nil && ue.own.has(t) {
			return ue.own.v[t], true
		}
		return ix.defUser.v[t], ix.defUser.has(t)
	case tags.ClientID != "":
		if ce != nil && ce.own.has(t) {
			return ce.own.v[t], true
		}
		return ix.defClient.v[t], ix.defClient.has(t)
	}
	return 0, false
}
