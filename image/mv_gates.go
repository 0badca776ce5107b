package image

import (
	"fmt"
	"strings"
)

// MinimumMetadataVersion is MetadataVersion.MINIMUM_VERSION of Kafka 4.x
// (3.3-IV3, level 7): the lowest level a Kafka 4 broker runs at. kmeta also
// reads the levels below it that Kafka 3.x wrote.
const MinimumMetadataVersion = MV3_3_IV3

// ShortVersion is MetadataVersion.shortVersion: the release ("3.7" for
// 3.7-IV2).
func (v MetadataVersion) ShortVersion() string {
	s := v.String()
	if i := strings.IndexByte(s, '-'); i > 0 && v > 0 && int(v) < len(mvNames) {
		return s[:i]
	}
	return s
}

// IsLeaderEpochBumpRequiredOnIsrShrink is
// MetadataVersion.isLeaderEpochBumpRequiredOnIsrShrink: before 3.6-IV0 the
// controller bumps the leader epoch when the ISR shrinks.
func (v MetadataVersion) IsLeaderEpochBumpRequiredOnIsrShrink() bool { return v < MV3_6_IV0 }

// MetadataTransactionSupported is MetadataVersion.isMetadataTransactionSupported
// (3.6-IV1, KIP-868): Begin/End/AbortTransactionRecord.
func (v MetadataVersion) MetadataTransactionSupported() bool { return v >= MV3_6_IV1 }

// RegisterControllerRecordVersion is
// MetadataVersion.registerControllerRecordVersion: 0 from 3.7-IV0; an error
// below, where Kafka throws.
func (v MetadataVersion) RegisterControllerRecordVersion() (int16, error) {
	if v >= MV3_7_IV0 {
		return 0, nil
	}
	return 0, fmt.Errorf("controller registration is not supported in metadata.version %s", v)
}

// PartitionChangeRecordVersion is MetadataVersion.partitionChangeRecordVersion
// (the same levels as PartitionRecordVersion).
func (v MetadataVersion) PartitionChangeRecordVersion() int16 { return v.PartitionRecordVersion() }

// FetchRequestVersion is MetadataVersion.fetchRequestVersion: the Fetch
// version a follower's replica fetcher sends (Kafka 4.4 from 3.3-IV3;
// Kafka 3.9 below).
func (v MetadataVersion) FetchRequestVersion() int16 {
	switch {
	case v >= MV4_1_IV1:
		return 18
	case v >= MV3_9_IV0:
		return 17
	case v >= MV3_7_IV4:
		return 16
	case v >= MV3_5_IV1:
		return 15
	case v >= MV3_5_IV0:
		return 14
	case v >= MV3_1_IV0:
		return 13
	}
	return 12
}

// ListOffsetRequestVersion is MetadataVersion.listOffsetRequestVersion: the
// ListOffsets version a follower sends (Kafka 4.4 from 3.3-IV3; Kafka 3.9
// below).
func (v MetadataVersion) ListOffsetRequestVersion() int16 {
	switch {
	case v >= MV4_2_IV1:
		return 11
	case v >= MV4_0_IV3:
		return 10
	case v >= MV3_9_IV0:
		return 9
	case v >= MV3_5_IV0:
		return 8
	}
	return 7
}

// ParseMetadataVersion is Kafka 4.4's MetadataVersion.fromVersionString: a
// version name ("3.7-IV2"), or a release ("3.7", "3.7.1": only the first
// two dot-separated parts count), which means the release's last
// production level. Levels below MinimumMetadataVersion are unknown, as
// are levels above LatestProductionMetadataVersion unless unstable
// (unstable.feature.versions.enable) is set.
func ParseMetadataVersion(s string, unstable bool) (MetadataVersion, error) {
	key := s
	parts := strings.Split(s, ".")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1] // String.split drops trailing empty strings
	}
	if len(parts) > 2 {
		key = parts[0] + "." + parts[1]
	}
	var found MetadataVersion
	for v := MinimumMetadataVersion; v <= LatestMetadataVersion; v++ {
		if v.String() == key {
			found = v
			break
		}
		if v.IsProduction() && v.ShortVersion() == key {
			found = v // the release's last production level
		}
	}
	if found == 0 || (!unstable && !found.IsProduction()) {
		top := LatestProductionMetadataVersion
		if unstable {
			top = LatestMetadataVersion
		}
		names := make([]string, 0, top-MinimumMetadataVersion+1)
		for v := MinimumMetadataVersion; v <= top; v++ {
			names = append(names, v.String())
		}
		return 0, fmt.Errorf("unknown metadata.version '%s'. Supported metadata.version are: %s", s, strings.Join(names, ", "))
	}
	return found, nil
}
