package image

import "fmt"

// MetadataVersion is a metadata.version feature level
// (org.apache.kafka.server.common.MetadataVersion). 0 means "none": an image
// that never saw a metadata.version FeatureLevelRecord.
type MetadataVersion int16

// The metadata versions kmeta knows, by feature level.
const (
	MV3_0_IV1 MetadataVersion = 1 + iota
	MV3_1_IV0
	MV3_2_IV0
	MV3_3_IV0
	MV3_3_IV1
	MV3_3_IV2
	MV3_3_IV3
	MV3_4_IV0
	MV3_5_IV0
	MV3_5_IV1
	MV3_5_IV2
	MV3_6_IV0
	MV3_6_IV1
	MV3_6_IV2
	MV3_7_IV0
	MV3_7_IV1
	MV3_7_IV2
	MV3_7_IV3
	MV3_7_IV4
	MV3_8_IV0
	MV3_9_IV0
	MV4_0_IV0
	MV4_0_IV1
	MV4_0_IV2
	MV4_0_IV3
	MV4_1_IV0
	MV4_1_IV1
	MV4_2_IV0
	MV4_2_IV1
	MV4_3_IV0 // level 30: cordoned log directories (KIP-1066)
	MV4_4_IV0 // level 31: share.version 2's bootstrap level (KIP-1191)
	MV4_4_IV1 // level 32: CIDR ACL host patterns (KIP-1276)
	MV4_4_IV2 // level 33: controller unregistration (KIP-1312)
	// LatestMetadataVersion is the highest level kmeta can read and write:
	// MetadataVersion.latestTesting() of Kafka 4.4.
	LatestMetadataVersion = MV4_4_IV2
	// LatestProductionMetadataVersion is MetadataVersion.LATEST_PRODUCTION
	// of Kafka 4.3 and 4.4: higher levels exist but need
	// unstable.feature.versions.enable=true.
	LatestProductionMetadataVersion = MV4_3_IV0
)

var mvNames = [...]string{"", "3.0-IV1", "3.1-IV0", "3.2-IV0", "3.3-IV0", "3.3-IV1", "3.3-IV2", "3.3-IV3",
	"3.4-IV0", "3.5-IV0", "3.5-IV1", "3.5-IV2", "3.6-IV0", "3.6-IV1", "3.6-IV2", "3.7-IV0", "3.7-IV1",
	"3.7-IV2", "3.7-IV3", "3.7-IV4", "3.8-IV0", "3.9-IV0", "4.0-IV0", "4.0-IV1", "4.0-IV2", "4.0-IV3",
	"4.1-IV0", "4.1-IV1", "4.2-IV0", "4.2-IV1", "4.3-IV0", "4.4-IV0", "4.4-IV1", "4.4-IV2"}

// didMetadataChange is MetadataVersion's didMetadataChange flag by level
// (Kafka 3.9 for levels 1-6, Kafka 4.4 from level 7).
var didMetadataChange = [...]bool{1: true, 2: false, 3: true, 4: false, 5: true, 6: true, 7: true, 8: true,
	9: false, 10: false, 11: true, 12: false, 13: true, 14: true, 15: true, 16: false, 17: true, 18: false,
	19: false, 20: false, 21: false, 22: false, 23: true, 24: false, 25: false, 26: false, 27: false, 28: false,
	29: false, 30: true, 31: false, 32: true, 33: true}

// DidMetadataChange is MetadataVersion.didMetadataChange: whether the level
// changed the metadata format (4.3-IV0, 4.4-IV1 and 4.4-IV2 did; 4.4-IV0
// did not). False for a level kmeta does not know.
func (v MetadataVersion) DidMetadataChange() bool {
	return v > 0 && int(v) < len(didMetadataChange) && didMetadataChange[v]
}

// MetadataChanged is MetadataVersion.checkIfMetadataChanged: whether going
// from one level to the other crosses a level that changed the metadata
// format, i.e. whether a downgrade between them loses metadata.
func MetadataChanged(from, to MetadataVersion) bool {
	if from == to {
		return false
	}
	hi, lo := max(from, to), min(from, to)
	v := hi
	for !v.DidMetadataChange() && v != lo && v > MV3_0_IV1 {
		v--
	}
	return v != lo
}

