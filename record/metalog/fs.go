package metalog

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// FS is the file system every reader and writer of this package works
// through, in the shape of pebble's vfs.FS: what the readers of a metadata
// log directory (OpenDir, OpenSegment, OpenSnapshot, OpenBootstrap) and its
// writers (CreateSegment, CreateSnapshot, WriteBootstrap) need, and no more.
// OS is the operating system's files; MemFS keeps them in memory; FromIOFS
// reads any io/fs file system.
//
// Names are in the file system's own syntax (OS: the platform's paths;
// MemFS and FromIOFS: slash-separated paths valid for fs.ValidPath), joined
// and split with its PathJoin and PathBase, and errors name files as the
// caller named them.
//
// Follow mode (a reader of a directory a Kafka node is still writing) needs
// what a live directory gives: an open file's Read returns bytes appended
// after it was opened (as an *os.File's does, and a MemFS file's), Stat
// reports a file's current size, a new segment shows up in ReadDir and
// Stat. For DirReader.Verify to tell a file replaced under the same name,
// Stat must identify files: os.SameFile does for the operating system's
// files; for others, FileInfo.Sys must differ between two files (MemFS gives
// each file its own).
type FS interface {
	// Open opens the file name for reading.
	Open(name string) (File, error)
	// Create creates the file name for writing, which must not exist (an
	// error wrapping fs.ErrExist when it does): every file this package
	// writes is new, as Kafka's are (O_EXCL).
	Create(name string) (File, error)
	// Remove deletes the file name. Readers that have it open may keep
	// reading it, as on POSIX systems.
	Remove(name string) error
	// Rename moves oldname to newname, replacing any file there, and makes
	// the rename durable where the file system can (OS syncs the directory).
	Rename(oldname, newname string) error
	// MkdirAll creates the directory dir and any parents it lacks.
	MkdirAll(dir string, perm fs.FileMode) error
	// ReadDir lists the directory dir, sorted by name.
	ReadDir(dir string) ([]fs.DirEntry, error)
	// Stat describes the file or directory name.
	Stat(name string) (fs.FileInfo, error)
	// PathJoin joins a directory and a name in it with the file system's
	// separator. (Two arguments, not pebble's variadic list: a variadic call
	// through an interface allocates its slice, and a follower joins names
	// on every poll.)
	PathJoin(dir, name string) string
	// PathBase returns the last element of a path.
	PathBase(name string) string
}

// File is an open file of an FS: read (Open) or written (Create). ReadAt
// is what DirReader.Verify re-reads a batch with; Sync what the writers
// call before they close or rename a file.
type File interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.Closer
	// Stat describes the open file, with its current size.
	Stat() (fs.FileInfo, error)
	// Sync commits what was written to stable storage.
	Sync() error
}

// OS is the operating system's file system, files named by their paths:
// metalog.OS{}. Create opens with O_EXCL; Rename syncs the directory after
// renaming, where the platform allows it.
type OS struct{}

// Open opens the file name for reading (os.Open).
func (OS) Open(name string) (File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Create creates the new file name for reading and writing (O_EXCL).
func (OS) Create(name string) (File, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Remove deletes the file name (os.Remove).
func (OS) Remove(name string) error { return os.Remove(name) }

// Rename renames oldname to newname (os.Rename), then syncs the directory
// of newname where the platform allows it.
func (OS) Rename(oldname, newname string) error {
	if err := os.Rename(oldname, newname); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(newname)); err == nil {
		_ = d.Sync() // where the platform allows it
		d.Close()
	}
	return nil
}

// MkdirAll creates dir and its parents (os.MkdirAll).
func (OS) MkdirAll(dir string, perm fs.FileMode) error { return os.MkdirAll(dir, perm) }

// ReadDir lists dir, sorted by name (os.ReadDir).
func (OS) ReadDir(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }

// Stat describes name (os.Stat).
func (OS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// PathJoin joins dir and name with the platform's separator (filepath.Join).
func (OS) PathJoin(dir, name string) string { return filepath.Join(dir, name) }

// PathBase returns the last element of name (filepath.Base).
func (OS) PathBase(name string) string { return filepath.Base(name) }

// FromIOFS returns a read-only FS over an io/fs file system (an archive,
// testing/fstest.MapFS, os.DirFS), for the readers; its Create, Remove,
// Rename and MkdirAll fail with fs.ErrPermission. Its files must implement
// io.ReaderAt for DirReader.Verify. testing/fstest.MapFS files are
// snapshots taken at Open, so it suits Finished mode only.
func FromIOFS(fsys fs.FS) FS { return ioFS{fsys} }

type ioFS struct{ fsys fs.FS }

// errReadOnly is what the write methods of FromIOFS's FS return.
var errReadOnly = errors.New("read-only file system (metalog.FromIOFS)")

func (f ioFS) Open(name string) (File, error) {
	h, err := f.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	return ioFile{h}, nil
}

func (f ioFS) Create(name string) (File, error) {
	return nil, &fs.PathError{Op: "create", Path: name, Err: fs.ErrPermission}
}
func (f ioFS) Remove(name string) error {
	return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrPermission}
}
func (f ioFS) Rename(oldname, _ string) error {
	return &fs.PathError{Op: "rename", Path: oldname, Err: fs.ErrPermission}
}
func (f ioFS) MkdirAll(dir string, _ fs.FileMode) error {
	return &fs.PathError{Op: "mkdir", Path: dir, Err: fs.ErrPermission}
}
func (f ioFS) ReadDir(dir string) ([]fs.DirEntry, error) { return fs.ReadDir(f.fsys, dir) }
func (f ioFS) Stat(name string) (fs.FileInfo, error)     { return fs.Stat(f.fsys, name) }
func (ioFS) PathJoin(dir, name string) string            { return path.Join(dir, name) }
func (ioFS) PathBase(name string) string                 { return path.Base(name) }

// ioFile is an fs.File of FromIOFS's FS: ReadAt when the file has it, no
// writes.
type ioFile struct{ fs.File }

func (f ioFile) ReadAt(p []byte, off int64) (int, error) {
	if ra, ok := f.File.(io.ReaderAt); ok {
		return ra.ReadAt(p, off)
	}
	return 0, errors.New("metalog: the file system's files do not implement io.ReaderAt, which Follow mode needs")
}
func (f ioFile) Write([]byte) (int, error) { return 0, errReadOnly }
func (f ioFile) Sync() error               { return errReadOnly }
