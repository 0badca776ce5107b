package record

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDecoderMatchesDecode decodes every record vector twice, once with the
// reusing Decoder and once with Decode, and checks the two records are equal at each step, so reuse never leaks one
// record's fields into the next (longer or shorter arrays, null after empty). metalog's
// TestDecoderMatchesDecodeSnapshot does the same over a corpus snapshot.
func TestDecoderMatchesDecode(t *testing.T) {
	var values [][]byte
	dir, rows := readVectorIndex(t)
	for _, row := range rows {
		if row.kind == "metadata" {
			b, err := os.ReadFile(filepath.Join(dir, row.file))
			require.NoError(t, err)
			values = append(values, b)
		}
	}
	// Vectors again in reverse: null, defaults and full cases follow each
	// other in both orders.
	for i := len(values) - 1; i >= 0; i-- {
		values = append(values, values[i])
	}
	var d Decoder
	for i, v := range values {
		want, wv, err := Decode(v)
		require.NoError(t, err)
		got, gv, err := d.Decode(v)
		require.NoError(t, err)
		require.Equal(t, wv, gv)
		require.Equal(t, want, got, "value %d", i)
		enc, err := Append(nil, got, gv)
		require.NoError(t, err)
		require.Equal(t, v, enc)
	}
	_, _, err := d.Decode([]byte{1, 2, 0, 0})
	require.ErrorIs(t, err, ErrCorrupt)
}

func TestDecoderReusesSlices(t *testing.T) {
	p := NewPartitionRecord()
	p.Replicas, p.ISR = []int32{1, 2, 3}, []int32{1, 2, 3}
	v, err := Append(nil, p, 0)
	require.NoError(t, err)
	var d Decoder
	_, _, err = d.Decode(v)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(100, func() {
		if _, _, err := d.Decode(v); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, allocs, "a PartitionRecord without strings decodes with no allocation")
}
