package metalog

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/record"
)

// batchTrace is what a DirReader delivered: the files it chose, then each
// snapshot and log batch as file, position, base offset and CRC.
func batchTrace(t *testing.T, d *DirReader) []string {
	t.Helper()
	out := append([]string(nil), d.Files()...)
	if s := d.Snapshot(); s != nil {
		for {
			b, err := s.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			out = append(out, filepath.Base(s.Name())+" "+itoa(b.Position)+" "+itoa(b.BaseOffset)+" "+itoa(int64(b.CRC)))
		}
	}
	for {
		b, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		file, _, _ := d.Position()
		out = append(out, filepath.Base(file)+" "+itoa(b.Position)+" "+itoa(b.BaseOffset)+" "+itoa(int64(b.CRC)))
	}
	return out
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// TestOpenDirFSMatchesOS: every corpus directory read through
// FromIOFS(os.DirFS) and from a MemFS copy delivers what it delivers through
// OS{}, batch for batch, and names files under the directory it was given.
func TestOpenDirFSMatchesOS(t *testing.T) {
	for _, folder := range sharedtest.CorpusFolders(t) {
		var dirs []string
		require.NoError(t, filepath.WalkDir(folder.Root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == MetadataPartitionDir {
				rel, _ := filepath.Rel(folder.Root, p)
				dirs = append(dirs, filepath.ToSlash(rel))
			}
			return err
		}))
		sort.Strings(dirs)
		require.NotEmpty(t, dirs)
		for _, rel := range dirs {
			t.Run(folder.Name+"/"+rel, func(t *testing.T) {
				d, err := OpenDir(OS{}, filepath.Join(folder.Root, filepath.FromSlash(rel)), Finished)
				require.NoError(t, err)
				want := batchTrace(t, d)
				require.NoError(t, d.Close())

				d, err = OpenDir(FromIOFS(os.DirFS(folder.Root)), rel, Finished)
				require.NoError(t, err)
				require.Equal(t, want, batchTrace(t, d))
				require.NoError(t, d.Close())

				var mem MemFS
				ents, err := os.ReadDir(filepath.Join(folder.Root, filepath.FromSlash(rel)))
				require.NoError(t, err)
				for _, e := range ents {
					if e.IsDir() {
						continue
					}
					b, err := os.ReadFile(filepath.Join(folder.Root, filepath.FromSlash(rel), e.Name()))
					require.NoError(t, err)
					require.NoError(t, mem.WriteFile("m/"+e.Name(), b))
				}
				d, err = OpenDir(&mem, "m", Follow)
				require.NoError(t, err)
				require.Equal(t, want, batchTrace(t, d))
				require.NoError(t, d.Verify())
				file, _, _ := d.Position()
				require.True(t, strings.HasPrefix(file, "m/") || file == "m", "position names %q", file)
				require.NoError(t, d.Close())
			})
		}
	}
}

func noOp(t *testing.T, offset int64) []byte {
	t.Helper()
	b := NewBatchBuilder(offset, 1, 1000+offset)
	require.NoError(t, b.AppendRecord(record.NewNoOpRecord(), 0))
	out, err := b.Build()
	require.NoError(t, err)
	return out
}

// drain reads batches until io.EOF and returns their base offsets.
func drain(t *testing.T, d *DirReader) []int64 {
	t.Helper()
	var out []int64
	for {
		b, err := d.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		out = append(out, b.BaseOffset)
	}
}

// TestMemFSFollow: a live directory in memory, through the states Kafka's
// log layer leaves it in: a directory with no segment yet (the segment
// UnifiedLog creates at the log start offset appears), appends to the
// active segment, a batch half written, a roll (UnifiedLog.roll), and the
// changes Verify reports (DirReader.Verify): truncation
// (UnifiedLog.truncateTo), a segment replaced under its name, a segment
// deleted (UnifiedLog.deleteOldSegments).
func TestMemFSFollow(t *testing.T) {
	var mem MemFS
	require.NoError(t, mem.WriteFile("log/quorum-state", []byte("{}")))
	d, err := OpenDir(&mem, "log", Follow)
	require.NoError(t, err)
	defer d.Close()
	require.Empty(t, drain(t, d))
	require.NoError(t, d.Verify())

	seg0 := "log/" + SegmentName(0)
	require.NoError(t, mem.WriteFile(seg0, noOp(t, 0)))
	require.Equal(t, []int64{0}, drain(t, d))
	b1 := noOp(t, 1)
	require.NoError(t, mem.Append(seg0, b1[:20])) // half a batch
	_, err = d.Next()
	require.ErrorIs(t, err, ErrIncompleteTail)
	require.NoError(t, d.Verify())
	require.NoError(t, mem.Append(seg0, b1[20:]))
	require.Equal(t, []int64{1}, drain(t, d))

	seg2 := "log/" + SegmentName(2)
	require.NoError(t, mem.WriteFile(seg2, append(noOp(t, 2), noOp(t, 3)...)))
	require.Equal(t, []int64{2, 3}, drain(t, d))
	require.Equal(t, []string{SegmentName(0), SegmentName(2)}, d.Files())
	require.NoError(t, d.Verify())

	// The same bytes in a new file under the same name: replaced.
	cur, err := readFile(&mem, seg2)
	require.NoError(t, err)
	require.NoError(t, mem.WriteFile(seg2, cur))
	err = d.Verify()
	require.ErrorIs(t, err, ErrLogChanged)
	require.Contains(t, err.Error(), "replaced")
	var ce *CorruptionError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, seg2, ce.File)

	d2, err := OpenDir(&mem, "log", Follow)
	require.NoError(t, err)
	defer d2.Close()
	require.Equal(t, []int64{0, 1, 2, 3}, drain(t, d2))
	require.NoError(t, mem.Truncate(seg2, int64(len(noOp(t, 2)))))
	err = d2.Verify()
	require.ErrorIs(t, err, ErrLogChanged)
	require.Contains(t, err.Error(), "truncated")
	require.NoError(t, mem.Remove(seg2))
	err = d2.Verify()
	require.ErrorIs(t, err, ErrLogChanged)
	require.Contains(t, err.Error(), "no longer there")
}

