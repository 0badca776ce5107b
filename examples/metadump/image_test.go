package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/image/imagetest"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/stretchr/testify/require"
)

// okRows returns the paths of the ok rows of a corpus-images index.
func okRows(t *testing.T, index string) []string {
	f, err := os.Open(index)
	require.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Scan()
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		for _, v := range c[1:] {
			if v == "ok" {
				out = append(out, c[0])
				break
			}
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// TestImageRecordsEqualKafka: `metadump -unredacted -image-records PATH`
// prints, for every file and every directory of every corpus folder that
// Kafka's own code loaded (vectors/corpus-images, corpus-images-2,
// corpus-images-4.3), the image Kafka built, compared as vectors/README.md
// says (one record dropped, two arrays sorted, a multiset).
func TestImageRecordsEqualKafka(t *testing.T) {
	for _, folder := range sharedtest.CorpusFolders(t) {
		for _, index := range []string{filepath.Join(folder.Images, "INDEX.tsv"), filepath.Join(folder.Images, "dirs", "INDEX.tsv")} {
			rows := okRows(t, index)
			require.NotEmpty(t, rows)
			for _, p := range rows {
				t.Run(folder.Name+"/"+p, func(t *testing.T) {
					want := imagetest.ReadLines(t, filepath.Join(filepath.Dir(index), p+".image-records.jsonl"))
					out, errs, code := runDump(t, "-unredacted", "-image-records", filepath.Join(folder.Root, p))
					require.Equal(t, 0, code, errs)
					if d := imagetest.DiffMultiset(imagetest.Normalize(t, want), imagetest.Normalize(t, lines(out))); d != "" {
						t.Fatal(d)
					}
				})
			}
		}
	}
}

// TestImageJSON: -image prints one JSON document with every part of the
// image, redacted unless -unredacted.
func TestImageJSON(t *testing.T) {
	dir := sharedtest.Path(t, "vectors", "snapshots", "mv-4.0-IV0-kraft0", "__cluster_metadata-0")
	out, errs, code := runDump(t, "-image", dir)
	require.Equal(t, 0, code, errs)
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	for _, k := range []string{"provenance", "features", "brokers", "controllers", "topics", "configs", "clientQuotas", "nextProducerId", "acls", "scramCredentials", "delegationTokens"} {
		_, ok := doc[k]
		require.True(t, ok, "no %q in the image JSON", k)
	}
	var topics []json.RawMessage
	require.NoError(t, json.Unmarshal(doc["topics"], &topics))
	require.Len(t, topics, 50)
	require.Contains(t, out, "[redacted]")
	clear, _, code := runDump(t, "-unredacted", "-image", dir)
	require.Equal(t, 0, code)
	require.NotContains(t, clear, "[redacted]")
}
