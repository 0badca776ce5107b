package record

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
)

// MemFS is an in-memory file system for the readers of this package
// (OpenDirFS, OpenSegmentFS, OpenSnapshotFS) and for tests: it implements
// fs.FS, fs.ReadDirFS and fs.StatFS, and, unlike testing/fstest.MapFS,
// files stay live after they are opened: an open file sees bytes appended
// later and a truncation, as an *os.File does, so a reader in Follow mode
// can follow a MemFS as it follows a directory Kafka writes. Directories
// are implicit: a file named "a/b" makes "a" a directory. The zero MemFS
// is empty and ready to use; it is safe for concurrent use.
//
// Each file has an identity of its own (FileInfo.Sys): Rename moves it,
// WriteFile over an existing name replaces it with a new one, which is how
// DirReader.Verify tells a file replaced under the same name.
type MemFS struct {
	mu    sync.Mutex
	files map[string]*memFile
}

type memFile struct {
	data []byte
	mod  time.Time
}

// WriteFile creates or replaces the file name with a copy of data.
func (m *MemFS) WriteFile(name string, data []byte) error {
	if !fs.ValidPath(name) || name == "." {
		return &fs.PathError{Op: "write", Path: name, Err: fs.ErrInvalid}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.files = map[string]*memFile{}
	}
	m.files[name] = &memFile{data: slices.Clone(data), mod: time.Now()}
	return nil
}

// Append appends data to the file name, creating it if needed; open
// readers of the file see the new bytes.
func (m *MemFS) Append(name string, data []byte) error {
	m.mu.Lock()
	f, ok := m.files[name]
	if ok {
		f.data = append(f.data, data...)
		f.mod = time.Now()
	}
	m.mu.Unlock()
	if !ok {
		return m.WriteFile(name, data)
	}
	return nil
}

// Truncate cuts the file name to size bytes (UnifiedLog.truncateTo).
func (m *MemFS) Truncate(name string, size int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.files[name]
	if !ok {
		return &fs.PathError{Op: "truncate", Path: name, Err: fs.ErrNotExist}
	}
	if size < 0 || size > int64(len(f.data)) {
		return &fs.PathError{Op: "truncate", Path: name, Err: fs.ErrInvalid}
	}
	f.data = f.data[:size:size]
	f.mod = time.Now()
	return nil
}

// Remove deletes the file name; readers that have it open keep reading it.
func (m *MemFS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[name]; !ok {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	delete(m.files, name)
	return nil
}

// Rename moves the file oldname to newname, replacing any file there (as a
// snapshot's .checkpoint.part is renamed to its final name).
func (m *MemFS) Rename(oldname, newname string) error {
	if !fs.ValidPath(newname) || newname == "." {
		return &fs.PathError{Op: "rename", Path: newname, Err: fs.ErrInvalid}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.files[oldname]
	if !ok {
		return &fs.PathError{Op: "rename", Path: oldname, Err: fs.ErrNotExist}
	}
	delete(m.files, oldname)
	m.files[newname] = f
	return nil
}

// isDir reports whether name is "." or a prefix directory of a file.
// m.mu is held.
func (m *MemFS) isDir(name string) bool {
	if name == "." {
		return true
	}
	for n := range m.files {
		if strings.HasPrefix(n, name+"/") {
			return true
		}
	}
	return false
}

// Open implements fs.FS.
func (m *MemFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.files[name]; ok {
		return &memHandle{fs: m, f: f, name: path.Base(name)}, nil
	}
	if m.isDir(name) {
		ents, _ := m.readDirLocked(name)
		return &memDir{name: path.Base(name), ents: ents}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// Stat implements fs.StatFS.
func (m *MemFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.files[name]; ok {
		return memInfo{name: path.Base(name), f: f, size: int64(len(f.data)), mod: f.mod}, nil
	}
	if m.isDir(name) {
		return memInfo{name: path.Base(name), dir: true}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// ReadDir implements fs.ReadDirFS: the entries of directory name, sorted by
// name.
func (m *MemFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.isDir(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return m.readDirLocked(name)
}

func (m *MemFS) readDirLocked(dir string) ([]fs.DirEntry, error) {
	prefix := dir + "/"
	if dir == "." {
		prefix = ""
	}
	seen := map[string]bool{}
	var out []fs.DirEntry
	for n, f := range m.files {
		rest, ok := strings.CutPrefix(n, prefix)
		if !ok {
			continue
		}
		child, _, sub := strings.Cut(rest, "/")
		if seen[child] {
			continue
		}
		seen[child] = true
		if sub {
			out = append(out, fs.FileInfoToDirEntry(memInfo{name: child, dir: true}))
		} else {
			out = append(out, fs.FileInfoToDirEntry(memInfo{name: child, f: f, size: int64(len(f.data)), mod: f.mod}))
		}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

type memInfo struct {
	name string
	f    *memFile
	size int64
	mod  time.Time
	dir  bool
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) ModTime() time.Time { return i.mod }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return i.f }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}

// memHandle is an open MemFS file: reads see the file's current bytes.
type memHandle struct {
	fs     *MemFS
	f      *memFile
	name   string
	off    int64
	closed bool
}

func (h *memHandle) Stat() (fs.FileInfo, error) {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	return memInfo{name: h.name, f: h.f, size: int64(len(h.f.data)), mod: h.f.mod}, nil
}

func (h *memHandle) Read(p []byte) (int, error) {
	if h.closed {
		return 0, fs.ErrClosed
	}
	n, err := h.ReadAt(p, h.off)
	h.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (h *memHandle) ReadAt(p []byte, off int64) (int, error) {
	if h.closed {
		return 0, fs.ErrClosed
	}
	if off < 0 {
		return 0, errors.New("record: MemFS: negative offset")
	}
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if off >= int64(len(h.f.data)) {
		return 0, io.EOF
	}
	n := copy(p, h.f.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (h *memHandle) Close() error {
	if h.closed {
		return fs.ErrClosed
	}
	h.closed = true
	return nil
}

type memDir struct {
	name string
	ents []fs.DirEntry
	off  int
}

func (d *memDir) Stat() (fs.FileInfo, error) { return memInfo{name: d.name, dir: true}, nil }
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a directory")}
}
func (d *memDir) Close() error { return nil }
func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.ents[d.off:]
	if n <= 0 {
		d.off = len(d.ents)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	d.off += len(rest)
	return rest, nil
}
