package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/stretchr/testify/require"
)

// vectorRow is one row of ../shared/vectors/records/INDEX-4.4.tsv (the
// vectors of every record version up to Kafka 4.4): a record encoded by
// Kafka's own generated classes (MetadataRecordSerde for metadata
// records, the message classes for control values).
type vectorRow struct {
	file, record, kind string
	key, version       int16
	cas                string
}

func readVectorIndex(t *testing.T) (string, []vectorRow) {
	dir := filepath.Join(sharedtest.Vectors(t), "records")
	f, err := os.Open(filepath.Join(dir, "INDEX-4.4.tsv"))
	require.NoError(t, err)
	defer f.Close()
	var rows []vectorRow
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		require.Len(t, c, 7, sc.Text())
		key, err := strconv.Atoi(c[3])
		require.NoError(t, err)
		ver, err := strconv.Atoi(c[4])
		require.NoError(t, err)
		rows = append(rows, vectorRow{c[0], c[1], c[2], int16(key), int16(ver), c[5]})
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, rows)
	return dir, rows
}

// compactJSON compacts Kafka's pretty-printed JSON so that it can be compared
// with ours byte for byte (a stronger check than JSON equality: field order
// and number forms match too).
func compactJSON(t *testing.T, b []byte) string {
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, b))
	return buf.String()
}

// TestMetadataRecordVectors checks every metadata record vector Kafka's
// MetadataRecordSerde wrote: decode gives Kafka's JsonConverter output,
// re-encoding gives the same bytes, and the record parsed from Kafka's JSON
// encodes to the same bytes.
func TestMetadataRecordVectors(t *testing.T) {
	dir, rows := readVectorIndex(t)
	seen := map[Type]map[int16]bool{}
	n := 0
	for _, row := range rows {
		if row.kind != "metadata" {
			continue
		}
		n++
		t.Run(row.file, func(t *testing.T) {
			bin, err := os.ReadFile(filepath.Join(dir, row.file))
			require.NoError(t, err)
			want, err := os.ReadFile(filepath.Join(dir, strings.TrimSuffix(row.file, ".bin")+".json"))
			require.NoError(t, err)

			rec, ver, err := Decode(bin)
			require.NoError(t, err)
			require.Equal(t, Type(row.key), rec.Type())
			require.Equal(t, row.version, ver)
			require.Equal(t, row.record, strings.TrimPrefix(typeName(rec), "*record."))
			if seen[rec.Type()] == nil {
				seen[rec.Type()] = map[int16]bool{}
			}
			seen[rec.Type()][ver] = true

			got, err := rec.AppendJSON(nil, ver)
			require.NoError(t, err)
			require.Equal(t, compactJSON(t, want), string(got))

			again, err := Append(nil, rec, ver)
			require.NoError(t, err)
			require.Equal(t, bin, again, "re-encoding")
			size, err := Size(rec, ver)
			require.NoError(t, err)
			require.Equal(t, len(bin), size)

			fromJSON, err := New(rec.Type())
			require.NoError(t, err)
			require.NoError(t, fromJSON.UnmarshalJSONVersion(want, ver))
			enc, err := Append(nil, fromJSON, ver)
			require.NoError(t, err)
			require.Equal(t, bin, enc, "encoding the record parsed from Kafka's JSON")

			if row.cas == "defaults" {
				def, err := New(rec.Type())
				require.NoError(t, err)
				enc, err := Append(nil, def, ver)
				require.NoError(t, err)
				require.Equal(t, bin, enc, "New gives Kafka's defaults")
			}
		})
	}
	require.Greater(t, n, 0)
	// Every metadata record type at every valid version has a vector.
	for key, name := range recordTypeNames {
		if name == "" {
			continue
		}
		lo, hi := recordVersionRanges[key][0], recordVersionRanges[key][1]
		for v := lo; v <= hi; v++ {
			require.True(t, seen[Type(key)][v], "no vector for %s v%d", name, v)
		}
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }

// TestControlRecordVectors checks the KRaft control record values Kafka's
// message classes wrote, decoded at the version their file names give.
func TestControlRecordVectors(t *testing.T) {
	dir, rows := readVectorIndex(t)
	n := 0
	for _, row := range rows {
		if row.kind != "control-value" {
			continue
		}
		n++
		t.Run(row.file, func(t *testing.T) {
			bin, err := os.ReadFile(filepath.Join(dir, row.file))
			require.NoError(t, err)
			key, err := os.ReadFile(filepath.Join(dir, filepath.Dir(row.file), "key.bin"))
			require.NoError(t, err)
			want, err := os.ReadFile(filepath.Join(dir, strings.TrimSuffix(row.file, ".bin")+".json"))
			require.NoError(t, err)

			ct, err := ControlKeyType(key)
			require.NoError(t, err)
			require.Equal(t, ControlType(row.key), ct)
			require.Equal(t, key, AppendControlKey(nil, ct))

			rec, err := DecodeControl(key, bin, row.version)
			require.NoError(t, err)
			require.Equal(t, ct, rec.ControlType())
			got, err := rec.AppendJSON(nil, row.version)
			require.NoError(t, err)
			require.Equal(t, compactJSON(t, want), string(got))
			again, err := rec.AppendBody(nil, row.version)
			require.NoError(t, err)
			require.Equal(t, bin, again)

			fromJSON, err := NewControl(ct)
			require.NoError(t, err)
			require.NoError(t, fromJSON.UnmarshalJSONVersion(want, row.version))
			enc, err := fromJSON.AppendBody(nil, row.version)
			require.NoError(t, err)
			require.Equal(t, bin, enc)

			if row.version == 0 {
				// Kafka's reader assumes version 0 when none is given.
				def, err := DecodeControl(key, bin, -1)
				require.NoError(t, err)
				require.Equal(t, rec, def)
			}
		})
	}
	require.Equal(t, 12, n)
}
