package dirfollow_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/image/imagetest"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
)

// corpusDirs lists the directories of a corpus-images*/dirs/INDEX.tsv.
func corpusDirs(t *testing.T, images string) []string {
	f, err := os.Open(filepath.Join(images, "dirs", "INDEX.tsv"))
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

// TestLoadCorpusDirsEqualKafka: every directory of every corpus folder
// (kraft, kraft-2, kraft-4.3) loads into the image Kafka's own start-up path
// builds (corpus-images*/dirs).
func TestLoadCorpusDirsEqualKafka(t *testing.T) {
	for _, folder := range sharedtest.CorpusFolders(t) {
		for _, d := range corpusDirs(t, folder.Images) {
			t.Run(folder.Name+"/"+d, func(t *testing.T) {
				img, err := dirfollow.LoadImage(filepath.Join(folder.Root, d))
				if err != nil {
					t.Fatal(err)
				}
				want := imagetest.ReadLines(t, filepath.Join(folder.Images, "dirs", d+".image-records.jsonl"))
				imagetest.CompareImage(t, img, want)
			})
		}
	}
}
