package history

import (
	"fmt"
	"strings"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/record"
)

func (b *Builder) criteria() redact.Criteria {
	if b.cfg.Unredacted {
		return redact.Disabled
	}
	return redact.Normal(nil)
}

// redacted returns r, or a copy of it with its sensitive values replaced
// as metadump's dump hides them (Kafka's MetadataNodeRedactionCriteria:
// ConfigurationImageNode, ScramCredentialDataNode, DelegationTokenDataNode):
// config values, SCRAM salts and keys, token owners, requesters and
// renewers. Numbers are kept, as Kafka's RecordRedactor keeps a SCRAM
// credential's iterations.
func (b *Builder) redacted(r record.Record) record.Record {
	crit := b.criteria()
	switch r := r.(type) {
	case *record.ConfigRecord:
		if r.Value != nil && crit.ShouldRedactConfig(image.ConfigTypeForID(r.ResourceType), r.Name) {
			c := *r
			v := redact.Redacted
			c.Value = &v
			return &c
		}
	case *record.UserScramCredentialRecord:
		if crit.ShouldRedactScram() {
			c := *r
			c.Salt, c.StoredKey, c.ServerKey = nil, nil, nil
			return &c
		}
	case *record.DelegationTokenRecord:
		if crit.ShouldRedactDelegationToken() {
			c := *r
			c.Owner, c.Requester = redact.Redacted, redact.Redacted
			c.Renewers = make([]string, len(r.Renewers))
			for i := range c.Renewers {
				c.Renewers[i] = redact.Redacted
			}
			return &c
		}
	}
	return r
}

func (b *Builder) change(pos Position, r record.Record, kind ChangeKind, entity, summary string) {
	c := Change{At: pos, Kind: kind, Entity: entity, Summary: summary, Record: b.redacted(r)}
	b.emit(func() {
		b.h.Changes = push(b.h.Changes, c, b.lim, &b.h.DroppedChanges)
	})
}

func configResourceName(typ int8, name string) string {
	switch image.ConfigType(typ) {
	case image.ConfigTopic:
		return "topic:" + name
	case image.ConfigBroker:
		if name == "" {
			return "broker:<default>"
		}
		return "broker:" + name
	case image.ConfigBrokerLogger:
		return "broker-logger:" + name
	case image.ConfigClientMetrics:
		return "client-metrics:" + name
	case image.ConfigGroup:
		return "group:" + name
	}
	return fmt.Sprintf("resource-%d:%s", typ, name)
}

// otherChange records an accepted record of the kinds that are neither
// brokers nor topics nor partitions.
func (b *Builder) otherChange(pos Position, r record.Record) {
	crit := b.criteria()
	switch r := r.(type) {
	case *record.ConfigRecord:
		ent := configResourceName(r.ResourceType, r.ResourceName) + " " + r.Name
		switch {
		case r.Value == nil:
			b.change(pos, r, ChangeConfig, ent, "deleted")
		case crit.ShouldRedactConfig(image.ConfigTypeForID(r.ResourceType), r.Name):
			b.change(pos, r, ChangeConfig, ent, "set to "+redact.Redacted)
		default:
			b.change(pos, r, ChangeConfig, ent, fmt.Sprintf("set to %q", *r.Value))
		}
	case *record.ClientQuotaRecord:
		parts := make([]string, len(r.Entity))
		for i, e := range r.Entity {
			if e.EntityName == nil {
				parts[i] = e.EntityType + ":<default>"
			} else {
				parts[i] = e.EntityType + ":" + *e.EntityName
			}
		}
		ent := strings.Join(parts, ",") + " " + r.Key
		if r.Remove {
			b.change(pos, r, ChangeClientQuota, ent, "removed")
		} else {
			b.change(pos, r, ChangeClientQuota, ent, fmt.Sprintf("set to %v", r.Value))
		}
	case *record.AccessControlEntryRecord:
		b.change(pos, r, ChangeACL, r.ID.String(), fmt.Sprintf("added: resourceType %d %q pattern %d principal %q host %q operation %d permission %d",
			r.ResourceType, r.ResourceName, r.PatternType, r.Principal, r.Host, r.Operation, r.PermissionType))
	case *record.RemoveAccessControlEntryRecord:
		b.change(pos, r, ChangeACL, r.ID.String(), "removed")
	case *record.UserScramCredentialRecord:
		b.change(pos, r, ChangeScram, r.Name+" "+image.ScramMechanismName(r.Mechanism), "upserted")
	case *record.RemoveUserScramCredentialRecord:
		b.change(pos, r, ChangeScram, r.Name+" "+image.ScramMechanismName(r.Mechanism), "removed")
	case *record.DelegationTokenRecord:
		b.change(pos, r, ChangeDelegationToken, r.TokenID, "created or renewed")
	case *record.RemoveDelegationTokenRecord:
		b.change(pos, r, ChangeDelegationToken, r.TokenID, "removed")
	case *record.FeatureLevelRecord:
		b.change(pos, r, ChangeFeature, r.Name, fmt.Sprintf("level %d", r.FeatureLevel))
	case *record.RegisterControllerRecord:
		b.change(pos, r, ChangeController, fmt.Sprintf("controller %d", r.ControllerID), "registered, incarnation "+r.IncarnationID.String())
		b.chk.controller(pos, r)
	case *record.ProducerIdsRecord:
		b.change(pos, r, ChangeProducerIDs, fmt.Sprintf("broker %d", r.BrokerID), fmt.Sprintf("next producer id %d", r.NextProducerID))
	case *record.ZkMigrationStateRecord:
		b.change(pos, r, ChangeMigration, "zk migration", fmt.Sprintf("state %d", r.ZKMigrationState))
	default:
		b.change(pos, r, 0, r.Type().String(), "")
	}
}
