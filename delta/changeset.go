package delta

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// The change sets of the parts of the image other than topics and brokers:
// what each of a broker's dynamic publishers acts on (Kafka's
// DynamicConfigPublisher, DynamicClientQuotaPublisher, ScramPublisher,
// DelegationTokenPublisher, AclPublisher, FeaturesPublisher). Each is
// computed from what the delta replayed, so its cost is proportional to the
// records replayed, never to the image; each reports net changes (a key set
// to the value the base image already holds is no change), so that together
// they list exactly what image.Diff of the base and the applied image lists.

// ConfigChange is one config resource whose configuration changed
// (ConfigurationsDelta.changes, DynamicConfigPublisher's per-resource loop).
type ConfigChange struct {
	Resource image.ConfigResource
	// Set holds the keys added or given a new value; Removed the keys
	// deleted. Both are sorted.
	Set     []string
	Removed []string
}

// Configs reports the config resources whose keys changed, sorted by
// resource type then name.
func (d *Delta) Configs() []ConfigChange {
	if len(d.configs) == 0 {
		return nil
	}
	var out []ConfigChange
	base := d.base.Configs()
	for res, cd := range d.configs {
		var c ConfigChange
		for k, v := range cd.changes {
			old, had := base.Get(res, k)
			switch {
			case v == nil && had:
				c.Removed = append(c.Removed, k)
			case v != nil && (!had || old != *v):
				c.Set = append(c.Set, k)
			}
		}
		if cd.clearBase {
			for _, e := range base.Entries(res) {
				if _, ok := cd.changes[e.Name]; !ok {
					c.Removed = append(c.Removed, e.Name)
				}
			}
		}
		if len(c.Set)+len(c.Removed) == 0 {
			continue
		}
		c.Resource = res
		slices.Sort(c.Set)
		slices.Sort(c.Removed)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b ConfigChange) int {
		return cmp.Or(cmp.Compare(a.Resource.Type, b.Resource.Type), strings.Compare(a.Resource.Name, b.Resource.Name))
	})
	return out
}

// QuotaChange is one client quota entity whose quotas changed
// (ClientQuotasDelta.changes, ClientQuotaMetadataManager.update).
type QuotaChange struct {
	// Entity is the entity's parts sorted by entity type; a nil Name is
	// the type's default entity.
	Entity []image.QuotaEntityPart
	// Set holds the quota keys added or given a new value; Removed the
	// keys deleted. Both are sorted.
	Set     []string
	Removed []string
}

// ClientQuotas reports the client quota entities whose quotas changed,
// sorted by image.QuotaEntityKey.
func (d *Delta) ClientQuotas() []QuotaChange {
	if len(d.quotas) == 0 {
		return nil
	}
	type keyed struct {
		key string
		c   QuotaChange
	}
	var out []keyed
	base := d.base.ClientQuotas()
	for key, qd := range d.quotas {
		be, _ := base.Entity(key)
		get := func(k string) (float64, bool) {
			if be == nil {
				return 0, false
			}
			return be.Get(k)
		}
		var c QuotaChange
		for k, v := range qd.changes {
			old, had := get(k)
			switch {
			case v == nil && had:
				c.Removed = append(c.Removed, k)
			case v != nil && (!had || old != *v):
				c.Set = append(c.Set, k)
			}
		}
		if qd.clearBase && be != nil {
			for _, v := range be.Values() {
				if _, ok := qd.changes[v.Key]; !ok {
					c.Removed = append(c.Removed, v.Key)
				}
			}
		}
		if len(c.Set)+len(c.Removed) == 0 {
			continue
		}
		c.Entity = slices.Clone(qd.parts)
		slices.Sort(c.Set)
		slices.Sort(c.Removed)
		out = append(out, keyed{key, c})
	}
	slices.SortFunc(out, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	res := make([]QuotaChange, len(out))
	for i, k := range out {
		res[i] = k.c
	}
	return res
}

// ScramChange is one SCRAM credential added, replaced or removed
// (ScramDelta.changes, ScramPublisher).
type ScramChange struct {
	image.ScramKey
	Removed bool
}

// Scram reports the SCRAM credentials that changed, sorted by mechanism
// then user.
func (d *Delta) Scram() []ScramChange {
	if len(d.scram) == 0 {
		return nil
	}
	var out []ScramChange
	base := d.base.Scram()
	for k, v := range d.scram {
		old, had := base.Get(k)
		switch {
		case v == nil && had:
			out = append(out, ScramChange{ScramKey: k, Removed: true})
		case v != nil && (!had || !scramEqual(old, *v)):
			out = append(out, ScramChange{ScramKey: k})
		}
	}
	slices.SortFunc(out, func(a, b ScramChange) int {
		return cmp.Or(cmp.Compare(a.Mechanism, b.Mechanism), strings.Compare(a.User, b.User))
	})
	return out
}

func scramEqual(a, b image.ScramCredential) bool {
	return bytes.Equal(a.Salt, b.Salt) && bytes.Equal(a.StoredKey, b.StoredKey) &&
		bytes.Equal(a.ServerKey, b.ServerKey) && a.Iterations == b.Iterations
}

// TokenChange is one delegation token added, replaced or removed
// (DelegationTokenDelta.changes, DelegationTokenPublisher).
type TokenChange struct {
	TokenID string
	Removed bool
}

// Tokens reports the delegation tokens that changed, sorted by token id.
func (d *Delta) Tokens() []TokenChange {
	if len(d.tokens) == 0 {
		return nil
	}
	var out []TokenChange
	base := d.base.Tokens()
	for id, t := range d.tokens {
		old, had := base.Get(id)
		switch {
		case t == nil && had:
			out = append(out, TokenChange{TokenID: id, Removed: true})
		case t != nil && (!had || !tokenEqual(old, *t)):
			out = append(out, TokenChange{TokenID: id})
		}
	}
	slices.SortFunc(out, func(a, b TokenChange) int { return strings.Compare(a.TokenID, b.TokenID) })
	return out
}

func tokenEqual(a, b image.Token) bool {
	return a.TokenID == b.TokenID && a.Owner == b.Owner && a.Requester == b.Requester &&
		slices.Equal(a.Renewers, b.Renewers) && a.IssueTimestamp == b.IssueTimestamp &&
		a.MaxTimestamp == b.MaxTimestamp && a.ExpirationTimestamp == b.ExpirationTimestamp
}

// ACLChange is one ACL added or removed. ACL is the added ACL (zero when
// Removed).
type ACLChange struct {
	ID      record.UUID
	ACL     image.ACL
	Removed bool
}

// ACLs reports the ACLs added and removed, in replay order: the order of
// AclsDelta.changes, a LinkedHashMap, which AclPublisher applies one by one
// so that a DENY written before an ALLOW is never served after it. An id
// replayed twice keeps the position of its first replay; an ACL added and
// removed within the delta is not reported, and one removed then added
// again goes to the end. An ACL replayed with the same content as the base
// image's is no change. Removals made by a snapshot's FinishSnapshot come
// last, by id.
func (d *Delta) ACLs() []ACLChange {
	if len(d.acls) == 0 {
		return nil
	}
	ids := make([]record.UUID, 0, len(d.acls))
	for id := range d.acls {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b record.UUID) int {
		sa, oka := d.aclSeq[a]
		sb, okb := d.aclSeq[b]
		switch {
		case oka && okb:
			return cmp.Compare(sa, sb)
		case oka != okb:
			if oka {
				return -1
			}
			return 1
		}
		return bytes.Compare(a[:], b[:])
	})
	base := d.base.ACLs()
	out := make([]ACLChange, 0, len(ids))
	for _, id := range ids {
		a := d.acls[id]
		old, had := base.Get(id)
		switch {
		case a == nil && had:
			out = append(out, ACLChange{ID: id, Removed: true})
		case a != nil && (!had || old != *a):
			out = append(out, ACLChange{ID: id, ACL: *a})
		}
	}
	return out
}

