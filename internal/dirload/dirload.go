// Package dirload loads a __cluster_metadata-0 directory into an image the
// way a broker does at start-up, through kmeta's own loader: a
// publisher.Loader fed by publisher/dirfollow (the latest snapshot, then the
// log after it, metadata transactions respected), read back from a cache
// publisher. It is a one-call helper for tests and examples, nobody's public
// API.
package dirload

import (
	"os"
	"path/filepath"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record"
)

// Load reads dir, a __cluster_metadata-0 directory or the log directory that
// holds one, and returns the image the loader publishes for it.
func Load(dir string) (*image.Image, error) {
	if st, err := os.Stat(filepath.Join(dir, record.MetadataPartitionDir)); err == nil && st.IsDir() {
		dir = filepath.Join(dir, record.MetadataPartitionDir)
	}
	l := publisher.NewLoader(publisher.Options{})
	defer l.Close()
	cache := publisher.NewCache("dirload")
	if err := l.Install(cache); err != nil {
		return nil, err
	}
	if err := dirfollow.Load(l, dir); err != nil {
		return nil, err
	}
	return cache.Load(), nil
}
