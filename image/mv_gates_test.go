package image_test

import (
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
)

type mvVector struct {
	Kind                                 string  `json:"kind"`
	Level                                *int16  `json:"level"`
	Version                              string  `json:"version"`
	ShortVersion                         string  `json:"shortVersion"`
	IsProduction                         bool    `json:"isProduction"`
	DidMetadataChange                    bool    `json:"didMetadataChange"`
	IsScramSupported                     bool    `json:"isScramSupported"`
	IsLeaderEpochBumpRequiredOnIsrShrink bool    `json:"isLeaderEpochBumpRequiredOnIsrShrink"`
	IsMetadataTransactionSupported       bool    `json:"isMetadataTransactionSupported"`
	IsDelegationTokenSupported           bool    `json:"isDelegationTokenSupported"`
	IsDirectoryAssignmentSupported       bool    `json:"isDirectoryAssignmentSupported"`
	IsElrSupported                       bool    `json:"isElrSupported"`
	IsCidrACLSupported                   bool    `json:"isCidrAclSupported"`
	IsMigrationSupported                 bool    `json:"isMigrationSupported"`
	IsCordonedLogDirsSupported           bool    `json:"isCordonedLogDirsSupported"`
	IsControllerRegistrationSupported    bool    `json:"isControllerRegistrationSupported"`
	IsControllerUnregistrationSupported  bool    `json:"isControllerUnregistrationSupported"`
	RegisterBrokerRecordVersion          int16   `json:"registerBrokerRecordVersion"`
	RegisterControllerRecordVersion      *int16  `json:"registerControllerRecordVersion"`
	PartitionChangeRecordVersion         int16   `json:"partitionChangeRecordVersion"`
	PartitionRecordVersion               int16   `json:"partitionRecordVersion"`
	FetchRequestVersion                  int16   `json:"fetchRequestVersion"`
	ListOffsetRequestVersion             int16   `json:"listOffsetRequestVersion"`
	CheckIfMetadataChanged               []bool  `json:"checkIfMetadataChanged"`
	Name                                 string  `json:"name"`
	Unstable                             bool    `json:"unstable"`
	Error                                *string `json:"error"`
}

// TestKafkaMetadataVersionTable: for every level Kafka 4.4 knows (3.3-IV3
// to 4.4-IV2), each MetadataVersion gate, record version and request
// version (fetchRequestVersion, listOffsetRequestVersion) and
// checkIfMetadataChanged against every other level equal Kafka's
// (broker-mv vectors), and fromVersionString (ParseMetadataVersion) accepts
// and rejects the names Kafka does, with and without unstable versions.
func TestKafkaMetadataVersionTable(t *testing.T) {
	levels, names := 0, 0
	kafkaoracle.Decode(t, "broker-mv", func(n int, v *mvVector) {
		if v.Kind == "fromVersionString" {
			names++
			got, err := image.ParseMetadataVersion(v.Name, v.Unstable)
			if (v.Level == nil) != (err != nil) || (v.Level != nil && int16(got) != *v.Level) {
				t.Errorf("line %d: ParseMetadataVersion(%q, %v) = %v, %v; Kafka %v %v", n, v.Name, v.Unstable, got, err, v.Level, v.Error)
			}
			return
		}
		levels++
		mv, err := image.ParseMetadataVersionLevel(*v.Level)
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		rc, rcErr := mv.RegisterControllerRecordVersion()
		check := []struct {
			what      string
			got, want any
		}{
			{"version", mv.String(), v.Version},
			{"shortVersion", mv.ShortVersion(), v.ShortVersion},
			{"isProduction", mv.IsProduction(), v.IsProduction},
			{"didMetadataChange", mv.DidMetadataChange(), v.DidMetadataChange},
			{"isScramSupported", mv.ScramSupported(), v.IsScramSupported},
			{"isLeaderEpochBumpRequiredOnIsrShrink", mv.IsLeaderEpochBumpRequiredOnIsrShrink(), v.IsLeaderEpochBumpRequiredOnIsrShrink},
			{"isMetadataTransactionSupported", mv.MetadataTransactionSupported(), v.IsMetadataTransactionSupported},
			{"isDelegationTokenSupported", mv.DelegationTokensSupported(), v.IsDelegationTokenSupported},
			{"isDirectoryAssignmentSupported", mv.DirectoryAssignmentSupported(), v.IsDirectoryAssignmentSupported},
			{"isElrSupported", mv.ELRSupported(), v.IsElrSupported},
			{"isCidrAclSupported", mv.CidrACLSupported(), v.IsCidrACLSupported},
			{"isMigrationSupported", mv.MigrationSupported(), v.IsMigrationSupported},
			{"isCordonedLogDirsSupported", mv.CordonedLogDirsSupported(), v.IsCordonedLogDirsSupported},
			{"isControllerRegistrationSupported", mv.ControllerRegistrationSupported(), v.IsControllerRegistrationSupported},
			{"isControllerUnregistrationSupported", mv.ControllerUnregistrationSupported(), v.IsControllerUnregistrationSupported},
			{"registerBrokerRecordVersion", mv.RegisterBrokerRecordVersion(), v.RegisterBrokerRecordVersion},
			{"registerControllerRecordVersion throws", rcErr != nil, v.RegisterControllerRecordVersion == nil},
			{"partitionChangeRecordVersion", mv.PartitionChangeRecordVersion(), v.PartitionChangeRecordVersion},
			{"partitionRecordVersion", mv.PartitionRecordVersion(), v.PartitionRecordVersion},
			{"fetchRequestVersion", mv.FetchRequestVersion(), v.FetchRequestVersion},
			{"listOffsetRequestVersion", mv.ListOffsetRequestVersion(), v.ListOffsetRequestVersion},
		}
		if v.RegisterControllerRecordVersion != nil {
			check = append(check, struct {
				what      string
				got, want any
			}{"registerControllerRecordVersion", rc, *v.RegisterControllerRecordVersion})
		}
		for _, c := range check {
			if c.got != c.want {
				t.Errorf("%s %s: kmeta %v, Kafka %v", mv, c.what, c.got, c.want)
			}
		}
		for i, want := range v.CheckIfMetadataChanged {
			other := image.MinimumMetadataVersion + image.MetadataVersion(i)
			if got := image.MetadataChanged(mv, other); got != want {
				t.Errorf("checkIfMetadataChanged(%s, %s): kmeta %v, Kafka %v", mv, other, got, want)
			}
		}
	})
	if want := int(image.LatestMetadataVersion - image.MinimumMetadataVersion + 1); levels != want || names == 0 {
		t.Errorf("%d levels (Kafka 4.4 has %d), %d names", levels, want, names)
	}
}
