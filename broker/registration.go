package broker

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
)

// Changes is what the broker's publishers read of a commit: the
// metadata.version replayed in it and the brokers it changed. Both
// *delta.Delta and publisher.Changes (an Update's Changes) satisfy it.
type Changes interface {
	MetadataVersionChanged() (image.MetadataVersion, bool)
	Brokers() delta.BrokerChanges
}

// ErrNoMetadataVersion is returned where Kafka's
// FeaturesImage.metadataVersionOrThrow throws: a rule needs the
// metadata.version and the image has none (a Kafka 3.x log before its
// first FeatureLevelRecord).
var ErrNoMetadataVersion = errors.New("the image has no metadata.version")

// ErrMultipleLogDirsUnsupported is MetadataVersionConfigValidator's fault:
// a broker with several log directories (JBOD) at a metadata.version below
// 3.7-IV2.
var ErrMultipleLogDirsUnsupported = errors.New("multiple log directories (JBOD) are not supported")

// RegistrationNeedsRefresh is
// BrokerRegistrationTracker.brokerRegistrationNeedsRefresh: a broker must
// resend its registration when the metadata.version supports directory
// assignment (3.7-IV2, KIP-858) but its registration lists no log
// directory. No registration (nil) needs none: the broker's lifecycle
// manager is still sending it.
func RegistrationNeedsRefresh(mv image.MetadataVersion, reg *image.Broker) bool {
	return reg != nil && mv.DirectoryAssignmentSupported() && reg.NumDirectories() == 0
}

// TrackRegistration is BrokerRegistrationTracker.onMetadataUpdate for
// broker id: after a commit that changed the metadata.version or broker
// id's registration, whether the broker must resend its registration
// (RegistrationNeedsRefresh of img's metadata.version and registration).
// It fails with ErrNoMetadataVersion where Kafka throws.
//
// Kafka checks when the delta holds a change for the id
// (ClusterDelta.changedBrokers, BrokerChanges.Touched): a change record that
// changes nothing is not one, but a registration identical to the current
// one, or a change a later record of the same delta undoes, is.
func TrackRegistration(c Changes, img *image.Image, id int32) (bool, error) {
	_, mvChanged := c.MetadataVersionChanged()
	if !mvChanged && !slices.Contains(c.Brokers().Touched, id) {
		return false, nil
	}
	mv, ok := img.Features().MetadataVersion()
	if !ok {
		return false, ErrNoMetadataVersion
	}
	reg, _ := img.Cluster().Broker(id)
	return RegistrationNeedsRefresh(mv, reg), nil
}

// ValidateMetadataVersion is MetadataVersionConfigValidator.onMetadataUpdate:
// after a commit that replayed a metadata.version, a broker configured with
// several log directories (hasMultiLogDirs) needs 3.7-IV2 or later; below it
// the error wraps ErrMultipleLogDirsUnsupported (Kafka reports it to the
// broker's fault handler). Commits without a metadata.version record are
// never checked.
func ValidateMetadataVersion(c Changes, img *image.Image, hasMultiLogDirs bool) error {
	if _, changed := c.MetadataVersionChanged(); !changed {
		return nil
	}
	mv, ok := img.Features().MetadataVersion()
	if !ok {
		return ErrNoMetadataVersion
	}
	if hasMultiLogDirs && !mv.DirectoryAssignmentSupported() {
		return fmt.Errorf("%w in the current metadata.version %s: need %s or higher", ErrMultipleLogDirsUnsupported, mv, image.MV3_7_IV2)
	}
	return nil
}
