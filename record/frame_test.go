package record

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func frame(parts ...uint64) []byte {
	var b []byte
	for _, p := range parts {
		b = binary.AppendUvarint(b, p)
	}
	return b
}

// TestFrameRejections follows AbstractApiMessageSerde.read and
// MetadataRecordSerde: every rejection Kafka makes, with the sentinel error
// a caller can test for.
func TestFrameRejections(t *testing.T) {
	topic := NewTopicRecord()
	topic.Name = "orders"
	body, err := topic.AppendBody(nil, 0)
	require.NoError(t, err)

	cases := []struct {
		name  string
		value []byte
		want  error
		text  string
	}{
		{"frame version 0 is the 2.8 preview", append(frame(0, 2, 0), body...), ErrUnsupportedVersion, "2.8 preview"},
		{"frame version 2", append(frame(2, 2, 0), body...), ErrUnsupportedVersion, "frame version 2"},
		{"unknown apiKey 6 (removed before release)", append(frame(1, 6, 0), body...), ErrUnknownType, "unknown metadata id 6"},
		{"unknown apiKey 99", append(frame(1, 99, 0), body...), ErrUnknownType, "99"},
		{"version above the range", append(frame(1, 2, 1), body...), ErrUnsupportedVersion, "valid versions are 0-0"},
		{"frame version over int16", append(frame(1<<15, 2, 0), body...), ErrCorrupt, "int16"},
		{"apiKey over int16", append(frame(1, 40000, 0), body...), ErrCorrupt, "int16"},
		{"version over int16", append(frame(1, 2, 1<<20), body...), ErrCorrupt, "int16"},
		{"empty value", nil, ErrCorrupt, "truncated"},
		{"truncated frame", frame(1, 2), ErrCorrupt, "truncated"},
		{"trailing bytes", append(append(frame(1, 2, 0), body...), 0, 0), ErrCorrupt, "2 byte(s) of garbage"},
		{"truncated body", append(frame(1, 2, 0), body[:len(body)-3]...), ErrCorrupt, "truncated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Decode(c.value)
			require.Error(t, err)
			require.True(t, errors.Is(err, c.want), "want %v, got %v", c.want, err)
			require.ErrorContains(t, err, c.text)
		})
	}
	rec, v, err := Decode(append(frame(1, 2, 0), body...))
	require.NoError(t, err)
	require.Equal(t, int16(0), v)
	require.Equal(t, topic, rec)
}

// TestEncodeRefusesWhatAVersionCannotCarry mirrors the generated Java
// writers, which throw UnsupportedVersionException for a non-default value in
// a field the chosen version does not have.
func TestEncodeRefusesWhatAVersionCannotCarry(t *testing.T) {
	p := NewPartitionRecord()
	p.Replicas = []int32{1, 2, 3}
	p.Directories = []UUID{{1}, {2}, {3}}
	_, err := Append(nil, p, 0)
	require.ErrorIs(t, err, ErrUnsupportedVersion)
	require.ErrorContains(t, err, "Directories")
	_, err = Append(nil, p, 1)
	require.NoError(t, err)

	p.EligibleLeaderReplicas = []int32{2}
	_, err = Append(nil, p, 1)
	require.ErrorIs(t, err, ErrUnsupportedVersion)
	// An empty but non-null ELR differs from the null default too.
	p.EligibleLeaderReplicas = []int32{}
	_, err = Append(nil, p, 1)
	require.ErrorIs(t, err, ErrUnsupportedVersion)
	_, err = Append(nil, p, 2)
	require.NoError(t, err)

	b := NewRegisterBrokerRecord()
	b.InControlledShutdown = true
	_, err = Append(nil, b, 0)
	require.ErrorIs(t, err, ErrUnsupportedVersion)
	b.InControlledShutdown = false
	_, err = Append(nil, b, 0)
	require.NoError(t, err, "default values are dropped silently")

	c := NewBrokerRegistrationChangeRecord()
	c.LogDirs = []UUID{{9}}
	_, err = Append(nil, c, 1)
	require.ErrorIs(t, err, ErrUnsupportedVersion)

	_, err = Append(nil, NewTopicRecord(), 1)
	require.ErrorIs(t, err, ErrUnsupportedVersion)
	_, err = Append(nil, NewTopicRecord(), -1)
	require.ErrorIs(t, err, ErrUnsupportedVersion)

	// A nullable string that the version cannot carry as null: none exists
	// among the metadata records, but a null non-nullable string must fail.
	q := NewClientQuotaRecord()
	q.Entity = []EntityData{{EntityType: "user"}} // EntityName nil = default entity
	_, err = Append(nil, q, 0)
	require.NoError(t, err)
}

