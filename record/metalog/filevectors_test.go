package metalog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/record"
)

// codecLanded reports whether the generated codec is present: until it is,
// Decode and DecodeControl fail with ErrUnknownType for everything.
func codecLanded() bool { return record.ControlSnapshotHeader.Known() }

// TestControlVectorBatches reads every control batch written by Kafka's
// MemoryRecordsBuilder in vectors/records (one control record, baseOffset 0,
// partitionLeaderEpoch 7, timestamp 1700000000000) and rebuilds it with
// NewControlBatchBuilder.
func TestControlVectorBatches(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sharedtest.Vectors(t), "records", "*", "v*.batch.bin"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	verRE := regexp.MustCompile(`^v(\d+)`)
	for _, p := range files {
		dir, name := filepath.Dir(p), filepath.Base(p)
		t.Run(filepath.Base(dir)+"/"+name, func(t *testing.T) {
			raw, err := os.ReadFile(p)
			require.NoError(t, err)
			key, err := os.ReadFile(filepath.Join(dir, "key.bin"))
			require.NoError(t, err)
			value, err := os.ReadFile(filepath.Join(dir, strings.TrimSuffix(name, ".batch.bin")+".bin"))
			require.NoError(t, err)
			version := int16(atoi(verRE.FindStringSubmatch(name)[1]))

			var b Batch
			n, err := ParseBatch(raw, &b)
			require.NoError(t, err)
			assert.Equal(t, len(raw), n)
			assert.True(t, b.IsControl())
			assert.False(t, b.IsTransactional())
			assert.Equal(t, int64(0), b.BaseOffset)
			assert.Equal(t, int32(7), b.PartitionLeaderEpoch)
			assert.Equal(t, int64(1700000000000), b.AppendTime())
			assert.Equal(t, int64(1700000000000), b.BaseTimestamp)
			assert.Equal(t, int64(-1), b.ProducerID)
			require.Len(t, b.Entries, 1)
			assert.Equal(t, key, b.Entries[0].Key)
			assert.Equal(t, value, b.Entries[0].Value)
			assert.Equal(t, raw, AppendBatch(nil, &b))

			ct, err := b.Entries[0].ControlType()
			require.NoError(t, err)
			bb := NewControlBatchBuilder(0, 7, 1700000000000)
			require.NoError(t, bb.AppendControl(ct, value))
			built, err := bb.Build()
			require.NoError(t, err)
			assert.Equal(t, raw, built, "BatchBuilder writes Kafka's control batch")

			r, err := b.Entries[0].DecodeControlVersion(version)
			if !codecLanded() {
				assert.ErrorIs(t, err, record.ErrUnknownType)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, ct, r.ControlType())
			again, err := r.AppendBody(nil, version)
			require.NoError(t, err)
			assert.Equal(t, value, again)
		})
	}
}

var readmeLine = regexp.MustCompile(`^(\S+): (\d+) bytes, (\d+) batches, (\d+) data records`)

// scenarioCounts reads the "<file>: N bytes, B batches, R data records" lines
// of a vectors/snapshots scenario README.txt.
func scenarioCounts(t *testing.T, dir string) map[string][3]int {
	data, err := os.ReadFile(filepath.Join(dir, "README.txt"))
	require.NoError(t, err)
	out := map[string][3]int{}
	for _, l := range strings.Split(string(data), "\n") {
		if m := readmeLine.FindStringSubmatch(l); m != nil {
			out[m[1]] = [3]int{atoi(m[2]), atoi(m[3]), atoi(m[4])}
		}
	}
	return out
}

