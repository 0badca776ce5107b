package image

import (
	"cmp"
	"iter"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/benbjohnson/immutable"

	"github.com/kmeta-go/kmeta/record"
)

// FeatureLevel is one finalized feature.
type FeatureLevel struct {
	Name  string
	Level int16
}

// Features is the finalized features, Kafka's FeaturesImage: the
// metadata.version (absent in an image that never saw one, as in Kafka 4.x)
// and the other finalized features, sorted by name.
type Features struct {
	mv        MetadataVersion // 0 = absent
	finalized []FeatureLevel
}

var emptyFeatures = &Features{}

// newFeatures returns features with mv (0 = absent) and the finalized
// levels (levels of 0 are dropped). levels is copied.
func newFeatures(mv MetadataVersion, levels []FeatureLevel) *Features {
	f := &Features{mv: mv}
	for _, l := range levels {
		if l.Level != 0 && l.Name != MetadataVersionFeature {
			f.finalized = append(f.finalized, l)
		}
	}
	slices.SortFunc(f.finalized, func(a, b FeatureLevel) int { return strings.Compare(a.Name, b.Name) })
	return f
}

// MetadataVersion returns the metadata.version and whether the image has one.
func (f *Features) MetadataVersion() (MetadataVersion, bool) { return f.mv, f.mv != 0 }

// EffectiveMetadataVersion is the metadata.version, or 3.0-IV1 when the image
// has none: how Kafka 3.x treated logs written before FeatureLevelRecord
// existed, and how kmeta reads and writes them.
func (f *Features) EffectiveMetadataVersion() MetadataVersion {
	if f.mv == 0 {
		return MV3_0_IV1
	}
	return f.mv
}

// Level returns the finalized level of feature name (0 when not finalized).
// For "metadata.version" it returns the metadata.version level.
func (f *Features) Level(name string) int16 {
	if name == MetadataVersionFeature {
		return int16(f.mv)
	}
	i, ok := slices.BinarySearchFunc(f.finalized, name, func(l FeatureLevel, n string) int { return strings.Compare(l.Name, n) })
	if !ok {
		return 0
	}
	return f.finalized[i].Level
}

// Finalized returns a copy of the finalized features other than
// metadata.version, sorted by name.
func (f *Features) Finalized() []FeatureLevel { return slices.Clone(f.finalized) }

// ELREnabled reports eligible.leader.replicas.version >= 1
// (FeaturesImage.isElrEnabled).
func (f *Features) ELREnabled() bool { return f.Level(ELRFeature) >= 1 }

// Feature names with a meaning to the image.
const (
	MetadataVersionFeature = "metadata.version"
	KRaftVersionFeature    = "kraft.version"
	ELRFeature             = "eligible.leader.replicas.version"
)

// ConfigResource names a configurable resource (ConfigResource): a type
// (TOPIC 2, BROKER 4, BROKER_LOGGER 8, CLIENT_METRICS 16, GROUP 32, UNKNOWN 0)
// and a name ("" for the cluster-wide broker default).
type ConfigResource struct {
	Type ConfigType
	Name string
}

// ConfigType is the type of a config resource (Kafka's ConfigResource.Type,
// the ResourceType id of a ConfigRecord).
type ConfigType int8

// Config resource types (ConfigResource.Type).
const (
	ConfigUnknown       ConfigType = 0
	ConfigTopic         ConfigType = 2
	ConfigBroker        ConfigType = 4
	ConfigBrokerLogger  ConfigType = 8
	ConfigClientMetrics ConfigType = 16
	ConfigGroup         ConfigType = 32
)

// ConfigTypeForID is the config resource type of a record's resource type
// id (ConfigResource.Type.forId: unknown ids become UNKNOWN).
func ConfigTypeForID(id int8) ConfigType {
	switch t := ConfigType(id); t {
	case ConfigTopic, ConfigBroker, ConfigBrokerLogger, ConfigClientMetrics, ConfigGroup:
		return t
	}
	return ConfigUnknown
}