// TestDefaultsMatchKafka checks the declared defaults Kafka's generated
// constructors set (see the -defaults vectors for the byte-level check).
func TestDefaultsMatchKafka(t *testing.T) {
	pc := NewPartitionChangeRecord()
	require.Equal(t, int32(-1), pc.PartitionID)
	require.Equal(t, int32(-2), pc.Leader, "NO_LEADER_CHANGE")
	require.Equal(t, int8(-1), pc.LeaderRecoveryState)
	require.Nil(t, pc.ISR)
	p := NewPartitionRecord()
	require.Equal(t, int32(-1), p.Leader)
	require.Equal(t, int32(-1), p.LeaderEpoch)
	require.Equal(t, int32(-1), p.PartitionEpoch)
	rb := NewRegisterBrokerRecord()
	require.True(t, rb.Fenced)
	require.NotNil(t, rb.Rack)
	require.Equal(t, "", *rb.Rack)
	require.Equal(t, int64(-1), NewProducerIdsRecord().BrokerEpoch)
	require.Nil(t, NewBeginTransactionRecord().Name)
}

// TestUnknownTaggedFieldsKeptAndReemitted: tagged fields no version of a
// record defines are kept in UnknownTags and written back in ascending tag
// order among the known ones, as Kafka's RawTaggedFieldWriter does; a tag the
// record defines only at other versions is refused, as Kafka's generated
// read methods throw "Tag N is not valid for version V".
func TestUnknownTaggedFieldsKeptAndReemitted(t *testing.T) {
	// PartitionChangeRecord v0 knows tags 0-5; tag 8 (Directories) is only
	// valid from v1 and tag 30 is unknown everywhere.
	pc := NewPartitionChangeRecord()
	pc.PartitionID = 3
	pc.TopicID = UUID{7}
	pc.Leader = 4
	pc.LeaderRecoveryState = 1
	pc.UnknownTags = []TaggedField{{Tag: 3 + 100, Data: []byte{1, 2}}}
	_, err := Append(nil, pc, 0)
	require.NoError(t, err)

	pc.UnknownTags = []TaggedField{{Tag: 2, Data: []byte{9}}}
	_, err = Append(nil, pc, 0)
	require.ErrorIs(t, err, ErrUnsupportedVersion, "an unknown tag colliding with a known one")

	// Hand-build a v0 body: partitionId, topicId, then tags 1 (leader), 5
	// (recovery state), 29 and 30 (unknown).
	body := binary.BigEndian.AppendUint32(nil, 3)
	body = append(body, UUID{7}.bytes()...)
	body = append(body, 4)                // 4 tagged fields
	body = append(body, 1, 4, 0, 0, 0, 4) // tag 1, size 4, leader 4
	body = append(body, 5, 1, 1)          // tag 5, size 1, recovery 1
	body = append(body, 29, 3, 0xaa, 0xbb, 0xcc)
	body = append(body, 30, 0)
	value := append(frame(1, 5, 0), body...)
	rec, v, err := Decode(value)
	require.NoError(t, err)
	got := rec.(*PartitionChangeRecord)
	require.Equal(t, int32(4), got.Leader)
	require.Equal(t, int8(1), got.LeaderRecoveryState)
	require.Equal(t, []TaggedField{{Tag: 29, Data: []byte{0xaa, 0xbb, 0xcc}}, {Tag: 30, Data: []byte{}}}, got.UnknownTags)
	again, err := Append(nil, rec, v)
	require.NoError(t, err)
	require.Equal(t, value, again)

	// Tag 8 at v0: Directories is not valid for version 0.
	body0 := binary.BigEndian.AppendUint32(nil, 3)
	body0 = append(body0, UUID{7}.bytes()...)
	body0 = append(body0, 1, 8, 1, 1)
	_, _, err = Decode(append(frame(1, 5, 0), body0...))
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "tag 8 (Directories) is not valid for version 0")

	// The same tag 8 at v1 is Directories: 0 uuids.
	body1 := binary.BigEndian.AppendUint32(nil, 3)
	body1 = append(body1, UUID{7}.bytes()...)
	body1 = append(body1, 1, 8, 1, 1)
	rec, _, err = Decode(append(frame(1, 5, 1), body1...))
	require.NoError(t, err)
	require.NotNil(t, rec.(*PartitionChangeRecord).Directories)
	require.Empty(t, rec.(*PartitionChangeRecord).Directories)
	require.Empty(t, rec.(*PartitionChangeRecord).UnknownTags)

	// A tagged value whose size disagrees with its content is corrupt.
	bad := binary.BigEndian.AppendUint32(nil, 3)
	bad = append(bad, UUID{7}.bytes()...)
	bad = append(bad, 1, 1, 5, 0, 0, 0, 0, 4) // leader tag claims 5 bytes
	_, _, err = Decode(append(frame(1, 5, 0), bad...))
	require.ErrorIs(t, err, ErrCorrupt)
}

