package metaprops

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/kmeta-go/kmeta/record"
)

// FileName is the file's name in every log directory
// (MetaPropertiesEnsemble.META_PROPERTIES_NAME).
const FileName = "meta.properties"

// The properties of the file (MetaProperties' *_PROP constants).
const (
	VersionField     = "version"
	ClusterIDField   = "cluster.id"
	NodeIDField      = "node.id"
	BrokerIDField    = "broker.id"
	DirectoryIDField = "directory.id"
)

// The failures an *Error wraps.
var (
	// ErrNotFound: there is no meta.properties file (it wraps fs.ErrNotExist
	// too).
	ErrNotFound = errors.New("file not found")
	// ErrMissing: a field the file's version requires is absent.
	ErrMissing = errors.New("field missing")
	// ErrInvalid: a field's value does not parse.
	ErrInvalid = errors.New("invalid value")
	// ErrMismatch: two files, or a file and the expected value, disagree on
	// the cluster id or node id.
	ErrMismatch = errors.New("mismatch")
	// ErrReserved: directory.id is one of the reserved ids of KIP-858.
	ErrReserved = errors.New("reserved directory id")
	// ErrDuplicate: two directories carry the same directory.id.
	ErrDuplicate = errors.New("duplicate directory id")
)

// Error is a meta.properties file that could not be read or does not pass
// Kafka's checks. File is the file's path, Field the property ("" when the
// file as a whole is at fault), Err one of the package's Err values, Detail
// what was read.
type Error struct {
	File   string
	Field  string
	Err    error
	Detail string
}

// Error names the file, the field and what is wrong.
func (e *Error) Error() string {
	s := e.File + ": "
	if e.Field != "" {
		s += e.Field + ": "
	}
	s += e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the failure, and fs.ErrNotExist for ErrNotFound.
func (e *Error) Unwrap() []error {
	if e.Err == ErrNotFound {
		return []error{e.Err, fs.ErrNotExist}
	}
	return []error{e.Err}
}

// Properties is one meta.properties file as Kafka reads it
// (MetaProperties).
type Properties struct {
	// Version is the file's version: 0 (no version line, or "version=0":
	// the file ZooKeeper-era brokers wrote) or 1 (KRaft).
	Version int
	// ClusterID is cluster.id; HasClusterID is false when a version 0 file
	// has none.
	ClusterID    string
	HasClusterID bool
	// NodeID is node.id (broker.id in version 0); HasNodeID is false when a
	// version 0 file has none.
	NodeID    int32
	HasNodeID bool
	// DirectoryID is directory.id (KIP-858, Kafka 3.7 and later);
	// HasDirectoryID is false when the file has none.
	DirectoryID    record.UUID
	HasDirectoryID bool
}

// Parse reads the text of a meta.properties file; file names it in errors.
// It applies the checks of MetaProperties.Builder(Properties) and build().
func Parse(file string, data []byte) (*Properties, error) {
	bad := func(field string, err error, detail string) (*Properties, error) {
		return nil, &Error{File: file, Field: field, Err: err, Detail: detail}
	}
	kv, ok := parseText(data)
	if !ok {
		return bad("", ErrInvalid, `malformed \uxxxx escape`)
	}
	p := &Properties{}
	if v, ok := kv[VersionField]; ok {
		n, err := strconv.ParseInt(trimJava(v), 10, 32)
		if err != nil {
			return bad(VersionField, ErrInvalid, fmt.Sprintf("version string %q", v))
		}
		if n != 0 && n != 1 {
			return bad(VersionField, ErrInvalid, fmt.Sprintf("unknown version number %d", n))
		}
		p.Version = int(n)
	}
	idField := NodeIDField
	if p.Version == 0 {
		idField = BrokerIDField
	}
	if v, ok := kv[idField]; ok {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return bad(idField, ErrInvalid, fmt.Sprintf("%q is not a base-10 number", v))
		}
		p.NodeID, p.HasNodeID = int32(n), true
	} else if p.Version == 1 {
		return bad(NodeIDField, ErrMissing, "")
	}
	p.ClusterID, p.HasClusterID = kv[ClusterIDField]
	if v, ok := kv[DirectoryIDField]; ok {
		u, err := parseUUID(v)
		if err != nil {
			return bad(DirectoryIDField, ErrInvalid, err.Error())
		}
		p.DirectoryID, p.HasDirectoryID = u, true
	}
	if p.Version == 1 && !p.HasClusterID {
		return bad(ClusterIDField, ErrMissing, "")
	}
	return p, nil
}

// trimJava is Java's String.trim: it drops every char up to U+0020 at both
// ends (MetaPropertiesVersion.fromNumberString trims before parsing).
func trimJava(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	return s[i:j]
}

// Read reads and parses the file name of fsys.
func Read(fsys fs.FS, name string) (*Properties, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, readError(name, err)
	}
	return Parse(name, data)
}

// ReadFile reads and parses the file at path.
func ReadFile(path string) (*Properties, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, readError(path, err)
	}
	return Parse(path, data)
}

// ReadLogDir reads the meta.properties of the log directory dir.
func ReadLogDir(dir string) (*Properties, error) {
	return ReadFile(filepath.Join(dir, FileName))
}

// FindFor reads the meta.properties that belongs to a metadata directory:
// the one in its parent, the log directory where Kafka keeps it, else one
// inside it (a copied directory). When neither exists the error wraps
// ErrNotFound and names the parent's file.
func FindFor(metadataDir string) (*Properties, error) {
	parent := filepath.Join(filepath.Dir(filepath.Clean(metadataDir)), FileName)
	p, err := ReadFile(parent)
	if !errors.Is(err, ErrNotFound) {
		return p, err
	}
	if q, err2 := ReadFile(filepath.Join(metadataDir, FileName)); !errors.Is(err2, ErrNotFound) {
		return q, err2
	}
	return nil, err
}

func readError(file string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &Error{File: file, Err: ErrNotFound}
	}
	return &Error{File: file, Err: ErrInvalid, Detail: err.Error()}
}

// parseUUID is Uuid.fromString: URL-safe base64 of 16 bytes, with or
// without its "==" padding (Java's URL decoder takes both).
func parseUUID(s string) (record.UUID, error) {
	if len(s) == 24 && s[22:] == "==" {
		s = s[:22]
	}
	return record.ParseUUID(s)
}
