package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/record"
	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/record/metalog"
)

func runDump(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func lines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// TestDumpMatchesKafkaJSON: for each vector scenario (snapshots and
// snapshots-4.4), the history log dumps to
// exactly the lines Kafka's MetadataJsonConverters printed
// (history-records.jsonl), and the checkpoint to snapshot-records.jsonl, in
// the same order.
func TestDumpMatchesKafkaJSON(t *testing.T) {
	scenarios := sharedtest.Scenarios(t)
	n := 0
	for _, sc := range scenarios {
		if st, err := os.Stat(sc); err != nil || !st.IsDir() {
			continue
		}
		n++
		t.Run(filepath.Base(sc), func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(sc, "history-records.jsonl"))
			require.NoError(t, err)
			out, errs, code := runDump(t, "-unredacted", filepath.Join(sc, "history", "00000000000000000000.log"))
			require.Equal(t, 0, code, errs)
			require.Equal(t, lines(string(want)), lines(out))

			cps, _ := filepath.Glob(filepath.Join(sc, "__cluster_metadata-0", "*.checkpoint"))
			require.Len(t, cps, 1)
			want, err = os.ReadFile(filepath.Join(sc, "snapshot-records.jsonl"))
			require.NoError(t, err)
			out, errs, code = runDump(t, "-unredacted", cps[0])
			require.Equal(t, 0, code, errs)
			require.Equal(t, lines(string(want)), lines(out))

			// Redacted by default: the scenarios hold SCRAM users, a token and
			// a PASSWORD-typed broker config.
			red, _, code := runDump(t, cps[0])
			require.Equal(t, 0, code)
			require.Len(t, lines(red), len(lines(out)))
			require.Contains(t, red, `"salt":"[redacted]"`)
			require.NotContains(t, red, `"salt":"`+strings.Split(strings.SplitAfter(out, `"salt":"`)[1], `"`)[0]+`"`)
			require.Contains(t, red, `"owner":"[redacted]"`)
		})
	}
	require.Equal(t, 5, n)
}

func TestControlBatchesAndSummary(t *testing.T) {
	sc := sharedtest.Path(t, "vectors", "snapshots", "mv-4.0-IV0-kraft1-voters")
	cps, _ := filepath.Glob(filepath.Join(sc, "__cluster_metadata-0", "*.checkpoint"))
	require.Len(t, cps, 1)

	out, _, code := runDump(t, "-control", cps[0])
	require.Equal(t, 0, code)
	ls := lines(out)
	require.True(t, strings.HasPrefix(ls[0], `{"type":"SNAPSHOT_HEADER","version":0,"data":{"version":0,"lastContainedLogTimestamp":`), ls[0])
	require.True(t, strings.HasPrefix(ls[1], `{"type":"KRAFT_VERSION"`), ls[1])
	require.True(t, strings.HasPrefix(ls[2], `{"type":"KRAFT_VOTERS"`), ls[2])
	require.Equal(t, `{"type":"SNAPSHOT_FOOTER","version":0,"data":{"version":0}}`, ls[len(ls)-1])

	out, _, code = runDump(t, "-batches", cps[0])
	require.Equal(t, 0, code)
	ls = lines(out)
	require.Len(t, ls, 3)
	require.Contains(t, ls[0], "baseOffset: 0 ")
	require.Contains(t, ls[0], "control: true")
	require.Contains(t, ls[1], "data: true")
	require.Contains(t, ls[1], "partitionLeaderEpoch: 5")

	out, _, code = runDump(t, "-summary", cps[0])
	require.Equal(t, 0, code)
	require.Contains(t, out, "batches 3 (control 2, data 1)")
	require.Contains(t, out, "PARTITION_RECORD v1                          393")
	require.Contains(t, out, "SNAPSHOT_HEADER")
}

// TestDumpDamage: a cut file prints every record before the damage, then
// fails naming the file, the byte position and the offset of the bad batch.
func TestDumpDamage(t *testing.T) {
	src := filepath.Join(sharedtest.Vectors(t), "snapshots", "mv-4.0-IV0-kraft0", "history", "00000000000000000000.log")
	full, err := os.ReadFile(src)
	require.NoError(t, err)
	fullOut, _, code := runDump(t, "-unredacted", src)
	require.Equal(t, 0, code)

	// Find the start of the third batch by reading the batches.
	out, _, _ := runDump(t, "-batches", src)
	var pos3, off3 string
	for i, l := range lines(out) {
		if i == 2 {
			f := strings.Fields(l)
			for j := range f {
				if f[j] == "position:" {
					pos3 = f[j+1]
				}
				if f[j] == "baseOffset:" {
					off3 = f[j+1]
				}
			}
		}
	}
	require.NotEmpty(t, pos3)
	p, err := strconv.Atoi(pos3)
	require.NoError(t, err)

	damaged := append([]byte(nil), full...)
	damaged[p+70] ^= 0xff // inside the third batch's records, covered by its CRC
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	require.NoError(t, os.WriteFile(path, damaged, 0o644))
	got, errs, code := runDump(t, "-unredacted", path)
	require.Equal(t, 1, code)
	require.Contains(t, errs, path)
	require.Contains(t, errs, "byte "+pos3)
	require.Contains(t, errs, "offset "+off3)
	require.True(t, strings.HasPrefix(fullOut, got), "the output before the damage is the undamaged output's prefix")
	o, err := strconv.Atoi(off3)
	require.NoError(t, err)
	require.Len(t, lines(got), countDataRecordsBefore(t, src, int64(o)))
}

