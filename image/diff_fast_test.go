package image_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
)

// rebuilt is img replayed from its own records into a fresh image: equal,
// but sharing no component and no topic with img, so that Diff of rebuilt
// images takes no shortcut.
func rebuilt(t *testing.T, img *image.Image) *image.Image {
	t.Helper()
	recs, err := img.Records(image.WriteOptions{})
	require.NoError(t, err)
	d := delta.NewSnapshot(image.Empty())
	for _, r := range recs {
		require.NoError(t, d.Replay(r.Record))
	}
	d.FinishSnapshot()
	out, err := d.Apply(img.Provenance())
	require.NoError(t, err)
	return out
}

// TestDiffFastPathSeed7 compares Diff of images one step apart in a
// simulated cluster (brokers fenced and back, ISRs shrunk, topics created
// and deleted, configs, SCRAM users, the ELR feature turned on: KIP-966)
// with Diff of the same images rebuilt so that they share nothing: what
// the shortcut skips (shared components and topics, equal partitions)
// never hides a difference.
func TestDiffFastPathSeed7(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	s := deltatest.MustNew(deltatest.Config{Seed: 7})
	require.NoError(t, s.AddBrokers(4, "a", "b"))
	s.MustCreateTopic("t0", 40, 3)
	opts := image.DiffOptions{Sensitive: redact.IsSensitive}
	prev := s.Image()
	crashed := int32(1)
	for step := range 40 {
		switch step % 8 {
		case 0:
			crashed = int32(rng.IntN(4) + 1)
			require.NoError(t, s.CrashBroker(crashed))
			require.NoError(t, s.Advance(12*time.Second))
		case 1:
			require.NoError(t, s.RegisterBroker(deltatest.BrokerSpec{ID: crashed, Rack: "a"}))
			require.NoError(t, s.Advance(3*time.Second))
		case 2:
			s.MustCreateTopic(fmt.Sprintf("n%d", step), 1+rng.IntN(8), 3)
		case 3:
			require.NoError(t, s.SetTopicConfig("t0", "retention.ms", fmt.Sprint(step)))
		case 4:
			require.NoError(t, s.UpsertScramCredential("alice", 1, 4096+int32(step), "pw"))
		case 5:
			if step == 21 {
				require.NoError(t, s.SetFeature(image.ELRFeature, 1))
			}
		default:
			require.NoError(t, s.Advance(time.Second))
		}
		cur := s.Image()
		fast, n := image.DiffTotal(prev, cur, opts)
		slow := image.Diff(rebuilt(t, prev), rebuilt(t, cur), opts)
		assert.Equal(t, slow, fast, "step %d", step)
		assert.Len(t, fast, n, "step %d", step)
		assert.Empty(t, image.Diff(cur, cur, opts))
		assert.Equal(t, slow, image.Diff(prev, rebuilt(t, cur), opts), "step %d: one side rebuilt", step)
		prev = cur
	}
}

// TestDiffLimitAndKinds: Limit keeps the first differences in Diff's order
// and DiffTotal still counts all of them; Kinds compares only the kinds
// named.
func TestDiffLimitAndKinds(t *testing.T) {
	s := deltatest.MustNew(deltatest.Config{Seed: 1})
	require.NoError(t, s.AddBrokers(3, "a"))
	s.MustCreateTopic("orders", 12, 3)
	img := s.Image()
	all := image.Diff(nil, img, image.DiffOptions{})
	require.Greater(t, len(all), 10)
	got, n := image.DiffTotal(nil, img, image.DiffOptions{Limit: 5})
	assert.Equal(t, all[:5], got)
	assert.Equal(t, len(all), n)
	parts, n := image.DiffTotal(nil, img, image.DiffOptions{Kinds: []image.DiffKind{image.DiffPartition}})
	assert.Len(t, parts, 12)
	assert.Equal(t, 12, n)
	for _, d := range parts {
		assert.Equal(t, image.DiffPartition, d.Kind)
	}
	brokers := image.Diff(nil, img, image.DiffOptions{Kinds: []image.DiffKind{image.DiffBroker, image.DiffTopic}})
	assert.Len(t, brokers, 4)
}
