package metalog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/record"
)

// manifestRow is one row of the first table of a corpus folder's MANIFEST.md
// (../shared/corpus/kraft, kraft-2, kraft-4.3): what the corpus author
// counted in each file Kafka wrote.
type manifestRow struct {
	num                     int
	path                    string // under the corpus root
	batches, ctlB, dataB    int
	records, ctlR, dataR    int
	firstOffset, lastOffset int64
	hist                    map[string]int // "apiKey:version" -> count
	ctl                     map[string]int // "LeaderChange" -> count
}

var (
	repoCell   = regexp.MustCompile(`^\[([^/\]]+)/([^\]]+)\]`)
	countCell  = regexp.MustCompile(`^(\d+) \((\d+)/(\d+)\)$`)
	offsetCell = regexp.MustCompile(`^(\d+)\.\.(\d+)$`)
)

func readManifest(t testing.TB, root string) []manifestRow {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "MANIFEST.md"))
	require.NoError(t, err)
	defer f.Close()
	var rows []manifestRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") && len(rows) > 0 {
			break // only the first table
		}
		cells := strings.Split(line, " | ")
		if len(cells) < 13 || !strings.HasPrefix(line, "| ") {
			continue
		}
		num, err := strconv.Atoi(strings.TrimPrefix(cells[0], "| "))
		if err != nil {
			continue
		}
		m := repoCell.FindStringSubmatch(cells[1])
		require.NotNil(t, m, "repo cell %q", cells[1])
		r := manifestRow{num: num, path: filepath.Join(m[1]+"__"+m[2], strings.Trim(cells[3], "`"))}
		bm := countCell.FindStringSubmatch(cells[5])
		rm := countCell.FindStringSubmatch(cells[6])
		om := offsetCell.FindStringSubmatch(cells[8])
		require.NotNil(t, bm, cells[5])
		require.NotNil(t, rm, cells[6])
		require.NotNil(t, om, cells[8])
		r.batches, r.ctlB, r.dataB = atoi(bm[1]), atoi(bm[2]), atoi(bm[3])
		r.records, r.ctlR, r.dataR = atoi(rm[1]), atoi(rm[2]), atoi(rm[3])
		r.firstOffset, r.lastOffset = int64(atoi(om[1])), int64(atoi(om[2]))
		r.hist = parseCounts(cells[11])
		r.ctl = parseCounts(cells[12])
		rows = append(rows, r)
	}
	require.NoError(t, sc.Err())
	return rows
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

func parseCounts(cell string) map[string]int {
	out := map[string]int{}
	for _, f := range strings.Fields(cell) {
		k, v, ok := strings.Cut(f, "=")
		if ok {
			out[k] = atoi(v)
		}
	}
	return out
}

var ctlNames = map[int16]string{2: "LeaderChange", 3: "SnapshotHeader", 4: "SnapshotFooter", 5: "KRaftVersion", 6: "Voters"}

// frameKey is the "apiKey:version" of a data record value's frame.
func frameKey(v []byte) (string, error) {
	h, _, err := record.ReadFrameHeader(v)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d:%d", h.Type, h.Version), nil
}

// fileStats is what readAll counts in a file read with a BatchReader.
type fileStats struct {
	batches, ctlB, dataB int
	records, ctlR, dataR int
	first, last          int64
	hist, ctl            map[string]int
}