// TestVectorSnapshots reads the snapshots Kafka's RecordsSnapshotWriter wrote
// for the scenarios of vectors/snapshots and snapshots-4.4, their directories as a broker loads them, and the
// history logs.
func TestVectorSnapshots(t *testing.T) {
	for _, dir := range sharedtest.Scenarios(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			counts := scenarioCounts(t, dir)
			require.NotEmpty(t, counts)
			for rel, want := range counts {
				p := filepath.Join(dir, rel)
				st, err := os.Stat(p)
				require.NoError(t, err)
				assert.Equal(t, int64(want[0]), st.Size(), rel)
				got := readAll(t, p)
				assert.Equal(t, want[1], got.batches, rel)
				assert.Equal(t, want[2], got.dataR, rel)
			}

			d, err := OpenDir(OS{}, filepath.Join(dir, MetadataPartitionDir), Finished)
			require.NoError(t, err)
			defer d.Close()
			s := d.Snapshot()
			require.NotNil(t, s)
			assert.Equal(t, int64(1700000000000), s.LastContainedLogTimestamp())
			assert.Equal(t, int32(5), s.LastContainedLogEpoch())
			kv, hasKV := s.KRaftVersion()
			voters := s.Voters()
			if n := readmeVoters(t, dir); n > 0 {
				assert.True(t, hasKV)
				assert.Equal(t, int16(1), kv)
				require.NotNil(t, voters)
				assert.Len(t, voters.Voters, n)
			} else {
				assert.False(t, hasKV)
				assert.Nil(t, voters)
			}
			data := 0
			for {
				b, err := s.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				require.NoError(t, err)
				if !b.IsControl() {
					data += len(b.Entries)
				}
			}
			assert.Equal(t, counts[MetadataPartitionDir+"/"+s.ID().FileName()][2], data)
			// The segment in the directory ends before the snapshot does:
			// all of it is covered, nothing follows the snapshot.
			_, err = d.Next()
			assert.ErrorIs(t, err, io.EOF)
			assert.Equal(t, s.LastContainedLogOffset(), d.LastOffset())
			assert.Equal(t, []string{s.ID().FileName(), SegmentName(0)}, d.Files())
		})
	}
}

// readmeVoters counts the voters of the KRAFT_VOTERS control record that a
// scenario's README.txt lists for its checkpoint (0 without one: a
// kraft.version 0 snapshot).
func readmeVoters(t testing.TB, dir string) int {
	data, err := os.ReadFile(filepath.Join(dir, "README.txt"))
	require.NoError(t, err)
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(l, MetadataPartitionDir+"/") || !strings.Contains(l, SnapshotSuffix+":") {
			continue
		}
		_, rest, ok := strings.Cut(l, "KRAFT_VOTERS")
		if !ok {
			return 0
		}
		rest, _, _ = strings.Cut(rest, "SNAPSHOT_FOOTER")
		return strings.Count(rest, "Voter(voterId=")
	}
	t.Fatalf("%s/README.txt describes no checkpoint", dir)
	return 0
}

// snapshotInputs is what a snapshot file says about how it was written.
type snapshotInputs struct {
	id        SnapshotID
	opts      SnapshotWriterConfig
	times     []int64 // maxTimestamp of each batch, in order
	values    [][]byte
	dataSizes []int // records per data batch
}

func readSnapshotInputs(t testing.TB, path string, id SnapshotID) snapshotInputs {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	s, err := NewSnapshotReader(f, path, id)
	require.NoError(t, err)
	in := snapshotInputs{id: id}
	in.opts.LastContainedLogTimestamp = s.LastContainedLogTimestamp()
	if v, ok := s.KRaftVersion(); ok {
		in.opts.KRaftVersion = v
	}
	in.opts.Voters = s.Voters()
	for {
		b, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		in.times = append(in.times, b.MaxTimestamp)
		if !b.IsControl() {
			in.dataSizes = append(in.dataSizes, len(b.Entries))
			for _, e := range b.Entries {
				in.values = append(in.values, bytes.Clone(e.Value))
			}
		}
	}
	return in
}

// clock returns a Now that hands out times in order, as Kafka's Time did
// when the file was written.
func clock(t testing.TB, times []int64) func() int64 {
	i := 0
	return func() int64 {
		require.Less(t, i, len(times), "Now called more often than Kafka called Time")
		i++
		return times[i-1]
	}
}

