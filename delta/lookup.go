package delta

import (
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// The lookups below read the delta's current view: the base image with
// every record replayed so far laid over it, as the next Replay sees it
// (Kafka's MetadataDelta read through its component deltas, e.g.
// TopicsDelta.getTopic and ClusterDelta.broker). They let a caller that
// replays record by record see what each record changed without applying.

// Broker returns broker id's current registration, false if it is not
// registered.
func (d *Delta) Broker(id int32) (*image.Broker, bool) { return d.currentBroker(id) }

// TopicID returns the id of the live topic named name.
func (d *Delta) TopicID(name string) (record.UUID, bool) { return d.liveTopicID(name) }

// Topic returns the name and the current partitions (in partition id
// order) of live topic id. The slice is the caller's own copy.
func (d *Delta) Topic(id record.UUID) (name string, parts []image.PartitionRegistration, ok bool) {
	td, base, ok := d.liveTopic(id)
	if !ok {
		return "", nil, false
	}
	if td == nil {
		td = &topicDelta{base: base, name: base.Name()}
	}
	parts = make([]image.PartitionRegistration, td.numPartitions())
	for i := range parts {
		parts[i] = td.partitionAt(i)
	}
	return td.name, parts, true
}

// Partition returns partition p of live topic id as currently replayed.
func (d *Delta) Partition(id record.UUID, p int32) (image.PartitionRegistration, bool) {
	td, base, ok := d.liveTopic(id)
	if !ok {
		return image.PartitionRegistration{}, false
	}
	if td == nil {
		td = &topicDelta{base: base}
	}
	return td.partition(p)
}

// Config returns the current value of config name of resource res, false
// if it is not set.
func (d *Delta) Config(res image.ConfigResource, name string) (string, bool) {
	if cd, ok := d.configs[res]; ok {
		if v, ok := cd.changes[name]; ok {
			if v == nil {
				return "", false
			}
			return *v, true
		}
		if cd.clearBase {
			return "", false
		}
	}
	return d.base.Configs().Get(res, name)
}

// FeatureLevel returns the current finalized level of a feature other than
// metadata.version (0 when not finalized).
func (d *Delta) FeatureLevel(name string) int16 {
	if l, ok := d.features[name]; ok {
		return l
	}
	return d.base.Features().Level(name)
}
