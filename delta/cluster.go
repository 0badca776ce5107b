package delta

import (
	"fmt"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// The replay of features, broker and controller registrations (Kafka's
// FeaturesDelta and ClusterDelta).

// replayFeatureLevel follows FeaturesDelta.replay: metadata.version must be
// a level kmeta knows (a higher one is ErrNewerVersion); kraft.version is
// skipped (Kafka 4.x, KAFKA-18979); level 0 removes any other feature.
func (d *Delta) replayFeatureLevel(r *record.FeatureLevelRecord) error {
	switch r.Name {
	case image.MetadataVersionFeature:
		mv, err := image.ParseMetadataVersionLevel(r.FeatureLevel)
		if err != nil {
			if r.FeatureLevel > int16(image.LatestMetadataVersion) {
				return &RecordError{Record: r, Err: fmt.Errorf("%w: metadata.version feature level %d (kmeta knows %d to %d, %s)",
					ErrNewerVersion, r.FeatureLevel, image.MV3_0_IV1, image.LatestMetadataVersion, image.LatestMetadataVersion)}
			}
			return reject(r, "%v", err)
		}
		d.mv = mv
		return nil
	case image.KRaftVersionFeature:
		return nil
	}
	if d.features == nil {
		d.features = map[string]int16{}
	}
	d.features[r.Name] = r.FeatureLevel
	return nil
}

func (d *Delta) currentBroker(id int32) (*image.Broker, bool) {
	if b, ok := d.brokers[id]; ok {
		return b, b != nil
	}
	return d.base.Cluster().Broker(id)
}

func (d *Delta) putBroker(id int32, b *image.Broker) {
	if d.brokers == nil {
		d.brokers = map[int32]*image.Broker{}
	}
	d.brokers[id] = b
}

// replayRegisterBroker follows ClusterDelta.replay(RegisterBrokerRecord):
// the new registration replaces any previous one, whatever its epoch.
func (d *Delta) replayRegisterBroker(r *record.RegisterBrokerRecord) error {
	b, err := image.NewBroker(r)
	if err != nil {
		return reject(r, "%v", err)
	}
	d.putBroker(r.BrokerID, b)
	return nil
}

// replayUnregisterBroker follows ClusterDelta.replay(UnregisterBrokerRecord).
// Kafka's image does not check it; kmeta rejects an unregistration of a
// broker that is not registered, or of another epoch, as a contradiction
// (the controller only writes it for the registration it removes).
func (d *Delta) replayUnregisterBroker(r *record.UnregisterBrokerRecord) error {
	b, ok := d.currentBroker(r.BrokerID)
	if !ok {
		return reject(r, "broker %d is not registered", r.BrokerID)
	}
	if b.Epoch() != r.BrokerEpoch {
		return reject(r, "broker %d is registered with epoch %d, not %d", r.BrokerID, b.Epoch(), r.BrokerEpoch)
	}
	d.putBroker(r.BrokerID, nil)
	return nil
}

// replayFence follows ClusterDelta.replay(Fence/UnfenceBrokerRecord): the
// broker must be registered with the record's epoch.
func (d *Delta) replayFence(r record.Record, id int32, epoch int64, fenced bool) error {
	b, ok := d.currentBroker(id)
	verb := "unfence"
	if fenced {
		verb = "fence"
	}
	if !ok {
		return reject(r, "tried to %s broker %d, but that broker was not registered", verb, id)
	}
	if b.Epoch() != epoch {
		return reject(r, "tried to %s broker %d with epoch %d, but the registration has epoch %d", verb, id, epoch, b.Epoch())
	}
	d.putBroker(id, b.WithFenced(fenced))
	return nil
}

// replayBrokerChange follows ClusterDelta.replay(BrokerRegistrationChangeRecord):
// Fenced 1/-1/0 = fence/unfence/unchanged, InControlledShutdown 1/0 =
// set/unchanged, LogDirs non-empty = replace, CordonedLogDirs (v3, KIP-1066)
// non-null = replace, an empty list included (null = unchanged); other
// values are errors; a change that leaves the registration equal records
// nothing (BrokerRegistration.cloneWith returns the same registration).
func (d *Delta) replayBrokerChange(r *record.BrokerRegistrationChangeRecord) error {
	b, ok := d.currentBroker(r.BrokerID)
	if !ok {
		return reject(r, "tried to change broker %d, but that broker was not registered", r.BrokerID)
	}
	if b.Epoch() != r.BrokerEpoch {
		return reject(r, "tried to change broker %d with epoch %d, but the registration has epoch %d", r.BrokerID, r.BrokerEpoch, b.Epoch())
	}
	nb := b
	switch r.Fenced {
	case 0:
	case 1:
		nb = nb.WithFenced(true)
	case -1:
		nb = nb.WithFenced(false)
	default:
		return reject(r, "fenced value %d is none of -1, 0, 1", r.Fenced)
	}
	switch r.InControlledShutdown {
	case 0:
	case 1:
		nb = nb.WithInControlledShutdown(true)
	default:
		return reject(r, "inControlledShutdown value %d is neither 0 nor 1", r.InControlledShutdown)
	}
	if len(r.LogDirs) > 0 {
		nb = nb.WithDirectories(r.LogDirs)
	}
	if r.CordonedLogDirs != nil {
		nb = nb.WithCordonedDirectories(r.CordonedLogDirs)
	}
	if !nb.Equal(b) {
		d.putBroker(r.BrokerID, nb)
	}
	return nil
}

// replayRegisterController follows ClusterDelta.replay(RegisterControllerRecord).
func (d *Delta) replayRegisterController(r *record.RegisterControllerRecord) error {
	c, err := image.NewController(r)
	if err != nil {
		return reject(r, "%v", err)
	}
	if d.controllers == nil {
		d.controllers = map[int32]*image.Controller{}
	}
	d.controllers[r.ControllerID] = c
	return nil
}

// replayUnregisterController follows
// ClusterDelta.replay(UnregisterControllerRecord) of Kafka 4.4 (KIP-1312):
// the controller leaves the image when the delta is applied. As in Kafka's
// image, an id with no registration is not an error (only the controller's
// ClusterControlManager checks), and a later RegisterControllerRecord in the
// same delta registers the id again.
func (d *Delta) replayUnregisterController(r *record.UnregisterControllerRecord) {
	if d.controllers == nil {
		d.controllers = map[int32]*image.Controller{}
	}
	d.controllers[r.ControllerID] = nil
}
