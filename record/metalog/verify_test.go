package metalog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVerifyBatchBeingAppended: while a follower waits for the rest of a
// batch, Verify checks that the part it read is still in the file: after
// the raft client truncates it (UnifiedLog.truncateTo) and another batch is
// appended in its place, or after it is only truncated, Verify reports
// ErrLogChanged rather than let the reader wait for a length that is no
// longer there.
func TestVerifyBatchBeingAppended(t *testing.T) {
	for _, rewrite := range []bool{false, true} {
		dir := t.TempDir()
		next := writeSegment(t, dir, 0, 2)
		p := filepath.Join(dir, SegmentName(0))
		st, err := os.Stat(p)
		require.NoError(t, err)
		end := st.Size()
		batch := func(at int64) []byte {
			b := NewBatchBuilder(next, 1, at)
			require.NoError(t, b.Append(noop(t)))
			data, err := b.Build()
			require.NoError(t, err)
			return data
		}
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteAt(batch(2000)[:30], end)
		require.NoError(t, err)

		d, err := OpenDir(OS{}, dir, Follow)
		require.NoError(t, err)
		for {
			_, err := d.Next()
			if err != nil {
				require.ErrorIs(t, err, ErrIncompleteTail)
				break
			}
		}
		require.NoError(t, d.Verify())

		require.NoError(t, f.Truncate(end))
		if rewrite {
			_, err = f.WriteAt(batch(3000)[:40], end)
			require.NoError(t, err)
		}
		assert.ErrorIs(t, d.Verify(), ErrLogChanged, "rewrite %v", rewrite)
		f.Close()
		d.Close()
	}
}
