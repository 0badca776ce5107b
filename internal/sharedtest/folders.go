package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// CorpusFolder is one folder of real Kafka files under ../shared/corpus and
// the folder of Kafka's images of them under ../shared/vectors.
type CorpusFolder struct {
	Name   string // "kraft", "kraft-2", "kraft-4.3"
	Root   string // ../shared/corpus/<Name>
	Images string // ../shared/vectors/corpus-images[-2|-4.3]
}

// corpusFolders pairs each corpus folder with its images: the first harvest
// (Kafka 3.2 to 4.2), the second (Kafka 3.4 to 4.2) and the Kafka 4.3 files.
var corpusFolders = [...][2]string{
	{"kraft", "corpus-images"},
	{"kraft-2", "corpus-images-2"},
	{"kraft-4.3", "corpus-images-4.3"},
}

// CorpusFolders returns every corpus folder present with its images folder,
// skipping the test when ../shared or all of them are absent. Tests over the
// corpus range over all of them, with no per-file special cases.
func CorpusFolders(tb testing.TB) []CorpusFolder {
	tb.Helper()
	d := Dir(tb)
	var out []CorpusFolder
	for _, f := range corpusFolders {
		root := filepath.Join(d, "corpus", f[0])
		if _, err := os.Stat(root); err != nil {
			continue
		}
		out = append(out, CorpusFolder{Name: f[0], Root: root, Images: filepath.Join(d, "vectors", f[1])})
	}
	if len(out) == 0 {
		tb.Skipf("no corpus folder under %s", filepath.Join(d, "corpus"))
	}
	return out
}

// Scenarios returns the directories of Kafka's snapshot scenarios:
// vectors/snapshots/* (metadata.version 4.0) and vectors/snapshots-4.4/*
// (4.3-IV0 and 4.4-IV2), skipping the test when none is present.
func Scenarios(tb testing.TB) []string {
	tb.Helper()
	v := Vectors(tb)
	var out []string
	for _, folder := range []string{"snapshots", "snapshots-4.4"} {
		ents, err := os.ReadDir(filepath.Join(v, folder))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() {
				out = append(out, filepath.Join(v, folder, e.Name()))
			}
		}
	}
	if len(out) == 0 {
		tb.Skipf("no snapshot scenarios under %s", v)
	}
	return out
}
