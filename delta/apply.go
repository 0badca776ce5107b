package delta

import (
	"slices"
	"strings"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// Apply returns the image the delta describes, with provenance p
// (MetadataDelta.apply). Every part the delta did not touch is the base
// image's own object; inside the topics, every unchanged topic is shared.
//
// Apply does not consume the delta: it may be called any number of times,
// and records may be replayed after it; images already returned never
// change (a topic's builder is frozen into the image's topic, and a later
// change to that topic starts a new builder from a copy). Kafka's JMH benchmarks rely on calling apply
// repeatedly on one delta.
func (d *Delta) Apply(p image.Provenance) (*image.Image, error) {
	b := image.NewBuilder(d.base)
	if d.mv != 0 || len(d.features) > 0 {
		d.applyFeatures(b)
	}
	if len(d.brokers) > 0 || len(d.controllers) > 0 {
		b.PutCluster(d.brokers, d.controllers)
	}
	if len(d.topics) > 0 || len(d.deleted) > 0 {
		if err := d.applyTopics(b); err != nil {
			return nil, err
		}
	}
	if len(d.configs) > 0 {
		b.PutConfigs(d.applyConfigs())
	}
	if len(d.quotas) > 0 {
		b.PutClientQuotas(d.applyQuotas())
	}
	if d.producerIDSet {
		b.SetNextProducerID(d.producerID)
	}
	if len(d.acls) > 0 {
		var put []image.ACL
		var removed []record.UUID
		for id, a := range d.acls {
			if a == nil {
				removed = append(removed, id)
			} else {
				put = append(put, *a)
			}
		}
		b.PutACLs(put, removed)
	}
	if len(d.scram) > 0 {
		// ScramDelta.apply, with one Kafka quirk fixed (Kafka can drop an
		// add when a removal empties its mechanism in the same delta): every change is applied
		// before empty mechanisms are pruned, so an add never goes to a
		// detached map. Keys are (mechanism, user), so pruning is implicit.
		ch := make(map[image.ScramKey]*image.ScramCredential, len(d.scram))
		for k, v := range d.scram {
			if v != nil {
				cp := *v
				ch[k] = &cp
			} else {
				ch[k] = nil
			}
		}
		b.PutScram(ch)
	}
	if len(d.tokens) > 0 {
		b.PutTokens(d.tokens)
	}
	return checked(b.Image(p)), nil
}

// applyFeatures is FeaturesDelta.apply.
func (d *Delta) applyFeatures(b *image.Builder) {
	base := d.base.Features()
	mv, _ := base.MetadataVersion()
	if d.mv != 0 {
		mv = d.mv
	}
	var levels []image.FeatureLevel
	for _, f := range base.Finalized() {
		if _, ok := d.features[f.Name]; !ok {
			levels = append(levels, f)
		}
	}
	for name, l := range d.features {
		levels = append(levels, image.FeatureLevel{Name: name, Level: l})
	}
	b.SetFeatures(mv, levels)
}

// applyTopics is TopicsDelta.apply.
func (d *Delta) applyTopics(b *image.Builder) error {
	var deleted []record.UUID
	if len(d.deleted) > 0 {
		deleted = make([]record.UUID, 0, len(d.deleted))
		for id := range d.deleted {
			deleted = append(deleted, id)
		}
	}
	changed := make([]image.Topic, 0, len(d.topics))
	// In the order the topics were met: their partitions were allocated in
	// that order too, so the walk goes through memory mostly forwards.
	for _, c := range d.order.chunks {
		for i := range c {
			if td := &c[i]; !td.dropped {
				changed = append(changed, td.freeze())
			}
		}
	}
	return b.PutTopics(deleted, changed)
}

// applyConfigs is ConfigurationsDelta.apply: resources whose configuration
// becomes empty are dropped.
func (d *Delta) applyConfigs() map[image.ConfigResource][]image.ConfigEntry {
	base := d.base.Configs()
	out := make(map[image.ConfigResource][]image.ConfigEntry, len(d.configs))
	for res, cd := range d.configs {
		var es []image.ConfigEntry
		if !cd.clearBase {
			for _, e := range base.Entries(res) {
				if _, ok := cd.changes[e.Name]; !ok {
					es = append(es, e)
				}
			}
		}
		for k, v := range cd.changes {
			if v != nil {
				es = append(es, image.ConfigEntry{Name: k, Value: *v})
			}
		}
		slices.SortFunc(es, func(a, b image.ConfigEntry) int { return strings.Compare(a.Name, b.Name) })
		out[res] = es
	}
	return out
}

// applyQuotas is ClientQuotasDelta.apply: entities with no quota left are
// dropped.
func (d *Delta) applyQuotas() map[string]*image.QuotaEntity {
	base := d.base.ClientQuotas()
	out := make(map[string]*image.QuotaEntity, len(d.quotas))
	for key, qd := range d.quotas {
		var vs []image.QuotaValue
		if e, ok := base.Entity(key); ok && !qd.clearBase {
			for _, v := range e.Values() {
				if _, ok := qd.changes[v.Key]; !ok {
					vs = append(vs, v)
				}
			}
		}
		for k, v := range qd.changes {
			if v != nil {
				vs = append(vs, image.QuotaValue{Key: k, Value: *v})
			}
		}
		if len(vs) == 0 {
			out[key] = nil
			continue
		}
		slices.SortFunc(vs, func(a, b image.QuotaValue) int { return strings.Compare(a.Key, b.Key) })
		out[key] = image.NewQuotaEntity(qd.parts, vs)
	}
	return out
}
