package kafkaoracle

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLinesReadsEnvDir: with KMETA_ORACLE_DIR set, Lines reads that
// directory's file line by line, and Decode decodes each line.
func TestLinesReadsEnvDir(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte("{\"a\":1}\n{\"a\":2}\n"))
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.jsonl.gz"), buf.Bytes(), 0o644))
	t.Setenv(EnvDir, dir)
	var got []int
	Decode(t, "x", func(n int, v *struct{ A int }) { got = append(got, n*10+v.A) })
	require.Equal(t, []int{11, 22}, got)
	require.Equal(t, "x:2", Name("x", 2))
}
