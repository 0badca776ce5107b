package delta

import (
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// The replay of configs, client quotas, ACLs, SCRAM credentials and
// delegation tokens (Kafka's ConfigurationsDelta, ClientQuotasDelta,
// AclsDelta, ScramDelta, DelegationTokenDelta).

func (d *Delta) configDeltaFor(res image.ConfigResource) *configDelta {
	if d.configs == nil {
		d.configs = map[image.ConfigResource]*configDelta{}
	}
	cd, ok := d.configs[res]
	if !ok {
		cd = &configDelta{changes: map[string]*string{}}
		d.configs[res] = cd
	}
	return cd
}

// clearConfigs deletes every key of res (ConfigurationDelta.deleteAll).
func (d *Delta) clearConfigs(res image.ConfigResource) {
	_, pending := d.configs[res]
	if !pending && len(d.base.Configs().Entries(res)) == 0 {
		return
	}
	cd := d.configDeltaFor(res)
	cd.clearBase = true
	clear(cd.changes)
}

// replayConfig follows ConfigurationsDelta.replay(ConfigRecord): the
// resource type goes through ConfigResource.Type.forId; a null value
// deletes the key.
func (d *Delta) replayConfig(r *record.ConfigRecord) {
	res := image.ConfigResource{Type: image.ConfigTypeForID(r.ResourceType), Name: r.ResourceName}
	var v *string
	if r.Value != nil {
		s := *r.Value
		v = &s
	}
	d.configDeltaFor(res).changes[r.Name] = v
}

// replayClientQuota follows ClientQuotasDelta.replay(ClientQuotaRecord):
// Remove deletes the key, otherwise the key is set. An entity naming the
// same entity type twice is rejected (ClientQuotaEntity is a map).
func (d *Delta) replayClientQuota(r *record.ClientQuotaRecord) error {
	parts := make([]image.QuotaEntityPart, len(r.Entity))
	for i, e := range r.Entity {
		parts[i] = image.QuotaEntityPart{Type: e.EntityType, Name: e.EntityName}
		for j := 0; j < i; j++ {
			if parts[j].Type == e.EntityType {
				return reject(r, "entity type %q appears twice", e.EntityType)
			}
		}
	}
	key := image.QuotaEntityKey(parts)
	if d.quotas == nil {
		d.quotas = map[string]*quotaDelta{}
	}
	qd, ok := d.quotas[key]
	if !ok {
		qd = &quotaDelta{parts: image.NewQuotaEntity(parts, nil).Parts(), changes: map[string]*float64{}}
		d.quotas[key] = qd
	}
	if r.Remove {
		qd.changes[r.Key] = nil
	} else {
		v := r.Value
		qd.changes[r.Key] = &v
	}
	return nil
}

// replayRemoveACL follows AclsDelta.replay(RemoveAccessControlEntryRecord):
// an ACL of the base image is marked removed, an ACL added in this delta is
// dropped, anything else is an error.
func (d *Delta) replayRemoveACL(r *record.RemoveAccessControlEntryRecord) error {
	if _, ok := d.base.ACLs().Get(r.ID); ok {
		if d.acls == nil {
			d.acls = map[record.UUID]*image.ACL{}
		}
		d.acls[r.ID] = nil
		d.noteACL(r.ID)
		return nil
	}
	if a, ok := d.acls[r.ID]; ok && a != nil {
		delete(d.acls, r.ID)
		d.dropACL(r.ID)
		return nil
	}
	return reject(r, "no ACL with id %s found to remove", r.ID)
}

// replayACL follows AclsDelta.replay(AccessControlEntryRecord): the ACL is
// put under its id.
func (d *Delta) replayACL(r *record.AccessControlEntryRecord) {
	if d.acls == nil {
		d.acls = map[record.UUID]*image.ACL{}
	}
	a := image.ACLFromRecord(r)
	d.acls[a.ID] = &a
	d.noteACL(a.ID)
}

// putScram records SCRAM credential k (nil: removed), ScramDelta.replay.
func (d *Delta) putScram(k image.ScramKey, c *image.ScramCredential) {
	if d.scram == nil {
		d.scram = map[image.ScramKey]*image.ScramCredential{}
	}
	d.scram[k] = c
}

// putToken records delegation token id (nil: removed),
// DelegationTokenDelta.replay.
func (d *Delta) putToken(id string, t *image.Token) {
	if d.tokens == nil {
		d.tokens = map[string]*image.Token{}
	}
	d.tokens[id] = t
}
