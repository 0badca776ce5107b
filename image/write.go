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
	w := imageWriter{img: img, mv: mv, opts: opts, emit: emit}
	for _, part := range []func() error{w.features, w.cluster, w.topics, w.configs, w.quotas, w.producerIDs, w.acls, w.scram, w.tokens} {
		if err := part(); err != nil {
			return err
		}
	}
	return nil
}

// imageWriter is one Write: the image, the metadata.version written at, and
// where the records go.
type imageWriter struct {
	img  *Image
	mv   MetadataVersion
	opts WriteOptions
	emit Emit
}

// loss reports data the version cannot carry (ImageWriterOptions' loss
// handler): OnLoss's answer, or an error wrapping ErrLoss.
func (w *imageWriter) loss(what string) error {
	if w.opts.OnLoss != nil {
		return w.opts.OnLoss(what)
	}
	return fmt.Errorf("%w: the following could not be represented in metadata.version %s: %s", ErrLoss, w.mv, what)
}

// features follows FeaturesImage.write.
func (w *imageWriter) features() error {
	fs := w.img.features
	if !w.mv.FeatureLevelRecordSupported() {
		if len(fs.finalized) > 0 {
			return w.loss("feature flag(s): " + featureNames(fs.finalized))
		}
		return nil
	}
	r := record.NewFeatureLevelRecord()
	r.Name, r.FeatureLevel = MetadataVersionFeature, int16(w.mv)
	if err := w.emit(r, 0); err != nil {
		return err
	}
	for _, f := range fs.finalized {
		r := record.NewFeatureLevelRecord()
		r.Name, r.FeatureLevel = f.Name, f.Level
		if err := w.emit(r, 0); err != nil {
			return err
		}
	}
	return nil
}

// cluster follows ClusterImage.write and BrokerRegistration.toRecord:
// fields the version cannot carry are losses.
func (w *imageWriter) cluster() error {
	mv := w.mv
	for b := range w.img.cluster.Brokers() {
		r := b.Record()
		if r.InControlledShutdown && !mv.InControlledShutdownSupported() {
			if err := w.loss("the inControlledShutdown state of one or more brokers"); err != nil {
				return err
			}
			r.InControlledShutdown = false
		}
		if r.IsMigratingZKBroker && !mv.MigrationSupported() {
			if err := w.loss("the isMigratingZkBroker state of one or more brokers"); err != nil {
				return err
			}
			r.IsMigratingZKBroker = false
		}
		if len(r.LogDirs) > 0 && !mv.DirectoryAssignmentSupported() {
			if err := w.loss("the online log directories of one or more brokers"); err != nil {
				return err
			}
			r.LogDirs = []record.UUID{}
		}
		if r.CordonedLogDirs != nil && !mv.CordonedLogDirsSupported() {
			if err := w.loss("the cordoned log directories of one or more brokers"); err != nil {
				return err
			}
			r.CordonedLogDirs = nil
		}
		if err := w.emit(r, mv.RegisterBrokerRecordVersion()); err != nil {
			return err
		}
	}
	if w.img.cluster.controllers.Len() == 0 {
		return nil
	}
	if !mv.ControllerRegistrationSupported() {
		return w.loss("controller registrations")
	}
	for c := range w.img.cluster.Controllers() {
		if err := w.emit(c.Record(), 0); err != nil {
			return err
		}
	}
	return nil
}

// topics follows TopicsImage.write, TopicImage.write and
// PartitionRegistration.toRecord.
func (w *imageWriter) topics() error {
	mv := w.mv
	withELR := mv.ELRSupported() && w.img.features.ELREnabled()
	withDirs := mv.DirectoryAssignmentSupported()
	partVersion := mv.PartitionRecordVersion()
	droppedELR, lostDirs := false, false
	for t := range w.img.topics.byID.All() {
		r := record.NewTopicRecord()
		r.Name, r.TopicID = t.name, t.id
		if err := w.emit(r, 0); err != nil {
			return err
		}
		for i := range t.parts {
			p := &t.parts[i]
			if !withELR && p.HasELR() {
				droppedELR = true
			}
			if !withDirs && p.hasDirs && !lostDirs {
				lostDirs = true
				if err := w.loss("the directory assignment state of one or more replicas"); err != nil {
					return err
				}
			}
			if err := w.emit(p.Record(t.id, withELR, withDirs), partVersion); err != nil {
				return err
			}
		}
	}
	if droppedELR && w.opts.OnDrop != nil {
		w.opts.OnDrop("the eligible leader replicas of one or more partitions (ELR not enabled)")
	}
	return nil
}

// configs follows ConfigurationsImage.write.
func (w *imageWriter) configs() error {
	for res, es := range w.img.configs.resources() {
		for _, e := range es {
			r := record.NewConfigRecord()
			r.ResourceType, r.ResourceName, r.Name = int8(res.Type), res.Name, e.Name
			v := e.Value
			r.Value = &v
			if err := w.emit(r, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// quotas follows ClientQuotasImage.write.
func (w *imageWriter) quotas() error {
	for _, q := range w.img.quotas.Entities() {
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
			if err := w.emit(r, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// producerIDs follows ProducerIdsImage.write.
func (w *imageWriter) producerIDs() error {
	if w.img.producerID < 0 {
		return nil
	}
	r := record.NewProducerIdsRecord()
	r.BrokerID, r.BrokerEpoch, r.NextProducerID = -1, -1, w.img.producerID
	return w.emit(r, 0)
}

// acls follows AclsImage.write: written at every version.
func (w *imageWriter) acls() error {
	for a := range w.img.acls.All() {
		if err := w.emit(a.Record(), 0); err != nil {
			return err
		}
	}
	return nil
}

// scram follows ScramImage.write.
func (w *imageWriter) scram() error {
	if w.img.scram.Len() == 0 {
		return nil
	}
	if !w.mv.ScramSupported() {
		return w.loss("SCRAM credentials")
	}
	it := w.img.scram.m.Iterator()
	for !it.Done() {
		k, c, _ := it.Next()
		r := record.NewUserScramCredentialRecord()
		r.Name, r.Mechanism = k.User, k.Mechanism
		c = c.clone()
		r.Salt, r.StoredKey, r.ServerKey, r.Iterations = c.Salt, c.StoredKey, c.ServerKey, c.Iterations
		if err := w.emit(r, 0); err != nil {
			return err
		}
	}
	return nil
}

// tokens follows DelegationTokenImage.write.
func (w *imageWriter) tokens() error {
	if w.img.tokens.Len() == 0 {
		return nil
	}
	if !w.mv.DelegationTokensSupported() {
		return w.loss("delegation tokens")
	}
	for t := range w.img.tokens.All() {
		if err := w.emit(t.Record(), 0); err != nil {
			return err
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

// VersionedRecord is a record with the version it is written at: the one
// definition is record.VersionedRecord (Kafka's ApiMessageAndVersion).
type VersionedRecord = record.VersionedRecord

// Records returns the writer path's records as a list (RecordListWriter).
func (img *Image) Records(opts WriteOptions) ([]VersionedRecord, error) {
	var out []VersionedRecord
	err := img.Write(opts, func(r record.Record, v int16) error {
		out = append(out, VersionedRecord{Record: r, Version: v})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
