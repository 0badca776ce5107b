package record

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/stretchr/testify/require"
)

// TestEnvelopeRoundTripOnKafkaLines parses every line of the JSON files Kafka's
// MetadataJsonConverters wrote for the vector scenarios and prints it back:
// the same text, byte for byte.
func TestEnvelopeRoundTripOnKafkaLines(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sharedtest.Vectors(t), "snapshots", "*", "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	lines := 0
	for _, f := range files {
		fh, err := os.Open(f)
		require.NoError(t, err)
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines++
			r, v, err := ParseEnvelopeJSON(sc.Bytes())
			require.NoError(t, err, "%s: %s", f, sc.Text())
			out, err := AppendEnvelopeJSON(nil, r, v)
			require.NoError(t, err)
			require.Equal(t, sc.Text(), string(out), f)
		}
		require.NoError(t, sc.Err())
		fh.Close()
	}
	require.Greater(t, lines, 1000)
}

func TestControlEnvelope(t *testing.T) {
	h := NewSnapshotHeaderRecord()
	h.LastContainedLogTimestamp = 1700000000000
	out, err := AppendControlEnvelopeJSON(nil, h, 0)
	require.NoError(t, err)
	require.Equal(t, `{"type":"SNAPSHOT_HEADER","version":0,"data":{"version":0,"lastContainedLogTimestamp":1700000000000}}`, string(out))
	back, v, err := ParseControlEnvelopeJSON(out)
	require.NoError(t, err)
	require.Equal(t, int16(0), v)
	require.Equal(t, h, back)

	_, _, err = ParseEnvelopeJSON([]byte(`{"type":"NOT_A_RECORD","version":0,"data":{}}`))
	require.ErrorIs(t, err, ErrUnknownType)
	_, _, err = ParseEnvelopeJSON([]byte(`{"type":"TOPIC_RECORD","data":{}}`))
	require.Error(t, err)
	_, _, err = ParseEnvelopeJSON([]byte(`{"type":"TOPIC_RECORD","version":0,"data":{"name":"a"}}`))
	require.ErrorContains(t, err, "topicId", "a mandatory field is missing")
}
