package metalog

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/record"
)

// TestNewerRecordVersionAndType: a record version above the newest kmeta
// knows, or an apiKey kmeta does not know (as a newer Kafka may write), is an
// error naming the record's offset, type and version, from the batch decoder
// every reader uses (Kafka's MetadataRecordSerde throws "Unknown metadata id"
// and the generated classes "Can't read version N"). The version and type
// tables follow Kafka 4.4: RegisterBrokerRecord 0-4,
// BrokerRegistrationChangeRecord 0-3, UnregisterControllerRecord (29) 0.
func TestNewerRecordVersionAndType(t *testing.T) {
	for _, c := range []struct {
		key, version uint64
		want         []string
		err          error
	}{
		{0, 5, []string{"record at offset 7", "REGISTER_BROKER_RECORD version 5", "valid versions are 0-4"}, record.ErrUnsupportedVersion},
		{17, 4, []string{"record at offset 7", "BROKER_REGISTRATION_CHANGE_RECORD version 4", "valid versions are 0-3"}, record.ErrUnsupportedVersion},
		{29, 1, []string{"record at offset 7", "UNREGISTER_CONTROLLER_RECORD version 1", "valid versions are 0-0"}, record.ErrUnsupportedVersion},
		{30, 0, []string{"record at offset 7", "unknown metadata id 30"}, record.ErrUnknownType},
	} {
		b := NewBatchBuilder(7, 1, 0)
		require.NoError(t, b.Append(append(frame(1, c.key, c.version), 0, 0, 0, 1, 0)))
		raw, err := b.Build()
		require.NoError(t, err)
		var batch Batch
		_, err = ParseBatch(raw, &batch)
		require.NoError(t, err, "the batch itself is sound")
		_, err = batch.DecodeRecords()
		require.ErrorIs(t, err, c.err)
		for _, w := range c.want {
			require.ErrorContains(t, err, w)
		}
	}
	for key, v := range map[record.Type]int16{record.TypeRegisterBrokerRecord: 4, record.TypeBrokerRegistrationChangeRecord: 3, record.TypeUnregisterControllerRecord: 0} {
		r, err := record.New(key)
		require.NoError(t, err)
		require.Equal(t, v, r.HighestVersion(), "%s", key)
	}
	require.Equal(t, "UNREGISTER_CONTROLLER_RECORD", record.TypeUnregisterControllerRecord.String())
}

// frame is the uvarints of a record frame (and whatever follows it).
func frame(parts ...uint64) []byte {
	var b []byte
	for _, p := range parts {
		b = binary.AppendUvarint(b, p)
	}
	return b
}