type configResourceComparer struct{}

func (configResourceComparer) Compare(a, b ConfigResource) int {
	if c := cmp.Compare(a.Type, b.Type); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// ConfigEntry is one key and value of a resource's configuration.
type ConfigEntry struct {
	Name  string
	Value string
}

// Configs is the dynamic configuration of every resource, Kafka's
// ConfigurationsImage. Each resource's entries are sorted by name.
type Configs struct {
	m *immutable.SortedMap[ConfigResource, []ConfigEntry]
}

var emptyConfigs = &Configs{m: immutable.NewSortedMap[ConfigResource, []ConfigEntry](configResourceComparer{})}

// Len is the number of resources with at least one entry.
func (c *Configs) Len() int { return c.m.Len() }

// Get returns the value of key name for resource res.
func (c *Configs) Get(res ConfigResource, name string) (string, bool) {
	es, ok := c.m.Get(res)
	if !ok {
		return "", false
	}
	i, ok := slices.BinarySearchFunc(es, name, func(e ConfigEntry, n string) int { return strings.Compare(e.Name, n) })
	if !ok {
		return "", false
	}
	return es[i].Value, true
}

// Entries returns a copy of res's entries sorted by name.
func (c *Configs) Entries(res ConfigResource) []ConfigEntry {
	es, _ := c.m.Get(res)
	return slices.Clone(es)
}

// Resources iterates over the resources in (type, name) order with a
// read-only view of their entries.
func (c *Configs) Resources() iter.Seq2[ConfigResource, []ConfigEntry] {
	return func(yield func(ConfigResource, []ConfigEntry) bool) {
		for k, v := range c.resources() {
			if !yield(k, slices.Clone(v)) {
				return
			}
		}
	}
}

// resources is Resources yielding the image's own entry lists, for the
// package's own readers.
func (c *Configs) resources() iter.Seq2[ConfigResource, []ConfigEntry] {
	return func(yield func(ConfigResource, []ConfigEntry) bool) {
		it := c.m.Iterator()
		for !it.Done() {
			k, v, _ := it.Next()
			if !yield(k, v[:len(v):len(v)]) {
				return
			}
		}
	}
}

// updateConfigs returns c with the entries of each resource in changes
// replaced; an empty entry list removes the resource (Kafka drops resources
// whose configuration becomes empty). Entry lists must be sorted by name and
// are owned by the result.
func (c *Configs) updateConfigs(changes map[ConfigResource][]ConfigEntry) *Configs {
	if len(changes) == 0 {
		return c
	}
	m := c.m
	for res, es := range changes {
		if len(es) == 0 {
			m = m.Delete(res)
		} else {
			m = m.Set(res, es)
		}
	}
	return &Configs{m: m}
}

// QuotaEntityPart is one component of a client quota entity: a type
// ("user", "client-id", "ip") and a name, nil for the default entity.
type QuotaEntityPart struct {
	Type string
	Name *string
}

// QuotaValue is one quota key and value.
type QuotaValue struct {
	Key   string
	Value float64
}

// QuotaEntity is one client quota entity and its quotas (ClientQuotaImage).
type QuotaEntity struct {
	parts  []QuotaEntityPart // sorted by type
	values []QuotaValue      // sorted by key
}

// Parts returns a copy of the entity's components, sorted by type.
func (q *QuotaEntity) Parts() []QuotaEntityPart {
	out := make([]QuotaEntityPart, len(q.parts))
	for i, p := range q.parts {
		out[i].Type = p.Type
		if p.Name != nil {
			s := *p.Name
			out[i].Name = &s
		}
	}
	return out
}

// Values returns a copy of the quotas sorted by key.
func (q *QuotaEntity) Values() []QuotaValue { return slices.Clone(q.values) }

// Get returns the quota key.
func (q *QuotaEntity) Get(key string) (float64, bool) {
	i, ok := slices.BinarySearchFunc(q.values, key, func(v QuotaValue, k string) int { return strings.Compare(v.Key, k) })
	if !ok {
		return 0, false
	}
	return q.values[i].Value, true
}

// QuotaEntityKey is the canonical key of an entity: its parts sorted by type,
// each "type=name" or "type" alone for the default, joined by NUL bytes.
func QuotaEntityKey(parts []QuotaEntityPart) string {
	ps := slices.Clone(parts)
	slices.SortFunc(ps, func(a, b QuotaEntityPart) int { return strings.Compare(a.Type, b.Type) })
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(p.Type)
		if p.Name != nil {
			b.WriteByte('=')
			b.WriteString(*p.Name)
		}
	}
	return b.String()
}

