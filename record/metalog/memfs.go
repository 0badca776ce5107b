package metalog

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

// MemFS is an in-memory FS, for tests and for reading a directory held in
// memory: unlike testing/fstest.MapFS, files stay live after they are
// opened: an open file sees bytes appended later and a truncation, as an
// *os.File does, so a reader in Follow mode can follow a MemFS as it follows
// a directory Kafka writes. Names are slash-separated paths valid for
// fs.ValidPath. Directories are implicit: a file named "a/b" makes "a" a
// directory, and MkdirAll records one that holds no file yet. The zero MemFS
// is empty and ready to use; it is safe for concurrent use.
//
// Each file has an identity of its own (FileInfo.Sys): Rename moves it,
// WriteFile over an existing name replaces it with a new one, which is how
// DirReader.Verify tells a file replaced under the same name.
type MemFS struct {
	mu    sync.Mutex
	files map[string]*memFile
	dirs  map[string]bool // made by MkdirAll
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

// Remove deletes the file name (FS.Remove); readers that have it open keep
// reading it.
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
// snapshot's .checkpoint.part is renamed to its final name; FS.Rename).
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
	if name == "." || m.dirs[name] {
		return true
	}
	for n := range m.files {
		if strings.HasPrefix(n, name+"/") {
			return true
		}
	}
	for d := range m.dirs {
		if strings.HasPrefix(d, name+"/") {
			return true
		}
	}
	return false
}

// Open opens the file name for reading (FS.Open).
func (m *MemFS) Open(name string) (File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.files[name]; ok {
		return &memHandle{fs: m, f: f, name: path.Base(name), readOnly: true}, nil
	}
	if m.isDir(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("is a directory")}
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// Create creates the empty file name for writing, which must not exist
// (FS.Create); its writes append to the file.
func (m *MemFS) Create(name string) (File, error) {
	if !fs.ValidPath(name) || name == "." {
		return nil, &fs.PathError{Op: "create", Path: name, Err: fs.ErrInvalid}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[name]; ok || m.isDir(name) {
		return nil, &fs.PathError{Op: "create", Path: name, Err: fs.ErrExist}
	}
	if m.files == nil {
		m.files = map[string]*memFile{}
	}
	f := &memFile{mod: time.Now()}
	m.files[name] = f
	return &memHandle{fs: m, f: f, name: path.Base(name)}, nil
}

// MkdirAll records the directory dir and its parents (FS.MkdirAll); a
// directory that holds a file exists without it.
func (m *MemFS) MkdirAll(dir string, _ fs.FileMode) error {
	if !fs.ValidPath(dir) {
		return &fs.PathError{Op: "mkdir", Path: dir, Err: fs.ErrInvalid}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for d := dir; d != "."; d = path.Dir(d) {
		if _, ok := m.files[d]; ok {
			return &fs.PathError{Op: "mkdir", Path: d, Err: errors.New("not a directory")}
		}
	}
	if dir == "." {
		return nil
	}
	if m.dirs == nil {
		m.dirs = map[string]bool{}
	}
	m.dirs[dir] = true
	return nil
}

// PathJoin joins dir and name with a slash (path.Join).
func (m *MemFS) PathJoin(dir, name string) string { return path.Join(dir, name) }

// PathBase returns the last element of a slash-separated path (path.Base).
func (m *MemFS) PathBase(name string) string { return path.Base(name) }

// Stat describes the file or directory name (FS.Stat).
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

// ReadDir lists the directory name, sorted by name (FS.ReadDir).
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
	for d := range m.dirs {
		rest, ok := strings.CutPrefix(d, prefix)
		if !ok || rest == "" {
			continue
		}
		child, _, _ := strings.Cut(rest, "/")
		if !seen[child] {
			seen[child] = true
			out = append(out, fs.FileInfoToDirEntry(memInfo{name: child, dir: true}))
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
	fs       *MemFS
	f        *memFile
	name     string
	off      int64
	closed   bool
	readOnly bool // opened by Open
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
		return 0, errors.New("metalog: MemFS: negative offset")
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

// Write appends p to the file (a Create'd file is written from its start
// and only by its writer).
func (h *memHandle) Write(p []byte) (int, error) {
	if h.closed {
		return 0, fs.ErrClosed
	}
	if h.readOnly {
		return 0, &fs.PathError{Op: "write", Path: h.name, Err: fs.ErrPermission}
	}
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	h.f.data = append(h.f.data, p...)
	h.f.mod = time.Now()
	return len(p), nil
}

// Sync does nothing: the bytes are in memory already.
func (h *memHandle) Sync() error {
	if h.closed {
		return fs.ErrClosed
	}
	return nil
}

func (h *memHandle) Close() error {
	if h.closed {
		return fs.ErrClosed
	}
	h.closed = true
	return nil
}
