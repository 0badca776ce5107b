package publisher_test

import (
	"path/filepath"
	"testing"

	"github.com/kmeta-go/kmeta/image/imagetest"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
)

// corpusDirs returns the metadata directories of every corpus folder (kraft,
// kraft-2, kraft-4.3) that Kafka's own code loaded
// (vectors/corpus-images*/dirs/INDEX.tsv, status ok), with the path of
// Kafka's image records for each and a name for the subtest.
func corpusDirs(t *testing.T) (dirs, images, names []string) {
	for _, folder := range sharedtest.CorpusFolders(t) {
		root := filepath.Join(folder.Images, "dirs")
		for _, row := range imagetest.ReadIndex(t, filepath.Join(root, "INDEX.tsv")) {
			if row["status"] != "ok" {
				continue
			}
			dirs = append(dirs, filepath.Join(folder.Root, row["directory"]))
			images = append(images, filepath.Join(root, row["directory"]+".image-records.jsonl"))
			names = append(names, folder.Name+"/"+row["directory"])
		}
	}
	if len(dirs) == 0 {
		t.Fatal("no corpus directories in the index")
	}
	return dirs, images, names
}

// TestCorpusDirsThroughLoader: every corpus __cluster_metadata-0 directory
// fed through the loader (latest snapshot, then the segments after it, as
// a broker's raft client delivers them: KafkaRaftClient, MetadataLoader)
// publishes Kafka's own image of that directory.
func TestCorpusDirsThroughLoader(t *testing.T) {
	dirs, images, names := corpusDirs(t)
	for i, dir := range dirs {
		t.Run(names[i], func(t *testing.T) {
			l := publisher.NewLoader(publisher.Config{ReplayErrors: publisher.Halt})
			cache := publisher.NewCache("")
			if err := l.Install(cache); err != nil {
				t.Fatal(err)
			}
			if err := dirfollow.Load(l, dir); err != nil {
				t.Fatal(err)
			}
			img, _ := l.Watch()
			if img == nil {
				t.Fatalf("nothing published (loader at %v)", l.Stats().Loaded)
			}
			if cache.Load() != img {
				t.Fatalf("cache does not hold the published image")
			}
			if st := l.Stats(); st.ReplayErrors != 0 || !st.CaughtUp {
				t.Fatalf("stats %+v", st)
			}
			imagetest.CompareImage(t, img, imagetest.ReadLines(t, images[i]))
		})
	}
}