// NewQuotaEntity builds an entity with values (sorted by key; owned by the
// result). parts is copied.
func NewQuotaEntity(parts []QuotaEntityPart, values []QuotaValue) *QuotaEntity {
	q := &QuotaEntity{values: values}
	q.parts = (&QuotaEntity{parts: parts}).Parts()
	slices.SortFunc(q.parts, func(a, b QuotaEntityPart) int { return strings.Compare(a.Type, b.Type) })
	return q
}

// ClientQuotas is every client quota entity, Kafka's ClientQuotasImage.
type ClientQuotas struct {
	m       *immutable.SortedMap[string, *QuotaEntity]
	derived atomic.Pointer[derivedValue] // what Derived computed, newest first
}

// derivedValue is one value Derived computed from a ClientQuotas, under
// its key.
type derivedValue struct {
	key, value any
	next       *derivedValue
}

// Derived returns the value build computes from c under key (a comparable
// value private to the caller's package, e.g. an unexported empty struct):
// the first call with key runs build and keeps its result with c; later
// calls with key return that result without running build. A ClientQuotas
// never changes, and images whose quotas did not change share it, so the
// value is computed once per set of quotas, whichever image asks. Two
// goroutines may both run build for the same key; one result is kept and
// returned to both. Package image/quota keeps its lookup index this way.
func (c *ClientQuotas) Derived(key any, build func(*ClientQuotas) any) any {
	var v any
	built := false
	for {
		head := c.derived.Load()
		for d := head; d != nil; d = d.next {
			if d.key == key {
				return d.value
			}
		}
		if !built {
			v, built = build(c), true
		}
		if c.derived.CompareAndSwap(head, &derivedValue{key: key, value: v, next: head}) {
			return v
		}
	}
}

var emptyQuotas = &ClientQuotas{m: immutable.NewSortedMap[string, *QuotaEntity](stringComparer{})}

// Len is the number of entities with at least one quota.
func (c *ClientQuotas) Len() int { return c.m.Len() }

// Entity returns the entity with canonical key (QuotaEntityKey).
func (c *ClientQuotas) Entity(key string) (*QuotaEntity, bool) { return c.m.Get(key) }

// Entities iterates over the entities in key order.
func (c *ClientQuotas) Entities() iter.Seq2[string, *QuotaEntity] {
	return func(yield func(string, *QuotaEntity) bool) {
		it := c.m.Iterator()
		for !it.Done() {
			k, v, _ := it.Next()
			if !yield(k, v) {
				return
			}
		}
	}
}

// updateQuotas returns c with the entities in changes put; nil or empty
// entities are removed.
func (c *ClientQuotas) updateQuotas(changes map[string]*QuotaEntity) *ClientQuotas {
	if len(changes) == 0 {
		return c
	}
	m := c.m
	for k, e := range changes {
		if e == nil || len(e.values) == 0 {
			m = m.Delete(k)
		} else {
			m = m.Set(k, e)
		}
	}
	return &ClientQuotas{m: m}
}

// ACL is one access control entry (StandardAcl) and its id.
type ACL struct {
	ID             record.UUID
	ResourceType   int8
	ResourceName   string
	PatternType    int8
	Principal      string
	Host           string
	Operation      int8
	PermissionType int8
}

