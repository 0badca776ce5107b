package delta

import (
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// FinishSnapshot marks as removed everything in the base image that the
// records replayed so far did not re-assert (MetadataDelta.finishSnapshot):
// finalized features (not metadata.version), brokers, controllers, topics,
// config keys, client quota keys, ACLs, SCRAM credentials and delegation
// tokens. The producer id block survives, as in Kafka.
func (d *Delta) FinishSnapshot() {
	base := d.base
	for _, f := range base.Features().Finalized() {
		if _, ok := d.features[f.Name]; !ok {
			if d.features == nil {
				d.features = map[string]int16{}
			}
			d.features[f.Name] = 0
		}
	}
	for b := range base.Cluster().Brokers() {
		if _, ok := d.brokers[b.ID()]; !ok {
			d.putBroker(b.ID(), nil)
		}
	}
	for c := range base.Cluster().Controllers() {
		if _, ok := d.controllers[c.ID()]; !ok {
			if d.controllers == nil {
				d.controllers = map[int32]*image.Controller{}
			}
			d.controllers[c.ID()] = nil
		}
	}
	for t := range base.Topics().All() {
		if _, ok := d.topics[t.ID()]; !ok {
			if d.deleted == nil {
				d.deleted = map[record.UUID]struct{}{}
			}
			d.deleted[t.ID()] = struct{}{}
		}
	}
	for res, es := range base.Configs().Resources() {
		cd := d.configDeltaFor(res)
		for _, e := range es {
			if _, ok := cd.changes[e.Name]; !ok {
				cd.changes[e.Name] = nil
			}
		}
	}
	for key, q := range base.ClientQuotas().Entities() {
		qd, ok := d.quotas[key]
		if !ok {
			if d.quotas == nil {
				d.quotas = map[string]*quotaDelta{}
			}
			qd = &quotaDelta{parts: q.Parts(), changes: map[string]*float64{}}
			d.quotas[key] = qd
		}
		for _, v := range q.Values() {
			if _, ok := qd.changes[v.Key]; !ok {
				qd.changes[v.Key] = nil
			}
		}
	}
	for a := range base.ACLs().All() {
		if _, ok := d.acls[a.ID]; !ok {
			if d.acls == nil {
				d.acls = map[record.UUID]*image.ACL{}
			}
			d.acls[a.ID] = nil
		}
	}
	for k := range base.Scram().Keys() {
		if _, ok := d.scram[k]; !ok {
			if d.scram == nil {
				d.scram = map[image.ScramKey]*image.ScramCredential{}
			}
			d.scram[k] = nil
		}
	}
	for t := range base.Tokens().All() {
		if _, ok := d.tokens[t.TokenID]; !ok {
			if d.tokens == nil {
				d.tokens = map[string]*image.Token{}
			}
			d.tokens[t.TokenID] = nil
		}
	}
}
