package metaprops_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kmeta-go/kmeta/record/metaprops"
)

// The cluster id of a followed metadata directory, from the meta.properties
// of its log directory.
func ExampleFindFor() {
	logDir, _ := os.MkdirTemp("", "kafka-data")
	defer os.RemoveAll(logDir)
	metaDir := filepath.Join(logDir, "__cluster_metadata-0")
	_ = os.Mkdir(metaDir, 0o755)
	_ = os.WriteFile(filepath.Join(logDir, "meta.properties"),
		[]byte("#\nversion=1\nnode.id=1\ncluster.id=MkU3OEVBNTcwNTJENDM2Qk\ndirectory.id=J8aAPcfLQt2bqs1JT_rMgQ\n"), 0o644)

	p, err := metaprops.FindFor(metaDir)
	fmt.Println(p.ClusterID, p.NodeID, p.DirectoryID, err)

	_ = os.WriteFile(filepath.Join(logDir, "meta.properties"), []byte("version=1\nnode.id=one\n"), 0o644)
	_, err = metaprops.FindFor(metaDir)
	var e *metaprops.Error
	fmt.Println(errors.As(err, &e), e.Field, errors.Is(err, metaprops.ErrInvalid))
	// Output:
	// MkU3OEVBNTcwNTJENDM2Qk 1 J8aAPcfLQt2bqs1JT_rMgQ <nil>
	// true node.id true
}

// Two log directories of one broker that disagree on the cluster id.
func ExampleVerify() {
	a, _ := metaprops.Parse("/d1/meta.properties", []byte("version=1\nnode.id=1\ncluster.id=A\n"))
	b, _ := metaprops.Parse("/d2/meta.properties", []byte("version=1\nnode.id=1\ncluster.id=B\n"))
	err := metaprops.Verify([]metaprops.File{{Path: "/d1/meta.properties", Props: a}, {Path: "/d2/meta.properties", Props: b}}, "", -1)
	fmt.Println(err)
	fmt.Println(errors.Is(err, metaprops.ErrMismatch))
	// Output:
	// /d2/meta.properties: cluster.id: mismatch: expected A, but read B
	// true
}
