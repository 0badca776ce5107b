package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/record"
	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/record/metalog"
)

// level99 is a FeatureLevelRecord for a metadata.version no Kafka kmeta
// knows has: level 99.
func level99(t *testing.T) []byte {
	r := record.NewFeatureLevelRecord()
	r.Name, r.FeatureLevel = "metadata.version", 99
	v, err := record.Append(nil, r, 0)
	require.NoError(t, err)
	return v
}

// newerFiles writes the level-99 record as each kind of file metadump
// reads: a bootstrap.checkpoint (header, the record, footer: record offset
// 1), a snapshot (offset 1, after its header), a segment that holds only that record (offset 0) and a
// __cluster_metadata-0 directory with that segment. Every batch has a valid
// CRC (the readers check it). It returns path -> the record's offset.
func newerFiles(t *testing.T) map[string]int64 {
	now := func() int64 { return 1700000000000 }
	root := t.TempDir()
	boot := filepath.Join(root, "boot")
	require.NoError(t, os.Mkdir(boot, 0o755))
	require.NoError(t, metalog.WriteBootstrap(metalog.OS{}, boot, [][]byte{level99(t)}, now))
	es, err := metalog.ReadBootstrap(metalog.OS{}, filepath.Join(boot, metalog.BootstrapFileName))
	require.NoError(t, err, "the bootstrap file reads back: CRCs are valid")
	require.Len(t, es, 1)

	snapDir := filepath.Join(root, "snap")
	require.NoError(t, os.Mkdir(snapDir, 0o755))
	id := metalog.SnapshotID{EndOffset: 1, Epoch: 1}
	w, err := metalog.CreateSnapshot(metalog.OS{}, snapDir, id, metalog.SnapshotWriterConfig{LastContainedLogTimestamp: now(), Now: now})
	require.NoError(t, err)
	require.NoError(t, w.Append(level99(t)))
	_, err = w.Freeze()
	require.NoError(t, err)
	require.NoError(t, w.Close())

	dir := filepath.Join(root, metalog.MetadataPartitionDir)
	require.NoError(t, os.Mkdir(dir, 0o755))
	b := metalog.NewBatchBuilder(0, 1, now())
	require.NoError(t, b.Append(level99(t)))
	seg, err := b.Build()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, metalog.SegmentName(0)), seg, 0o644))
	return map[string]int64{
		filepath.Join(boot, metalog.BootstrapFileName): es[0].Offset,
		filepath.Join(snapDir, id.FileName()):          1, // after the SnapshotHeader
		filepath.Join(dir, metalog.SegmentName(0)):     0,
		dir: 0,
	}
}

