package publisher_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/internal/imagetest"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
)

// corpusDirs returns the corpus metadata directories Kafka's own code loaded
// (vectors/corpus-images/dirs/INDEX.tsv, status ok), with the path of
// Kafka's image records for each.
func corpusDirs(t *testing.T) (dirs, images []string) {
	corpus := sharedtest.Corpus(t)
	root := filepath.Join(sharedtest.Vectors(t), "corpus-images", "dirs")
	for _, row := range imagetest.ReadIndex(t, filepath.Join(root, "INDEX.tsv")) {
		if row["status"] != "ok" {
			continue
		}
		dirs = append(dirs, filepath.Join(corpus, row["directory"]))
		images = append(images, filepath.Join(root, row["directory"]+".image-records.jsonl"))
	}
	if len(dirs) == 0 {
		t.Fatal("no corpus directories in the index")
	}
	return dirs, images
}

// TestCorpusDirsThroughLoader: every corpus __cluster_metadata-0 directory
// fed through the loader (latest snapshot, then the segments after it, as
// a broker's raft client delivers them: KafkaRaftClient, MetadataLoader)
// publishes Kafka's own image of that directory.
func TestCorpusDirsThroughLoader(t *testing.T) {
	dirs, images := corpusDirs(t)
	for i, dir := range dirs {
		t.Run(rel(dir), func(t *testing.T) {
			l := publisher.NewLoader(publisher.Options{ReplayErrors: publisher.Halt})
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

func rel(dir string) string {
	const mark = "/corpus/kraft/"
	if i := strings.LastIndex(dir, mark); i >= 0 {
		return dir[i+len(mark):]
	}
	return dir
}