// ACLFromRecord converts an AccessControlEntryRecord.
func ACLFromRecord(r *record.AccessControlEntryRecord) ACL {
	return ACL{ID: r.ID, ResourceType: r.ResourceType, ResourceName: r.ResourceName, PatternType: r.PatternType,
		Principal: r.Principal, Host: r.Host, Operation: r.Operation, PermissionType: r.PermissionType}
}

// Record returns the AccessControlEntryRecord that writes a back.
func (a ACL) Record() *record.AccessControlEntryRecord {
	r := record.NewAccessControlEntryRecord()
	r.ID, r.ResourceType, r.ResourceName, r.PatternType = a.ID, a.ResourceType, a.ResourceName, a.PatternType
	r.Principal, r.Host, r.Operation, r.PermissionType = a.Principal, a.Host, a.Operation, a.PermissionType
	return r
}

// ACLs is every ACL by id, Kafka's AclsImage.
type ACLs struct {
	m *immutable.SortedMap[record.UUID, ACL]
}

var emptyACLs = &ACLs{m: immutable.NewSortedMap[record.UUID, ACL](uuidComparer{})}

// Len is the number of ACLs.
func (a *ACLs) Len() int { return a.m.Len() }

// Get returns the ACL with id.
func (a *ACLs) Get(id record.UUID) (ACL, bool) { return a.m.Get(id) }

// All iterates over the ACLs in id byte order.
func (a *ACLs) All() iter.Seq[ACL] {
	return func(yield func(ACL) bool) {
		it := a.m.Iterator()
		for !it.Done() {
			_, v, _ := it.Next()
			if !yield(v) {
				return
			}
		}
	}
}

// updateACLs returns a with the ACLs in put added and those in removed
// deleted.
func (a *ACLs) updateACLs(put []ACL, removed []record.UUID) *ACLs {
	if len(put) == 0 && len(removed) == 0 {
		return a
	}
	m := a.m
	for _, id := range removed {
		m = m.Delete(id)
	}
	for _, v := range put {
		m = m.Set(v.ID, v)
	}
	return &ACLs{m: m}
}

// SCRAM mechanisms (ScramMechanism).
const (
	ScramUnknown int8 = 0
	ScramSHA256  int8 = 1
	ScramSHA512  int8 = 2
)

// ScramMechanismName is the mechanism's Kafka name.
func ScramMechanismName(m int8) string {
	switch m {
	case ScramSHA256:
		return "SCRAM-SHA-256"
	case ScramSHA512:
		return "SCRAM-SHA-512"
	}
	return "UNKNOWN"
}

// ScramKey names one credential: a mechanism and a user.
type ScramKey struct {
	Mechanism int8
	User      string
}

type scramKeyComparer struct{}

func (scramKeyComparer) Compare(a, b ScramKey) int {
	if c := cmp.Compare(a.Mechanism, b.Mechanism); c != 0 {
		return c
	}
	return strings.Compare(a.User, b.User)
}

// ScramCredential is a user's SCRAM credential (ScramCredentialData).
type ScramCredential struct {
	Salt       []byte
	StoredKey  []byte
	ServerKey  []byte
	Iterations int32
}

func (c ScramCredential) clone() ScramCredential {
	return ScramCredential{Salt: slices.Clone(c.Salt), StoredKey: slices.Clone(c.StoredKey), ServerKey: slices.Clone(c.ServerKey), Iterations: c.Iterations}
}

// ScramFromRecord converts a UserScramCredentialRecord (copying its bytes).
func ScramFromRecord(r *record.UserScramCredentialRecord) (ScramKey, ScramCredential) {
	return ScramKey{Mechanism: r.Mechanism, User: r.Name},
		ScramCredential{Salt: r.Salt, StoredKey: r.StoredKey, ServerKey: r.ServerKey, Iterations: r.Iterations}.clone()
}

