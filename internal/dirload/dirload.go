// Package dirload loads a __cluster_metadata-0 directory into an image the
// way a broker does at start-up, through kmeta's own loader: a
// publisher.Loader fed by publisher/dirfollow (the latest snapshot, then the
// log after it, metadata transactions respected), read back from a cache
// publisher. It is a one-call helper for tests and examples, nobody's public
// API.
package dirload

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record"
)

// Load reads dir, a __cluster_metadata-0 directory or the log directory that
// holds one, and returns the image the loader publishes for it. When the
// directory loaded but something was left out (records the loader skipped,
// a batch cut short at the end) it returns the image together with the
// *dirfollow.LoadError that lists them. A directory with no record at all
// gives the empty image.
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
	err := dirfollow.Load(l, dir)
	var le *dirfollow.LoadError
	if err != nil && !errors.As(err, &le) {
		return nil, err
	}
	img := cache.Load()
	if img == nil {
		// Nothing published: the directory holds no record (a loader
		// publishes only once it has seen one, as MetadataLoader does).
		img = l.Image()
	}
	return img, err
}