func (u UUID) bytes() []byte { return u[:] }

// TestDecodeBoundsAllocations: an array count larger than the bytes left is
// refused before allocating, as Kafka refuses "Tried to allocate a collection
// of size N, but there are only M bytes remaining".
func TestDecodeBoundsAllocations(t *testing.T) {
	body := binary.BigEndian.AppendUint32(nil, 0)
	body = append(body, make([]byte, 16)...)
	body = binary.AppendUvarint(body, 1<<28) // replicas count
	_, _, err := Decode(append(frame(1, 3, 0), body...))
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "cannot fit")

	// A varint longer than 5 bytes.
	_, _, err = Decode(append(frame(1, 3, 0), append(binary.BigEndian.AppendUint32(nil, 0), append(make([]byte, 16), 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)...)...))
	require.ErrorIs(t, err, ErrCorrupt)
}

func TestNullNonNullableString(t *testing.T) {
	// TopicRecord with a null name (compact length 0).
	body := append([]byte{0}, make([]byte, 16)...)
	body = append(body, 0)
	_, _, err := Decode(append(frame(1, 2, 0), body...))
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "non-nullable field Name was serialized as null")
}

func TestUUIDText(t *testing.T) {
	require.Equal(t, "AAAAAAAAAAAAAAAAAAAAAA", ZeroUUID.String())
	require.Equal(t, "AAAAAAAAAAAAAAAAAAAAAQ", MetadataTopicID.String())
	u, err := ParseUUID("ASNFZ4mr3wB-3LqYdlQP7g")
	require.NoError(t, err)
	require.Equal(t, "ASNFZ4mr3wB-3LqYdlQP7g", u.String())
	require.Equal(t, UUIDFromBits(u.MostSignificantBits(), u.LeastSignificantBits()), u)
	_, err = ParseUUID("short")
	require.Error(t, err)
	_, err = ParseUUID("AAAAAAAAAAAAAAAAAAAA!A")
	require.Error(t, err)
}

func TestTypeNames(t *testing.T) {
	require.Equal(t, "PARTITION_CHANGE_RECORD", TypePartitionChangeRecord.String())
	require.Equal(t, "ZK_MIGRATION_STATE_RECORD", TypeZkMigrationStateRecord.String())
	require.Equal(t, "NO_OP_RECORD", TypeNoOpRecord.String())
	require.Equal(t, "CLEAR_ELR_RECORD", TypeClearElrRecord.String())
	require.Equal(t, "UNKNOWN_RECORD_6", Type(6).String())
	require.Equal(t, "KRAFT_VOTERS", ControlKRaftVoters.String())
	require.Equal(t, "UNKNOWN", ControlType(9).String())
	tt, ok := TypeByName("REGISTER_CONTROLLER_RECORD")
	require.True(t, ok)
	require.Equal(t, TypeRegisterControllerRecord, tt)
	_, err := New(6)
	require.ErrorIs(t, err, ErrUnknownType)
	_, err = NewControl(ControlCommit)
	require.ErrorIs(t, err, ErrUnknownType)
	n := 0
	for i := Type(0); i < 40; i++ {
		if i.Known() {
			n++
		}
	}
	require.Equal(t, 27, n, "apiKeys 0-29 without 6, 13 and 16")
}

func TestControlKey(t *testing.T) {
	_, err := ControlKeyType([]byte{0, 0, 0})
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = ControlKeyType([]byte{0xff, 0xff, 0, 2})
	require.ErrorIs(t, err, ErrCorrupt)
	ct, err := ControlKeyType([]byte{0, 3, 0, 2, 9})
	require.NoError(t, err, "Kafka parses the type from any non-negative key version")
	require.Equal(t, ControlLeaderChange, ct)
	_, err = DecodeControl([]byte{0, 0, 0, 1}, []byte{0}, -1)
	require.ErrorIs(t, err, ErrUnknownType)
}

// TestTaggedFieldsMustAscend: a body whose tags do not strictly ascend is
// refused (Kafka's RawTaggedFieldWriter could not write it back).
func TestTaggedFieldsMustAscend(t *testing.T) {
	body := binary.BigEndian.AppendUint32(nil, 3)
	body = append(body, UUID{7}.bytes()...)
	body = append(body, 2, 5, 1, 1, 1, 4, 0, 0, 0, 4) // tag 5 then tag 1
	_, _, err := Decode(append(frame(1, 5, 0), body...))
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "tags must ascend")

	body = binary.BigEndian.AppendUint32(nil, 3)
	body = append(body, UUID{7}.bytes()...)
	body = append(body, 2, 40, 0, 40, 0) // unknown tag 40 twice
	_, _, err = Decode(append(frame(1, 5, 0), body...))
	require.ErrorIs(t, err, ErrCorrupt)
}