// TestOpenDirFSErrors: a missing directory and an invalid path are errors
// naming them; a file system whose files lack io.ReaderAt is refused by
// Verify with a reason, not a panic.
func TestOpenDirFSErrors(t *testing.T) {
	var mem MemFS
	_, err := OpenDir(&mem, "missing", Finished)
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.Contains(t, err.Error(), "missing")
	_, err = OpenDir(&mem, "../up", Finished)
	require.ErrorIs(t, err, fs.ErrInvalid)

	_, err = OpenDir(OS{}, filepath.Join(t.TempDir(), "gone"), Finished)
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.Contains(t, err.Error(), filepath.Join("gone"))

	require.NoError(t, mem.WriteFile("d/"+SegmentName(0), noOp(t, 0)))
	d, err := OpenDir(FromIOFS(noReaderAt{&mem}), "d", Follow)
	require.NoError(t, err)
	defer d.Close()
	require.Equal(t, []int64{0}, drain(t, d))
	err = d.Verify()
	require.ErrorIs(t, err, ErrLogChanged)
	require.Contains(t, err.Error(), "io.ReaderAt")
}

// noReaderAt is MemFS as an fs.FS whose files hide their ReadAt.
type noReaderAt struct{ m *MemFS }

func (n noReaderAt) Open(name string) (fs.File, error) {
	f, err := ioFSOf(n.m).Open(name)
	if _, dir := f.(fs.ReadDirFile); err != nil || dir {
		return f, err
	}
	return struct{ fs.File }{f}, nil
}

// ioFSOf is m as an fs.FS (directories open as fs.ReadDirFile), for
// testing/fstest and for FromIOFS in tests.
func ioFSOf(m *MemFS) fs.FS { return memIOFS{m} }

type memIOFS struct{ m *MemFS }

func (f memIOFS) Open(name string) (fs.File, error) {
	if st, err := f.m.Stat(name); err == nil && st.IsDir() {
		ents, err := f.m.ReadDir(name)
		if err != nil {
			return nil, err
		}
		return &memIODir{info: st, ents: ents}, nil
	}
	return f.m.Open(name)
}

type memIODir struct {
	info fs.FileInfo
	ents []fs.DirEntry
}

func (d *memIODir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *memIODir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.Name(), Err: errors.New("is a directory")}
}
func (d *memIODir) Close() error { return nil }
func (d *memIODir) ReadDir(n int) ([]fs.DirEntry, error) {
	if n <= 0 {
		rest := d.ents
		d.ents = nil
		return rest, nil
	}
	if len(d.ents) == 0 {
		return nil, io.EOF
	}
	rest := d.ents[:min(n, len(d.ents))]
	d.ents = d.ents[len(rest):]
	return rest, nil
}

// readFile reads the whole file name of fsys.
func readFile(fsys FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// TestMemFSConformance: MemFS, seen as an fs.FS, passes testing/fstest's
// checks; MkdirAll makes an empty directory that ReadDir lists, and Create
// refuses a name that exists.
func TestMemFSConformance(t *testing.T) {
	var mem MemFS
	require.NoError(t, mem.WriteFile("a/b/"+SegmentName(0), noOp(t, 0)))
	require.NoError(t, mem.WriteFile("a/c.checkpoint", []byte("x")))
	require.NoError(t, mem.WriteFile("top", nil))
	require.NoError(t, fstest.TestFS(ioFSOf(&mem), "a/b/"+SegmentName(0), "a/c.checkpoint", "top"))
	require.NoError(t, mem.Rename("top", "a/top"))
	_, err := mem.Stat("top")
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.NoError(t, fstest.TestFS(ioFSOf(&mem), "a/top"))
	require.NoError(t, mem.MkdirAll("e/f", 0o755))
	ents, err := mem.ReadDir("e")
	require.NoError(t, err)
	require.Len(t, ents, 1)
	require.True(t, ents[0].IsDir())
	w, err := mem.Create("e/f/x")
	require.NoError(t, err)
	_, err = w.Write([]byte("ab"))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	_, err = mem.Create("e/f/x")
	require.ErrorIs(t, err, fs.ErrExist)
	got, err := readFile(&mem, "e/f/x")
	require.NoError(t, err)
	require.Equal(t, "ab", string(got))
}
