package metaprops

import (
	"encoding/binary"
	"fmt"

	"github.com/kmeta-go/kmeta/record"
)

// File is one log directory's meta.properties, read, with its path.
type File struct {
	Path  string
	Props *Properties
}

// Verify checks the files of one node's log directories against each other
// and against what is expected, as MetaPropertiesEnsemble.verify does: a
// version 1 file has a cluster id and a node id (Parse already refuses one
// without); every cluster id equals expectedClusterID, or, when that is "",
// the first file's; every node id equals expectedNodeID, or, when that is
// negative, the first file's; no directory id is reserved
// (DirectoryId.reserved: the high half zero and the low half below 100), and
// no two files share one. The first failure is returned as an *Error naming
// the file and the field.
func Verify(files []File, expectedClusterID string, expectedNodeID int32) error {
	seen := map[record.UUID]string{}
	for _, f := range files {
		p := f.Props
		switch {
		case !p.HasClusterID:
			if p.Version == 1 {
				return &Error{File: f.Path, Field: ClusterIDField, Err: ErrMissing}
			}
		case expectedClusterID == "":
			expectedClusterID = p.ClusterID
		case p.ClusterID != expectedClusterID:
			return &Error{File: f.Path, Field: ClusterIDField, Err: ErrMismatch,
				Detail: fmt.Sprintf("expected %s, but read %s", expectedClusterID, p.ClusterID)}
		}
		switch {
		case !p.HasNodeID:
			if p.Version == 1 {
				return &Error{File: f.Path, Field: NodeIDField, Err: ErrMissing}
			}
		case expectedNodeID < 0:
			expectedNodeID = p.NodeID
		case p.NodeID != expectedNodeID:
			return &Error{File: f.Path, Field: idField(p), Err: ErrMismatch,
				Detail: fmt.Sprintf("stored node id %d does not match node id %d", p.NodeID, expectedNodeID)}
		}
		if !p.HasDirectoryID {
			continue
		}
		if Reserved(p.DirectoryID) {
			return &Error{File: f.Path, Field: DirectoryIDField, Err: ErrReserved, Detail: p.DirectoryID.String()}
		}
		if prev, dup := seen[p.DirectoryID]; dup {
			return &Error{File: f.Path, Field: DirectoryIDField, Err: ErrDuplicate,
				Detail: fmt.Sprintf("%s is also the id of %s", p.DirectoryID, prev)}
		}
		seen[p.DirectoryID] = f.Path
	}
	return nil
}

// Reserved reports whether id is one of the directory ids KIP-858 reserves
// (DirectoryId.reserved): a zero high half and a low half below 100 as a
// signed long, as Java compares it (so a low half with its top bit set is
// reserved too).
func Reserved(id record.UUID) bool {
	return binary.BigEndian.Uint64(id[:8]) == 0 && int64(binary.BigEndian.Uint64(id[8:])) < 100
}

func idField(p *Properties) string {
	if p.Version == 0 {
		return BrokerIDField
	}
	return NodeIDField
}