// TestSnapshotWriterRoundTrip writes the records of every snapshot and
// bootstrap file Kafka wrote (corpus and vectors) back with SnapshotWriter /
// WriteBootstrap, with the same header timestamp, epoch and batch times, and
// expects Kafka's bytes.
func TestSnapshotWriterRoundTrip(t *testing.T) {
	var paths []string
	roots := sharedtest.Scenarios(t)
	for _, folder := range sharedtest.CorpusFolders(t) {
		roots = append(roots, folder.Root)
	}
	for _, root := range roots {
		require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, SnapshotSuffix) {
				paths = append(paths, p)
			}
			return err
		}))
	}
	require.GreaterOrEqual(t, len(paths), 15)
	for _, p := range paths {
		rel := strings.TrimPrefix(p, filepath.Dir(filepath.Dir(filepath.Dir(p)))+"/")
		t.Run(rel, func(t *testing.T) {
			want, err := os.ReadFile(p)
			require.NoError(t, err)
			name := filepath.Base(p)
			if name == BootstrapFileName {
				in := readSnapshotInputs(t, p, SnapshotID{})
				dir := t.TempDir()
				require.NoError(t, WriteBootstrap(OS{}, dir, in.values, clock(t, in.times)))
				got, err := os.ReadFile(filepath.Join(dir, BootstrapFileName))
				require.NoError(t, err)
				assert.Equal(t, want, got)
				return
			}
			id, err := ParseSnapshotName(name)
			require.NoError(t, err)
			in := readSnapshotInputs(t, p, id)
			assert.Equal(t, []int{len(in.values)}, in.dataSizes, "Kafka wrote one data batch")
			in.opts.Now = clock(t, in.times)
			dir := t.TempDir()
			w, err := CreateSnapshot(OS{}, dir, id, in.opts)
			require.NoError(t, err)
			require.NoError(t, w.Append(in.values...))
			size, err := w.Freeze()
			require.NoError(t, err)
			require.NoError(t, w.Close())
			assert.Equal(t, int64(len(want)), size)
			got, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			assert.Equal(t, want, got)
			left, _ := filepath.Glob(filepath.Join(dir, "*.part"))
			assert.Empty(t, left, "the .part file was renamed")
		})
	}
}

// TestSnapshotWriterPacking checks BatchAccumulator's packing for snapshots
// larger than a batch: records go one at a time into the current batch while
// header + records + the next record fit in the maximum batch size
// (BatchBuilder.bytesNeeded), and a new batch starts otherwise.
func TestSnapshotWriterPacking(t *testing.T) {
	for _, tc := range []struct {
		max, n, size int
	}{
		{max: 1024, n: 50, size: 100},
		{max: 1024, n: 7, size: 950},     // exactly one record per batch
		{max: 0, n: 9 << 10, size: 1000}, // 9 MiB at Kafka's 8 MiB limit
		{max: 4096, n: 3000, size: 1},
	} {
		t.Run(fmt.Sprintf("max%d_n%d_size%d", tc.max, tc.n, tc.size), func(t *testing.T) {
			max := tc.max
			if max == 0 {
				max = DefaultMaxBatchSize
			}
			// The packing, computed independently.
			var want []int
			cur, size := 0, BatchHeaderSize
			for i := 0; i < tc.n; i++ {
				rs := RecordSize(int32(cur), -1, tc.size)
				if size+rs > max {
					want = append(want, cur)
					cur, size = 0, BatchHeaderSize
					rs = RecordSize(0, -1, tc.size)
				}
				cur++
				size += rs
			}
			want = append(want, cur)

			var buf bytes.Buffer
			tick := int64(0)
			w, err := NewSnapshotWriter(&buf, SnapshotID{EndOffset: 100, Epoch: 3}, SnapshotWriterConfig{MaxBatchSize: tc.max, Now: func() int64 { tick++; return tick }})
			require.NoError(t, err)
			v := bytes.Repeat([]byte{1}, tc.size)
			for i := 0; i < tc.n; i += 1024 { // SnapshotEmitter's chunks
				k := min(1024, tc.n-i)
				vs := make([][]byte, k)
				for j := range vs {
					vs[j] = v
				}
				require.NoError(t, w.Append(vs...))
			}
			_, err = w.Freeze()
			require.NoError(t, err)

			s, err := NewSnapshotReader(bytes.NewReader(buf.Bytes()), "packed", SnapshotID{EndOffset: 100, Epoch: 3})
			require.NoError(t, err)
			var got []int
			var times []int64
			for {
				b, err := s.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				require.NoError(t, err)
				assert.LessOrEqual(t, b.Size(), max)
				assert.Equal(t, int32(3), b.PartitionLeaderEpoch)
				times = append(times, b.AppendTime())
				if !b.IsControl() {
					got = append(got, len(b.Entries))
				}
			}
			assert.Equal(t, want, got)
			for i := range times {
				assert.Equal(t, int64(i+1), times[i], "Now is called once per batch, in order")
			}
		})
	}
}