// ParseMetadataVersionLevel checks a feature level
// (MetadataVersion.fromFeatureLevel): levels kmeta does not know are an error.
func ParseMetadataVersionLevel(level int16) (MetadataVersion, error) {
	if level < int16(MV3_0_IV1) || level > int16(LatestMetadataVersion) {
		return 0, fmt.Errorf("unknown metadata.version feature level %d (kmeta knows %d to %d)", level, MV3_0_IV1, LatestMetadataVersion)
	}
	return MetadataVersion(level), nil
}

// String is Kafka's version name ("3.7-IV2"), or "none".
func (v MetadataVersion) String() string {
	if v > 0 && int(v) < len(mvNames) {
		return mvNames[v]
	}
	if v == 0 {
		return "none"
	}
	return fmt.Sprintf("level-%d", int16(v))
}

// IsProduction is MetadataVersion.isProduction: at or below
// LatestProductionMetadataVersion.
func (v MetadataVersion) IsProduction() bool { return v <= LatestProductionMetadataVersion }

// Gates of MetadataVersion used by the image and the controller.

// FeatureLevelRecordSupported: 3.3-IV0 and later write FeatureLevelRecords.
func (v MetadataVersion) FeatureLevelRecordSupported() bool { return v >= MV3_3_IV0 }

// InControlledShutdownSupported: RegisterBrokerRecord v1 (3.3-IV3).
func (v MetadataVersion) InControlledShutdownSupported() bool { return v >= MV3_3_IV3 }

// MigrationSupported: ZK migration records (3.4-IV0).
func (v MetadataVersion) MigrationSupported() bool { return v >= MV3_4_IV0 }

// ScramSupported: SCRAM records (3.5-IV2).
func (v MetadataVersion) ScramSupported() bool { return v >= MV3_5_IV2 }

// DelegationTokensSupported: delegation token records (3.6-IV2).
func (v MetadataVersion) DelegationTokensSupported() bool { return v >= MV3_6_IV2 }

// ControllerRegistrationSupported: RegisterControllerRecord (3.7-IV0).
func (v MetadataVersion) ControllerRegistrationSupported() bool { return v >= MV3_7_IV0 }

// DirectoryAssignmentSupported: KIP-858 directories (3.7-IV2).
func (v MetadataVersion) DirectoryAssignmentSupported() bool { return v >= MV3_7_IV2 }

// ELRSupported: KIP-966 ELR fields and ClearElrRecord (4.0-IV1).
func (v MetadataVersion) ELRSupported() bool { return v >= MV4_0_IV1 }

// CordonedLogDirsSupported is MetadataVersion.isCordonedLogDirsSupported
// (4.3-IV0, KIP-1066): RegisterBrokerRecord v4 and
// BrokerRegistrationChangeRecord v3 carry CordonedLogDirs.
func (v MetadataVersion) CordonedLogDirsSupported() bool { return v >= MV4_3_IV0 }

// CidrACLSupported is MetadataVersion.isCidrAclSupported (4.4-IV1,
// KIP-1276): the controller accepts ACL hosts in CIDR notation.
func (v MetadataVersion) CidrACLSupported() bool { return v >= MV4_4_IV1 }

// ControllerUnregistrationSupported is
// MetadataVersion.isControllerUnregistrationSupported (4.4-IV2, KIP-1312):
// the controller writes UnregisterControllerRecord.
func (v MetadataVersion) ControllerUnregistrationSupported() bool { return v >= MV4_4_IV2 }

// RegisterBrokerRecordVersion is MetadataVersion.registerBrokerRecordVersion.
func (v MetadataVersion) RegisterBrokerRecordVersion() int16 {
	switch {
	case v >= MV4_3_IV0:
		return 4
	case v >= MV3_7_IV2:
		return 3
	case v >= MV3_4_IV0:
		return 2
	case v >= MV3_3_IV3:
		return 1
	}
	return 0
}

// PartitionRecordVersion is MetadataVersion.partitionRecordVersion (also the
// PartitionChangeRecord version).
func (v MetadataVersion) PartitionRecordVersion() int16 {
	switch {
	case v >= MV4_0_IV1:
		return 2
	case v >= MV3_7_IV2:
		return 1
	}
	return 0
}
