package dirload

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/internal/imagetest"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
)

// CorpusDirs lists the corpus directories of corpus-images/dirs/INDEX.tsv.
func corpusDirs(t *testing.T) []string {
	f, err := os.Open(filepath.Join(sharedtest.Vectors(t), "corpus-images", "dirs", "INDEX.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Scan()
	for sc.Scan() {
		out = append(out, strings.Split(sc.Text(), "\t")[0])
	}
	return out
}

// TestLoadCorpusDirsEqualKafka: every corpus directory loads into the image
// Kafka's own start-up path builds (corpus-images/dirs).
func TestLoadCorpusDirsEqualKafka(t *testing.T) {
	corpus := sharedtest.Corpus(t)
	vec := sharedtest.Vectors(t)
	for _, d := range corpusDirs(t) {
		t.Run(d, func(t *testing.T) {
			img, err := Load(filepath.Join(corpus, d))
			if err != nil {
				t.Fatal(err)
			}
			want := imagetest.ReadLines(t, filepath.Join(vec, "corpus-images", "dirs", d+".image-records.jsonl"))
			imagetest.CompareImage(t, img, want)
		})
	}
}