// Scram is every SCRAM credential, Kafka's ScramImage (mechanism, then user).
type Scram struct {
	m *immutable.SortedMap[ScramKey, ScramCredential]
}

var emptyScram = &Scram{m: immutable.NewSortedMap[ScramKey, ScramCredential](scramKeyComparer{})}

// Len is the number of credentials.
func (s *Scram) Len() int { return s.m.Len() }

// Get returns a copy of the credential of key.
func (s *Scram) Get(k ScramKey) (ScramCredential, bool) {
	c, ok := s.m.Get(k)
	if !ok {
		return c, false
	}
	return c.clone(), true
}

// Keys iterates over the credential keys in (mechanism, user) order.
func (s *Scram) Keys() iter.Seq[ScramKey] {
	return func(yield func(ScramKey) bool) {
		it := s.m.Iterator()
		for !it.Done() {
			k, _, _ := it.Next()
			if !yield(k) {
				return
			}
		}
	}
}

// updateScram returns s with credentials put (non-nil) or removed (nil). The
// credentials are owned by the result.
func (s *Scram) updateScram(changes map[ScramKey]*ScramCredential) *Scram {
	if len(changes) == 0 {
		return s
	}
	m := s.m
	for k, c := range changes {
		if c == nil {
			m = m.Delete(k)
		} else {
			m = m.Set(k, *c)
		}
	}
	return &Scram{m: m}
}

// Token is a delegation token (TokenInformation).
type Token struct {
	TokenID             string
	Owner               string
	Requester           string
	Renewers            []string
	IssueTimestamp      int64
	MaxTimestamp        int64
	ExpirationTimestamp int64
}

func (t Token) clone() Token { t.Renewers = slices.Clone(t.Renewers); return t }

// TokenFromRecord converts a DelegationTokenRecord.
func TokenFromRecord(r *record.DelegationTokenRecord) Token {
	return Token{TokenID: r.TokenID, Owner: r.Owner, Requester: r.Requester, Renewers: slices.Clone(r.Renewers),
		IssueTimestamp: r.IssueTimestamp, MaxTimestamp: r.MaxTimestamp, ExpirationTimestamp: r.ExpirationTimestamp}
}

// Record returns the DelegationTokenRecord that writes t back.
func (t Token) Record() *record.DelegationTokenRecord {
	r := record.NewDelegationTokenRecord()
	r.TokenID, r.Owner, r.Requester = t.TokenID, t.Owner, t.Requester
	r.Renewers = slices.Clone(t.Renewers)
	if r.Renewers == nil {
		r.Renewers = []string{}
	}
	r.IssueTimestamp, r.MaxTimestamp, r.ExpirationTimestamp = t.IssueTimestamp, t.MaxTimestamp, t.ExpirationTimestamp
	return r
}

// Tokens is every delegation token by id, Kafka's DelegationTokenImage.
type Tokens struct {
	m *immutable.SortedMap[string, Token]
}

var emptyTokens = &Tokens{m: immutable.NewSortedMap[string, Token](stringComparer{})}

// Len is the number of tokens.
func (t *Tokens) Len() int { return t.m.Len() }

// Get returns a copy of token id.
func (t *Tokens) Get(id string) (Token, bool) {
	v, ok := t.m.Get(id)
	return v.clone(), ok
}

// All iterates over copies of the tokens in id order.
func (t *Tokens) All() iter.Seq[Token] {
	return func(yield func(Token) bool) {
		it := t.m.Iterator()
		for !it.Done() {
			_, v, _ := it.Next()
			if !yield(v.clone()) {
				return
			}
		}
	}
}

// updateTokens returns t with tokens put (non-nil) or removed (nil).
func (t *Tokens) updateTokens(changes map[string]*Token) *Tokens {
	if len(changes) == 0 {
		return t
	}
	m := t.m
	for id, v := range changes {
		if v == nil {
			m = m.Delete(id)
		} else {
			m = m.Set(id, v.clone())
		}
	}
	return &Tokens{m: m}
}
