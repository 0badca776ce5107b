package deltatest

import (
	"fmt"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// ControllerSpec is a ControllerRegistrationRequest (KIP-919).
type ControllerSpec struct {
	ID int32
	// Listeners; nil means one PLAINTEXT listener
	// "CONTROLLER" at "controller-<id>:9093".
	Listeners []image.Endpoint
	// Incarnation; zero means a random id.
	Incarnation record.UUID
}

// RegisterController registers a controller
// (ClusterControlManager.registerController, MV >= 3.7-IV0): a
// RegisterControllerRecord v0 with zkMigrationReady false, the listeners and
// the controller's supported features. It replaces any registration of the
// same id. Below 3.7-IV0 it is ErrUnsupportedVersion.
func (s *Simulator) RegisterController(spec ControllerSpec) error {
	if !s.mv.ControllerRegistrationSupported() {
		return fmt.Errorf("%w: the current MetadataVersion %s is too old to support controller registrations", ErrUnsupportedVersion, s.mv)
	}
	if spec.ID < 0 {
		return fmt.Errorf("%w: controller id %d", ErrInvalidRequest, spec.ID)
	}
	r := record.NewRegisterControllerRecord()
	r.ControllerID, r.IncarnationID = spec.ID, spec.Incarnation
	if r.IncarnationID == (record.UUID{}) {
		r.IncarnationID = randomUUID(s.idRnd)
	}
	ls := spec.Listeners
	if ls == nil {
		ls = []image.Endpoint{{Name: "CONTROLLER", Host: fmt.Sprintf("controller-%d", spec.ID), Port: 9093}}
	}
	for _, l := range ls {
		r.EndPoints = append(r.EndPoints, record.ControllerEndpoint{Name: l.Name, Host: l.Host, Port: l.Port, SecurityProtocol: l.SecurityProtocol})
	}
	for _, f := range s.supportedFeatures() {
		r.Features = append(r.Features, record.ControllerFeature{Name: f.Name, MinSupportedVersion: f.Min, MaxSupportedVersion: f.Max})
	}
	return s.commit([]image.VersionedRecord{vr(r, 0)}, false)
}

// UnregisterController is the UnregisterController admin request of Kafka
// 4.4 (ClusterControlManager.unregisterController, KIP-1312): an
// UnregisterControllerRecord v0; the controller then leaves the image's
// controller set (and DescribeCluster's answer to a controller endpoint).
// Below 4.4-IV2 it is ErrUnsupportedVersion ("The current MetadataVersion is
// too old to support controller unregistration."); an id with no
// registration is ErrControllerNotRegistered.
func (s *Simulator) UnregisterController(id int32) error {
	if !s.mv.ControllerUnregistrationSupported() {
		return fmt.Errorf("%w: the current MetadataVersion %s is too old to support controller unregistration", ErrUnsupportedVersion, s.mv)
	}
	if _, ok := s.Image().Cluster().Controller(id); !ok {
		return fmt.Errorf("%w: controller ID %d is not currently registered", ErrControllerNotRegistered, id)
	}
	r := record.NewUnregisterControllerRecord()
	r.ControllerID = id
	return s.commit([]image.VersionedRecord{vr(r, 0)}, false)
}