// readAll reads every batch of a file with a BatchReader, checks that each
// re-encodes to its own bytes, and counts.
func readAll(t testing.TB, path string) fileStats {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	st := fileStats{first: -1, hist: map[string]int{}, ctl: map[string]int{}}
	r := NewBatchReader(f, path, Finished)
	var enc []byte
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if st.first < 0 {
			st.first = b.BaseOffset
		}
		st.last = b.LastOffset()
		st.batches++
		st.records += len(b.Entries)
		if b.IsControl() {
			st.ctlB++
			st.ctlR += len(b.Entries)
			_, err := b.DecodeControlRecords()
			require.NoError(t, err, "control batch at offset %d", b.BaseOffset)
			for _, e := range b.Entries {
				ct, err := e.ControlType()
				require.NoError(t, err)
				st.ctl[ctlNames[int16(ct)]]++
			}
		} else {
			st.dataB++
			st.dataR += len(b.Entries)
			_, err := b.DecodeRecords()
			require.NoError(t, err, "data batch at offset %d", b.BaseOffset)
			for _, e := range b.Entries {
				k, err := frameKey(e.Value)
				require.NoError(t, err, "offset %d", e.Offset)
				st.hist[k]++
			}
		}
		enc = AppendBatch(enc[:0], b)
		orig := raw[b.Position : b.Position+int64(b.Size())]
		if !assert.Equal(t, orig, enc, "batch at byte %d re-encodes to other bytes", b.Position) {
			t.FailNow()
		}
	}
	assert.Equal(t, int64(len(raw)), r.Position(), "reader stopped before the end")
	return st
}

// corpusFiles lists the regular files of a corpus folder other than its
// MANIFEST.md, relative to the folder.
func corpusFiles(t testing.TB, root string) []string {
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && p != filepath.Join(root, "MANIFEST.md") {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	}))
	sort.Strings(out)
	return out
}

// TestCorpusManifest reads every file of every corpus folder (kraft,
// kraft-2, kraft-4.3) with a BatchReader and checks what its MANIFEST.md
// counted; each MANIFEST lists exactly the files of its folder.
func TestCorpusManifest(t *testing.T) {
	for _, folder := range sharedtest.CorpusFolders(t) {
		root := folder.Root
		rows := readManifest(t, root)
		var listed []string
		for _, row := range rows {
			listed = append(listed, row.path)
		}
		sort.Strings(listed)
		require.Equal(t, corpusFiles(t, root), listed, "%s/MANIFEST.md lists every file of the folder once", folder.Name)
		for _, row := range rows {
			t.Run(fmt.Sprintf("%s/%03d_%s", folder.Name, row.num, filepath.Base(row.path)), func(t *testing.T) {
				st := readAll(t, filepath.Join(root, row.path))
				assert.Equal(t, row.batches, st.batches, "batches")
				assert.Equal(t, row.ctlB, st.ctlB, "control batches")
				assert.Equal(t, row.dataB, st.dataB, "data batches")
				assert.Equal(t, row.records, st.records, "records")
				assert.Equal(t, row.ctlR, st.ctlR, "control records")
				assert.Equal(t, row.dataR, st.dataR, "data records")
				assert.Equal(t, row.firstOffset, st.first, "first offset")
				assert.Equal(t, row.lastOffset, st.last, "last offset")
				assert.Equal(t, row.hist, st.hist, "apiKey:version histogram")
				assert.Equal(t, row.ctl, st.ctl, "control record types")
			})
		}
	}
}

// TestCorpusFileReaders reads each corpus file with the reader made for its
// kind: segments with OpenSegment, snapshots with OpenSnapshot,
// bootstrap.checkpoint with ReadBootstrap.
func TestCorpusFileReaders(t *testing.T) {
	for _, folder := range sharedtest.CorpusFolders(t) {
		for _, row := range readManifest(t, folder.Root) {
			path := filepath.Join(folder.Root, row.path)
			t.Run(fmt.Sprintf("%s/%03d_%s", folder.Name, row.num, filepath.Base(path)), func(t *testing.T) {
				checkCorpusFile(t, path, row)
			})
		}
	}
}