func countDataRecordsBefore(t *testing.T, path string, offset int64) int {
	s, err := metalog.OpenSegment(metalog.OS{}, path, metalog.Finished)
	require.NoError(t, err)
	defer s.Close()
	n := 0
	for {
		b, err := s.Next()
		if err != nil || b.BaseOffset >= offset {
			return n
		}
		if !b.IsControl() {
			n += len(b.Entries)
		}
	}
}

func TestRedactionFollowsKafkaCriteria(t *testing.T) {
	pw := record.NewConfigRecord()
	pw.ResourceType = 4
	pw.Name = "ssl.keystore.password"
	v := "hunter2"
	pw.Value = &v
	plain := record.NewConfigRecord()
	plain.ResourceType = 2
	plain.ResourceName = "orders"
	plain.Name = "retention.ms"
	v2 := "1000"
	plain.Value = &v2
	unknown := record.NewConfigRecord()
	unknown.ResourceType = 2
	unknown.Name = "no.such.config"
	unknown.Value = &v2
	deleted := record.NewConfigRecord()
	deleted.ResourceType = 4
	deleted.Name = "ssl.keystore.password"
	deleted.Value = nil // a deletion: nothing to hide

	dir := t.TempDir()
	w, err := metalog.CreateSegment(metalog.OS{}, dir, 0)
	require.NoError(t, err)
	var vals [][]byte
	for _, r := range []record.Record{pw, plain, unknown, deleted} {
		b, err := record.Append(nil, r, 0)
		require.NoError(t, err)
		vals = append(vals, b)
	}
	_, err = w.AppendData(1, 1700000000000, vals...)
	require.NoError(t, err)
	require.NoError(t, w.Close())

	out, errs, code := runDump(t, w.Path())
	require.Equal(t, 0, code, errs)
	ls := lines(out)
	require.Len(t, ls, 4)
	require.Contains(t, ls[0], `"name":"ssl.keystore.password","value":"[redacted]"`)
	require.Contains(t, ls[1], `"value":"1000"`)
	require.Contains(t, ls[2], `"value":"[redacted]"`, "configs Kafka does not know are hidden")
	require.Contains(t, ls[3], `"value":null`)

	out, _, _ = runDump(t, "-unredacted", w.Path())
	require.Contains(t, out, "hunter2")
}

func TestUsage(t *testing.T) {
	_, errs, code := runDump(t)
	require.Equal(t, 2, code)
	require.Contains(t, errs, "usage")
	_, errs, code = runDump(t, filepath.Join(t.TempDir(), "missing.log"))
	require.Equal(t, 1, code)
	require.Contains(t, errs, "missing.log")
}

// TestDumpDirectory: a directory dumps as a broker loads it, the latest
// snapshot's records first, then the log records after the snapshot.
func TestDumpDirectory(t *testing.T) {
	dir := sharedtest.Path(t, "corpus", "kraft", "rjmfernandes__flink-on-prem", "data", "__cluster_metadata-0")
	snapOut, _, code := runDump(t, "-unredacted", filepath.Join(dir, "00000000000000014926-0000000001.checkpoint"))
	require.Equal(t, 0, code)
	out, errs, code := runDump(t, "-unredacted", filepath.Dir(dir)) // the log dir holding __cluster_metadata-0
	require.Equal(t, 0, code, errs)
	require.True(t, strings.HasPrefix(out, snapOut))
	logOut, _, code := runDump(t, "-unredacted", filepath.Join(dir, "00000000000000000000.log"))
	require.Equal(t, 0, code)
	all := lines(logOut)
	// The segment holds offsets 0..17026 and the snapshot ends at 14926: the
	// records of the log after the snapshot are the segment's tail.
	tail := lines(strings.TrimPrefix(out, snapOut))
	require.NotEmpty(t, tail)
	require.Equal(t, all[len(all)-len(tail):], tail)

	sum, _, code := runDump(t, "-summary", dir)
	require.Equal(t, 0, code)
	require.Contains(t, sum, "offsets 0..17026")
}