// noteACL records the replay position of id (AclsDelta.changes is a
// LinkedHashMap: a key already present keeps its position).
func (d *Delta) noteACL(id record.UUID) {
	if _, ok := d.aclSeq[id]; ok {
		return
	}
	if d.aclSeq == nil {
		d.aclSeq = map[record.UUID]int{}
	}
	d.aclSeq[id] = d.aclNext
	d.aclNext++
}

// dropACL forgets the replay position of id (an ACL added and removed in
// the delta leaves AclsDelta.changes).
func (d *Delta) dropACL(id record.UUID) {
	delete(d.aclSeq, id)
}

// FeatureChange is one finalized feature whose level changed
// (FeaturesDelta.changes, FeaturesPublisher); metadata.version included.
type FeatureChange struct {
	Name string
	// Level is the new level; Removed says the feature is no longer
	// finalized (Level 0).
	Level   int16
	Removed bool
}

// Features reports the finalized features whose level changed, sorted by
// name.
func (d *Delta) Features() []FeatureChange {
	if d.mv == 0 && len(d.features) == 0 {
		return nil
	}
	var out []FeatureChange
	base := d.base.Features()
	if d.mv != 0 {
		if old, ok := base.MetadataVersion(); !ok || old != d.mv {
			out = append(out, FeatureChange{Name: image.MetadataVersionFeature, Level: int16(d.mv)})
		}
	}
	for name, l := range d.features {
		old := base.Level(name)
		switch {
		case l == 0 && old != 0:
			out = append(out, FeatureChange{Name: name, Removed: true})
		case l != 0 && l != old:
			out = append(out, FeatureChange{Name: name, Level: l})
		}
	}
	slices.SortFunc(out, func(a, b FeatureChange) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// ControllerChanges says which controller registrations change
// (ClusterDelta.changedControllers). Each list is sorted by id.
type ControllerChanges struct {
	// Registered: controllers newly registered or whose registration
	// differs; Unregistered: controllers of the base image that are gone.
	Registered   []int32
	Unregistered []int32
}

// Controllers reports the controller changes of the delta.
func (d *Delta) Controllers() ControllerChanges {
	if len(d.controllers) == 0 {
		return ControllerChanges{}
	}
	var c ControllerChanges
	for id, nc := range d.controllers {
		oc, had := d.base.Cluster().Controller(id)
		switch {
		case nc == nil && had:
			c.Unregistered = append(c.Unregistered, id)
		case nc != nil && (!had || !controllerEqual(oc, nc)):
			c.Registered = append(c.Registered, id)
		}
	}
	slices.Sort(c.Registered)
	slices.Sort(c.Unregistered)
	return c
}

func controllerEqual(a, b *image.Controller) bool {
	return a.IncarnationID() == b.IncarnationID() && a.ZKMigrationReady() == b.ZKMigrationReady() &&
		slices.Equal(a.Listeners(), b.Listeners()) && slices.Equal(a.SupportedFeatures(), b.SupportedFeatures())
}