// TestNewerMetadataVersionRefused: a file whose FeatureLevelRecord sets
// metadata.version to level 99 — written by a newer Kafka than kmeta knows
// (MetadataVersion.fromFeatureLevel would throw) — makes every mode that
// builds an image (-image, -image-records) exit non-zero with a message
// naming the file, the record's offset and type and level 99, never an
// image with a null metadata.version; the record dump still prints the
// record as it is.
func TestNewerMetadataVersionRefused(t *testing.T) {
	for path, off := range newerFiles(t) {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			for _, mode := range []string{"-image", "-image-records"} {
				out, errs, code := runDump(t, mode, path)
				require.NotEqual(t, 0, code, "%s exits non-zero", mode)
				require.Empty(t, out, "%s prints no image", mode)
				require.Contains(t, errs, path)
				require.Contains(t, errs, "record at offset "+itoa(off)+" (FEATURE_LEVEL_RECORD)")
				require.Contains(t, errs, "metadata.version feature level 99")
				require.Contains(t, errs, "newer Kafka")
			}
			out, errs, code := runDump(t, path)
			require.Equal(t, 0, code, errs)
			require.Equal(t, []string{`{"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":99}}`}, lines(out))
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestKafka43BootstrapImage: the bootstrap.checkpoint Kafka 4.3 wrote gives
// an image at metadata.version 4.3-IV0 (level 30).
func TestKafka43BootstrapImage(t *testing.T) {
	p := sharedtest.Path(t, "corpus", "kraft-4.3", "KS9602__KASYNO", "data", metalog.BootstrapFileName)
	out, errs, code := runDump(t, "-image", p)
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, `"metadataVersion": "4.3-IV0"`)
	require.Contains(t, out, `"metadataVersionLevel": 30`)
}

// TestNewerRecordVersionRefused: a segment holding a RegisterBrokerRecord of
// version 5 (kmeta, like Kafka 4.4, knows 0-4) or a record of apiKey 30
// makes every mode exit non-zero naming the file, the offset and the version
// or apiKey met: such a record cannot be decoded, so the dump cannot print
// it either.
func TestNewerRecordVersionRefused(t *testing.T) {
	for _, c := range []struct {
		value []byte
		want  string
	}{
		{[]byte{1, 0, 5, 0, 0, 0, 1}, "REGISTER_BROKER_RECORD version 5, valid versions are 0-4"},
		{[]byte{1, 30, 0, 0}, "unknown metadata id 30"},
	} {
		dir := filepath.Join(t.TempDir(), metalog.MetadataPartitionDir)
		require.NoError(t, os.Mkdir(dir, 0o755))
		b := metalog.NewBatchBuilder(0, 1, 1700000000000)
		require.NoError(t, b.Append(c.value))
		seg, err := b.Build()
		require.NoError(t, err)
		path := filepath.Join(dir, metalog.SegmentName(0))
		require.NoError(t, os.WriteFile(path, seg, 0o644))
		for _, args := range [][]string{{"-image", path}, {"-image-records", path}, {"-image", dir}, {path}} {
			_, errs, code := runDump(t, args...)
			require.NotEqual(t, 0, code, "%v", args)
			require.Contains(t, errs, "offset 0", "%v", args)
			require.Contains(t, errs, c.want, "%v", args)
			require.Contains(t, errs, filepath.Dir(path), "%v", args)
		}
	}
}

// TestImageCordonedDirsAndControllers: -image of the Kafka 4.3 and 4.4
// scenarios shows each broker's cordoned log directories (null, empty, one,
// two out of UUID order) and the registered controllers, the unregistered
// one gone, as Kafka's image node tree printed them (BrokerRegistration's
// cordonedDirectories, ClusterImage's controllers).
func TestImageCordonedDirsAndControllers(t *testing.T) {
	for _, sc := range []string{"mv-4.3-IV0-cordoned", "mv-4.4-IV2-unregistered-controller-cidr-acls"} {
		t.Run(sc, func(t *testing.T) {
			dir := sharedtest.Path(t, "vectors", "snapshots-4.4", sc, metalog.MetadataPartitionDir)
			snaps, err := filepath.Glob(filepath.Join(dir, "*.checkpoint.image.json"))
			require.NoError(t, err)
			require.Len(t, snaps, 1)
			data, err := os.ReadFile(snaps[0])
			require.NoError(t, err)
			var kafka struct {
				Cluster struct {
					Brokers     map[string]string `json:"brokers"`
					Controllers map[string]string `json:"controllers"`
				} `json:"cluster"`
			}
			require.NoError(t, json.Unmarshal(data, &kafka))

			out, errs, code := runDump(t, "-image", dir)
			require.Equal(t, 0, code, errs)
			var img struct {
				Brokers []struct {
					ID       int32     `json:"id"`
					Cordoned *[]string `json:"cordonedDirectories"`
				} `json:"brokers"`
				Controllers []struct {
					ID int32 `json:"id"`
				} `json:"controllers"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &img))
			require.Len(t, img.Brokers, len(kafka.Cluster.Brokers))
			for _, b := range img.Brokers {
				s := kafka.Cluster.Brokers[strconv.Itoa(int(b.ID))]
				_, want, ok := strings.Cut(s, "cordonedDirectories=")
				require.True(t, ok, s)
				want = strings.TrimSuffix(want, ")")
				got := "null"
				if b.Cordoned != nil {
					got = "[" + strings.Join(*b.Cordoned, ", ") + "]"
				}
				require.Equal(t, want, got, "broker %d", b.ID)
			}
			var ids []string
			for _, c := range img.Controllers {
				ids = append(ids, strconv.Itoa(int(c.ID)))
			}
			var want []string
			for id := range kafka.Cluster.Controllers {
				want = append(want, id)
			}
			sort.Strings(want)
			require.Equal(t, want, ids)
		})
	}
}