func checkCorpusFile(t *testing.T, path string, row manifestRow) {
	name := filepath.Base(path)
	switch {
	case name == BootstrapFileName:
		es, err := ReadBootstrap(OS{}, path)
		require.NoError(t, err)
		assert.Len(t, es, row.dataR)
		for i, e := range es {
			assert.Equal(t, int64(1+i), e.Offset, "bootstrap records follow the header record")
		}
	case strings.HasSuffix(name, SegmentSuffix):
		s, err := OpenSegment(OS{}, path, Finished)
		require.NoError(t, err)
		defer s.Close()
		assert.Equal(t, row.firstOffset, s.BaseOffset())
		n, last := 0, int64(-1)
		for {
			b, err := s.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			n += len(b.Entries)
			last = b.LastOffset()
		}
		assert.Equal(t, row.records, n)
		assert.Equal(t, row.lastOffset, last)
	default:
		s, err := OpenSnapshot(OS{}, path)
		require.NoError(t, err)
		defer s.Close()
		id, err := ParseSnapshotName(name)
		require.NoError(t, err)
		assert.Equal(t, id.EndOffset-1, s.LastContainedLogOffset())
		assert.Equal(t, id.Epoch, s.LastContainedLogEpoch())
		_, ok := s.KRaftVersion()
		assert.Equal(t, row.ctl["KRaftVersion"] > 0, ok, "a KRaftVersion record exactly where MANIFEST.md counts one")
		n := 0
		for {
			b, err := s.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			assert.Equal(t, id.Epoch, b.PartitionLeaderEpoch, "snapshot batches carry the snapshot epoch")
			n += len(b.Entries)
		}
		assert.Equal(t, row.records, n)
	}
}

// dirIndexRow is a row of vectors/corpus-images/dirs/INDEX.tsv: what Kafka's
// own loader used in each corpus directory.
type dirIndexRow struct {
	files      []string
	lastOffset int64 // -1 when the column is empty (snapshot only)
}

func readDirIndex(t testing.TB, images string) map[string]dirIndexRow {
	p := filepath.Join(images, "dirs", "INDEX.tsv")
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	out := map[string]dirIndexRow{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		c := strings.Split(line, "\t")
		if i == 0 {
			require.Equal(t, "directory", c[0])
			require.Equal(t, "files_used", c[1])
			require.Equal(t, "last_offset_replayed", c[3])
			continue
		}
		r := dirIndexRow{files: strings.Split(c[1], ","), lastOffset: -1}
		if c[3] != "" {
			r.lastOffset = int64(atoi(c[3]))
		}
		out[c[0]] = r
	}
	return out
}

// TestCorpusDirs reads every __cluster_metadata-0 directory of every corpus
// folder as a broker loads it at start-up (KafkaMetadataLog,
// KafkaRaftClient, the metadata loader) and checks that the same files are
// chosen and the same last offset reached as by Kafka's own loader
// (corpus-images*/dirs/INDEX.tsv, which lists every directory).
func TestCorpusDirs(t *testing.T) {
	for _, folder := range sharedtest.CorpusFolders(t) {
		root := folder.Root
		index := readDirIndex(t, folder.Images)
		var dirs []string
		require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == MetadataPartitionDir {
				rel, _ := filepath.Rel(root, p)
				dirs = append(dirs, rel)
			}
			return nil
		}))
		sort.Strings(dirs)
		require.NotEmpty(t, dirs)
		checked := 0
		for _, rel := range dirs {
			t.Run(folder.Name+"/"+rel, func(t *testing.T) {
				d, err := OpenDir(OS{}, filepath.Join(root, rel), Finished)
				require.NoError(t, err)
				defer d.Close()
				if s := d.Snapshot(); s != nil {
					for {
						_, err := s.Next()
						if errors.Is(err, io.EOF) {
							break
						}
						require.NoError(t, err)
					}
				}
				next := d.StartOffset()
				for {
					b, err := d.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					require.NoError(t, err)
					require.Equal(t, next, b.BaseOffset, "offsets continue across batches and segments")
					next = b.NextOffset()
				}
				want, ok := index[rel]
				if !assert.True(t, ok, "directory not in %s/dirs/INDEX.tsv; chose %v, last offset %d", folder.Images, d.Files(), d.LastOffset()) {
					return
				}
				checked++
				assert.Equal(t, want.files, d.Files(), "files used")
				if want.lastOffset >= 0 {
					assert.Equal(t, want.lastOffset, d.LastOffset(), "last offset replayed")
				} else {
					assert.Equal(t, d.Snapshot().LastContainedLogOffset(), d.LastOffset())
				}
			})
		}
		assert.Equal(t, len(index), checked, "every %s/dirs/INDEX.tsv directory was read", folder.Images)
	}
}
