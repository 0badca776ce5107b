package image

import (
	"errors"
	"fmt"

	"github.com/kmeta-go/kmeta/record"
)

// ErrLoss is wrapped by the error Write returns when the image holds
// something the chosen metadata.version cannot represent and no OnLoss
// handler accepted the loss (Kafka's UnwritableMetadataException).
var ErrLoss = errors.New("metadata lost")

// WriteOptions control the writer path (Kafka's ImageWriterOptions).
type WriteOptions struct {
	// MetadataVersion to write at; 0 means the image's own
	// (EffectiveMetadataVersion: 3.0-IV1 for an image without one).
	MetadataVersion MetadataVersion
	// OnLoss is called with a description of each piece of data the
	// version cannot carry. Returning nil drops the data and goes on; an
	// error stops the write. Nil means stop with an error wrapping ErrLoss,
	// Kafka's default loss handler.
	OnLoss func(what string) error
	// OnDrop, if set, is told about data Kafka drops silently: ELR lists
	// when ELR is not enabled (kept silent as in Kafka, but
	// observable).
	OnDrop func(what string)
}

// Emit receives one record of the writer path and the version to write it at.
type Emit func(r record.Record, version int16) error

// Write writes the image as records, in Kafka's order (MetadataImage.write):
// features, cluster, topics, configs, client quotas, producer ids, ACLs,
// SCRAM credentials, delegation tokens. Record versions follow the
// metadata.version. Like Kafka 4.x, no ZkMigrationStateRecord is
// written. Below 3.3-IV0 (and for an image without metadata.version) no
// FeatureLevelRecord is written and finalized features are a loss, as Kafka
// 3.x wrote such images.
//
// Within a component the order is deterministic: brokers and controllers by
// id, topics in the id index's order with partitions by id, configs by
// resource then key, and so on.
func (img *Image) Write(opts WriteOptions, emit Emit) error {
	mv := opts.MetadataVersion
	if mv == 0 {
		mv = img.features.EffectiveMetadataVersion()
	}
	if mv < MV3_3_IV0 {
		mv = MV3_0_IV1
	}
	loss := func(what string) error {
		if opts.OnLoss != nil {
			return opts.OnLoss(what)
		}
		return fmt.Errorf("%w: the following could not be represented in metadata.version %s: %s", ErrLoss, mv, what)
	}
	// Features (FeaturesImage.write).
	if !mv.FeatureLevelRecordSupported() {
		if len(img.features.finalized) > 0 {
			if err := loss("feature flag(s): " + featureNames(img.features.finalized)); err != nil {
				return err
			}
		}
	} else {
		r := record.NewFeatureLevelRecord()
		r.Name, r.FeatureLevel = MetadataVersionFeature, int16(mv)
		if err := emit(r, 0); err != nil {
			return err
		}
		for _, f := range img.features.finalized {
			r := record.NewFeatureLevelRecord()
			r.Name, r.FeatureLevel = f.Name, f.Level
			if err := emit(r, 0); err != nil {
				return err
			}
		}
	}
	// Cluster (ClusterImage.write, BrokerRegistration.toRecord).
	for b := range img.cluster.Brokers() {
		r := b.Record()
		if r.InControlledShutdown && !mv.InControlledShutdownSupported() {
			if err := loss("the inControlledShutdown state of one or more brokers"); err != nil {
				return err
			}
			r.InControlledShutdown = false
		}
		if r.IsMigratingZKBroker && !mv.MigrationSupported() {
			if err := loss("the isMigratingZkBroker state of one or more brokers"); err != nil {
				return err
			}
			r.IsMigratingZKBroker = false
		}
		if len(r.LogDirs) > 0 && !mv.DirectoryAssignmentSupported() {
			if err := loss("the online log directories of one or more brokers"); err != nil {
				return err
			}
			r.LogDirs = []record.UUID{}
		}
		if r.CordonedLogDirs != nil && !mv.CordonedLogDirsSupported() {
			if err := loss("the cordoned log directories of one or more brokers"); err != nil {
				return err
			}
			r.CordonedLogDirs = nil
		}
		if err := emit(r, mv.RegisterBrokerRecordVersion()); err != nil {
			return err
		}
	}
	if img.cluster.controllers.Len() > 0 {
		if !mv.ControllerRegistrationSupported() {
			if err := loss("controller registrations"); err != nil {
				return err
			}
		} else {
			for c := range img.cluster.Controllers() {
				if err := emit(c.Record(), 0); err != nil {
					return err
				}
			}
		}
	}
	// Topics (TopicsImage.write, TopicImage.write, PartitionRegistration.toRecord).
	withELR := mv.ELRSupported() && img.features.ELREnabled()
	withDirs := mv.DirectoryAssignmentSupported()
	partVersion := mv.PartitionRecordVersion()
	droppedELR, lostDirs := false, false
	for t := range img.topics.All() {
		r := record.NewTopicRecord()
		r.Name, r.TopicID = t.name, t.id
		if err := emit(r, 0); err != nil {
			return err
		}
		for i := range t.parts {
			p := &t.parts[i]
			if !withELR && p.HasELR() {
				droppedELR = true
			}
			if !withDirs && p.hasDirs && !lostDirs {
				lostDirs = true
				if err := loss("the directory assignment state of one or more replicas"); err != nil {
					return err
				}
			}
			if err := emit(p.Record(t.id, withELR, withDirs), partVersion); err != nil {
				return err
			}
		}
	}
	if droppedELR && opts.OnDrop != nil {
		opts.OnDrop("the eligible leader replicas of one or more partitions (ELR not enabled)")
	}
	// Configs (ConfigurationsImage.write).
	for res, es := range img.configs.resources() {
		for _, e := range es {
			r := record.NewConfigRecord()
			r.ResourceType, r.ResourceName, r.Name = int8(res.Type), res.Name, e.Name
			v := e.Value
			r.Value = &v
			if err := emit(r, 0); err != nil {
				return err
			}
		}
	}
	// Client quotas (ClientQuotasImage.write).
	for _, q := range img.quotas.Entities() {
		for _, v := range q.values {
			r := record.NewClientQuotaRecord()
			r.Entity = make([]record.EntityData, len(q.parts))
			for i, p := range q.parts {
				r.Entity[i].EntityType = p.Type
				if p.Name != nil {
					s := *p.Name
					r.Entity[i].EntityName = &s
				}
			}
			r.Key, r.Value = v.Key, v.Value
			if err := emit(r, 0); err != nil {
				return err
			}
		}
	}
	// Producer ids (ProducerIdsImage.write).
	if img.producerID >= 0 {
		r := record.NewProducerIdsRecord()
		r.BrokerID, r.BrokerEpoch, r.NextProducerID = -1, -1, img.producerID
		if err := emit(r, 0); err != nil {
			return err
		}
	}
	// ACLs (AclsImage.write): written at every version.
	for a := range img.acls.All() {
		if err := emit(a.Record(), 0); err != nil {
			return err
		}
	}
	// SCRAM (ScramImage.write).
	if img.scram.Len() > 0 {
		if !mv.ScramSupported() {
			if err := loss("SCRAM credentials"); err != nil {
				return err
			}
		} else {
			it := img.scram.m.Iterator()
			for !it.Done() {
				k, c, _ := it.Next()
				r := record.NewUserScramCredentialRecord()
				r.Name, r.Mechanism = k.User, k.Mechanism
				c = c.clone()
				r.Salt, r.StoredKey, r.ServerKey, r.Iterations = c.Salt, c.StoredKey, c.ServerKey, c.Iterations
				if err := emit(r, 0); err != nil {
					return err
				}
			}
		}
	}
	// Delegation tokens (DelegationTokenImage.write).
	if img.tokens.Len() > 0 {
		if !mv.DelegationTokensSupported() {
			if err := loss("delegation tokens"); err != nil {
				return err
			}
		} else {
			for t := range img.tokens.All() {
				if err := emit(t.Record(), 0); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func featureNames(fs []FeatureLevel) string {
	s := ""
	for i, f := range fs {
		if i > 0 {
			s += ", "
		}
		s += f.Name
	}
	return s
}

// VersionedRecord is a record and the version to write it at.
type VersionedRecord struct {
	Record  record.Record
	Version int16
}

// Records returns the writer path's records as a list (RecordListWriter).
func (img *Image) Records(opts WriteOptions) ([]VersionedRecord, error) {
	var out []VersionedRecord
	err := img.Write(opts, func(r record.Record, v int16) error {
		out = append(out, VersionedRecord{r, v})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
