package delta

import (
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// TestReplayNewerMetadataVersion: a FeatureLevelRecord for a metadata.version
// level above the newest kmeta knows (4.4-IV2, level 33) is refused with
// ErrNewerVersion, naming the level, and leaves the delta unchanged, where
// Kafka's MetadataVersion.fromFeatureLevel throws "No MetadataVersion with
// feature level N"; every level from 3.0-IV1 to 4.4-IV2 is accepted. A level
// below 1 is rejected too, but is no newer Kafka's.
func TestReplayNewerMetadataVersion(t *testing.T) {
	fl := func(level int16) *record.FeatureLevelRecord {
		r := record.NewFeatureLevelRecord()
		r.Name, r.FeatureLevel = image.MetadataVersionFeature, level
		return r
	}
	for level := int16(1); level <= 33; level++ {
		d := New(nil)
		require.NoError(t, d.Replay(fl(level)), "level %d", level)
		mv, ok := d.MetadataVersionChanged()
		require.True(t, ok)
		require.Equal(t, image.MetadataVersion(level), mv)
	}
	for _, level := range []int16{34, 99, 32767} {
		d := New(nil)
		err := d.Replay(fl(level))
		require.ErrorIs(t, err, ErrNewerVersion, "level %d", level)
		require.ErrorIs(t, err, ErrRejected)
		var re *RecordError
		require.True(t, errors.As(err, &re))
		require.Equal(t, record.TypeFeatureLevelRecord, re.Record.Type())
		require.ErrorContains(t, err, "metadata.version feature level "+strconv.Itoa(int(level)))
		_, ok := d.MetadataVersionChanged()
		require.False(t, ok, "the delta is unchanged")
	}
	for _, level := range []int16{0, -1} {
		err := New(nil).Replay(fl(level))
		require.ErrorIs(t, err, ErrRejected)
		require.NotErrorIs(t, err, ErrNewerVersion)
	}
}
