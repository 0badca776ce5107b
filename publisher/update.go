package publisher

import (
	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// Update is what the loader hands a publisher for one publication: the new
// image, the manifest saying where it comes from, and a read-only view of
// what changed since the publisher's previous image. It is a value, as
// raft's Ready is: a publisher may keep Image and Manifest; Changes is valid
// only during the OnUpdate call.
type Update struct {
	// Image is the new image. It is immutable and may be kept.
	Image *image.Image
	// Manifest describes the update (Kafka's LogDeltaManifest or
	// SnapshotManifest).
	Manifest Manifest
	// Changes is what changed from Changes.Base() to Image (Kafka's
	// MetadataDelta as MetadataPublisher.onMetadataUpdate receives it).
	Changes Changes
}

// Changes is a read-only view of the delta behind an update: which topics,
// partitions and brokers changed, and the values they changed to; the
// change sets of configs, client quotas, SCRAM credentials, delegation
// tokens, ACLs, features and controllers; what one broker's ReplicaManager
// and coordinators do with it. It has no
// method that replays a record or applies the delta, so a publisher cannot
// change what the loader builds. The zero Changes reports no change, over
// no base image.
type Changes struct{ d *delta.Delta }

// Base returns the image the changes apply to: the previously published
// image, or image.Empty() for a newly installed publisher's first update (a
// delta from the empty image) and for the zero Changes.
func (c Changes) Base() *image.Image {
	if c.d == nil {
		return image.Empty()
	}
	return c.d.Base()
}

// MetadataVersionChanged returns the metadata.version the update finalizes,
// and whether it finalizes one (delta.Delta.MetadataVersionChanged).
func (c Changes) MetadataVersionChanged() (image.MetadataVersion, bool) {
	if c.d == nil {
		return 0, false
	}
	return c.d.MetadataVersionChanged()
}

// Topics reports the created, changed and deleted topics, each sorted by id
// (delta.Delta.Topics).
func (c Changes) Topics() delta.TopicChanges {
	if c.d == nil {
		return delta.TopicChanges{}
	}
	return c.d.Topics()
}

// ChangedPartitions returns the ids of the partitions of topic id created or
// changed, ascending (delta.Delta.ChangedPartitions).
func (c Changes) ChangedPartitions(id record.UUID) []int32 {
	if c.d == nil {
		return nil
	}
	return c.d.ChangedPartitions(id)
}

// PartitionGrowth reports the topics whose partition count grew
// (delta.Delta.PartitionGrowth).
func (c Changes) PartitionGrowth() []delta.PartitionGrowth {
	if c.d == nil {
		return nil
	}
	return c.d.PartitionGrowth()
}

// Brokers reports the brokers whose registration the update adds, changes
// or removes (delta.Delta.Brokers).
func (c Changes) Brokers() delta.BrokerChanges {
	if c.d == nil {
		return delta.BrokerChanges{}
	}
	return c.d.Brokers()
}

// LocalChanges reports the partitions broker must now lead, follow or
// delete (delta.Delta.LocalChanges, Kafka's TopicsDelta.localChanges).
func (c Changes) LocalChanges(broker int32) delta.LocalChanges {
	if c.d == nil {
		return delta.LocalChanges{}
	}
	return c.d.LocalChanges(broker)
}

// Configs reports the config resources whose keys changed
// (delta.Delta.Configs, what DynamicConfigPublisher acts on).
func (c Changes) Configs() []delta.ConfigChange {
	if c.d == nil {
		return nil
	}
	return c.d.Configs()
}

// ClientQuotas reports the client quota entities whose quotas changed
// (delta.Delta.ClientQuotas, what DynamicClientQuotaPublisher acts on).
func (c Changes) ClientQuotas() []delta.QuotaChange {
	if c.d == nil {
		return nil
	}
	return c.d.ClientQuotas()
}

// Scram reports the SCRAM credentials added, replaced or removed
// (delta.Delta.Scram, what ScramPublisher acts on).
func (c Changes) Scram() []delta.ScramChange {
	if c.d == nil {
		return nil
	}
	return c.d.Scram()
}

// Tokens reports the delegation tokens added, replaced or removed
// (delta.Delta.Tokens, what DelegationTokenPublisher acts on).
func (c Changes) Tokens() []delta.TokenChange {
	if c.d == nil {
		return nil
	}
	return c.d.Tokens()
}

// ACLs reports the ACLs added and removed in replay order
// (delta.Delta.ACLs, what AclPublisher applies one by one).
func (c Changes) ACLs() []delta.ACLChange {
	if c.d == nil {
		return nil
	}
	return c.d.ACLs()
}

// Features reports the finalized features whose level changed, the
// metadata.version included (delta.Delta.Features).
func (c Changes) Features() []delta.FeatureChange {
	if c.d == nil {
		return nil
	}
	return c.d.Features()
}

// Controllers reports the controllers registered, changed or unregistered
// (delta.Delta.Controllers).
func (c Changes) Controllers() delta.ControllerChanges {
	if c.d == nil {
		return delta.ControllerChanges{}
	}
	return c.d.Controllers()
}

// ReplicaChanges reports what broker's ReplicaManager.applyDelta does
// with the update (delta.Delta.ReplicaChanges).
func (c Changes) ReplicaChanges(broker int32, inControlledShutdown bool) delta.ReplicaChanges {
	if c.d == nil {
		return delta.ReplicaChanges{}
	}
	return c.d.ReplicaChanges(broker, inControlledShutdown)
}

// Coordinators reports the coordinator elections and resignations broker
// makes for the update (delta.Delta.Coordinators, Kafka's
// BrokerMetadataPublisher.updateCoordinator).
func (c Changes) Coordinators(broker int32) []delta.CoordinatorChange {
	if c.d == nil {
		return nil
	}
	return c.d.Coordinators(broker)
}
