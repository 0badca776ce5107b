package delta

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

func apply(t *testing.T, base *image.Image, recs ...record.Record) *image.Image {
	t.Helper()
	d := New(base)
	for _, r := range recs {
		require.NoError(t, d.Replay(r))
	}
	img, err := d.Apply(image.EmptyProvenance)
	require.NoError(t, err)
	return img
}

// TestReplayCordonedLogDirs follows ClusterDelta.replay of Kafka 4.3
// (KIP-1066): a RegisterBrokerRecord v4 without the tag registers null
// cordoned directories; a BrokerRegistrationChangeRecord v3 with a non-null
// CordonedLogDirs replaces them, an empty list included (unlike an empty
// LogDirs, which means no change); a null one (every fence, unfence,
// controlled-shutdown or log-dir change) leaves them as they are.
func TestReplayCordonedLogDirs(t *testing.T) {
	a, b := record.UUID{2}, record.UUID{1}
	reg := record.NewRegisterBrokerRecord()
	reg.BrokerID, reg.BrokerEpoch, reg.LogDirs = 1, 10, []record.UUID{a, b}
	change := func(cordoned []record.UUID) *record.BrokerRegistrationChangeRecord {
		c := record.NewBrokerRegistrationChangeRecord()
		c.BrokerID, c.BrokerEpoch, c.CordonedLogDirs = 1, 10, cordoned
		return c
	}
	cordoned := func(img *image.Image) ([]record.UUID, bool) {
		br, ok := img.Cluster().Broker(1)
		require.True(t, ok)
		return br.CordonedDirectories()
	}
	img := apply(t, nil, reg)
	_, ok := cordoned(img)
	require.False(t, ok, "a registration without the tag has null cordoned directories")

	img = apply(t, img, change([]record.UUID{}))
	dirs, ok := cordoned(img)
	require.True(t, ok, "an empty list is applied")
	require.Empty(t, dirs)

	img = apply(t, img, change([]record.UUID{a, b}))
	dirs, _ = cordoned(img)
	require.Equal(t, []record.UUID{a, b}, dirs, "kept in the record's order")

	unfence := record.NewBrokerRegistrationChangeRecord()
	unfence.BrokerID, unfence.BrokerEpoch, unfence.Fenced = 1, 10, -1
	logDirs := record.NewBrokerRegistrationChangeRecord()
	logDirs.BrokerID, logDirs.BrokerEpoch, logDirs.LogDirs = 1, 10, []record.UUID{a}
	img = apply(t, img, unfence, change(nil), logDirs)
	dirs, _ = cordoned(img)
	require.Equal(t, []record.UUID{a, b}, dirs, "null CordonedLogDirs changes nothing")
	br, _ := img.Cluster().Broker(1)
	require.False(t, br.Fenced())
	require.Equal(t, []record.UUID{a}, br.Directories())

	// The same list again: BrokerRegistration.cloneWith returns the same
	// registration, so the delta records no broker change.
	d := New(img)
	require.NoError(t, d.Replay(change([]record.UUID{a, b})))
	require.Empty(t, d.Brokers().Changed)
	d = New(img)
	require.NoError(t, d.Replay(change([]record.UUID{b, a})))
	require.Equal(t, []int32{1}, d.Brokers().Changed, "another order is another list")

	// A re-registration starts again from the record (null without the tag).
	img = apply(t, img, reg)
	_, ok = cordoned(img)
	require.False(t, ok)

	wrong := change([]record.UUID{})
	wrong.BrokerEpoch = 11
	require.ErrorIs(t, New(img).Replay(wrong), ErrRejected, "another broker epoch")
}

// TestReplayUnregisterController follows ClusterDelta.replay(
// UnregisterControllerRecord) of Kafka 4.4 (KIP-1312): the controller leaves
// the image; an id with no registration is no error; a RegisterControllerRecord
// later in the same delta registers it again (last write wins).
func TestReplayUnregisterController(t *testing.T) {
	regc := func(id int32) *record.RegisterControllerRecord {
		r := record.NewRegisterControllerRecord()
		r.ControllerID, r.IncarnationID = id, record.UUID{byte(id)}
		return r
	}
	unreg := func(id int32) *record.UnregisterControllerRecord {
		r := record.NewUnregisterControllerRecord()
		r.ControllerID = id
		return r
	}
	img := apply(t, nil, regc(3000), regc(3001), regc(3002))
	require.Equal(t, 3, img.Cluster().NumControllers())
	img = apply(t, img, unreg(3002), unreg(4000))
	require.Equal(t, 2, img.Cluster().NumControllers())
	_, ok := img.Cluster().Controller(3002)
	require.False(t, ok)
	img = apply(t, img, unreg(3001), regc(3001))
	_, ok = img.Cluster().Controller(3001)
	require.True(t, ok, "re-registered later in the same delta")
	img = apply(t, img, regc(3002), unreg(3002))
	_, ok = img.Cluster().Controller(3002)
	require.False(t, ok, "unregistered after registering in the same delta")
}
