package redact

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
)

// corpusUnknown lists the ConfigRecord names found in the shared corpus that
// Kafka 4.x itself does not know, so Normal redacts them as Kafka does.
var corpusUnknown = map[configKey]string{
	// A topic config of Kafka 3.x (deprecated by KIP-937 in 3.6) that Kafka
	// 4.0 removed; images written by older clusters still carry it.
	{ResourceTopic, "message.timestamp.difference.max.ms"}: "removed in Kafka 4.0",
}

type configKey struct {
	rt   image.ConfigType
	name string
}

// TestCorpusConfigNamesKnown reads every ConfigRecord of the shared corpus
// images (corpus-images, -2, -4.3) and snapshot vectors (snapshots,
// snapshots-4.4) and checks that KafkaSchema knows its name,
// unless corpusUnknown says Kafka does not.
func TestCorpusConfigNamesKnown(t *testing.T) {
	vectors := sharedtest.Vectors(t)
	var files []string
	for _, folder := range sharedtest.CorpusFolders(t) {
		err := filepath.WalkDir(folder.Images, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range sharedtest.Scenarios(t) {
		for _, name := range []string{"snapshot-records.jsonl", "history-records.jsonl"} {
			files = append(files, filepath.Join(dir, name))
		}
	}
	if len(files) == 0 {
		t.Fatalf("no .jsonl files under %s", vectors)
	}

	seen := map[configKey]int{}
	for _, f := range files {
		readConfigRecords(t, f, seen)
	}
	if len(seen) == 0 {
		t.Fatal("no CONFIG_RECORD lines in the corpus")
	}
	for k, n := range seen {
		_, known := ConfigType(k.rt, k.name)
		why, listed := corpusUnknown[k]
		if len(KafkaSchema.Names(k.rt)) == 0 {
			// No ConfigDef for the resource type (GROUP, CLIENT_METRICS):
			// KafkaConfigSchema knows none of its names and redacts all.
			if known || !Normal(nil).ShouldRedactConfig(k.rt, k.name) {
				t.Errorf("config (resourceType %d, %q) of a type without a ConfigDef is known or not redacted", k.rt, k.name)
			}
			continue
		}
		switch {
		case !known && !listed:
			t.Errorf("corpus config (resourceType %d, %q) x%d unknown to KafkaSchema", k.rt, k.name, n)
		case known && listed:
			t.Errorf("corpus config (resourceType %d, %q) listed as unknown (%s) but KafkaSchema knows it", k.rt, k.name, why)
		case !known:
			if !Normal(nil).ShouldRedactConfig(k.rt, k.name) {
				t.Errorf("unknown %q not redacted", k.name)
			}
		}
	}
	for k := range corpusUnknown {
		if seen[k] == 0 {
			t.Logf("corpusUnknown entry %v no longer in the corpus", k)
		}
	}
	t.Logf("%d distinct config names in %d files", len(seen), len(files))
}

func readConfigRecords(t *testing.T, path string, seen map[configKey]int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		if !strings.Contains(string(b), `"CONFIG_RECORD"`) {
			continue
		}
		var rec struct {
			Type string `json:"type"`
			Data struct {
				ResourceType int8   `json:"resourceType"`
				Name         string `json:"name"`
			} `json:"data"`
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		if rec.Type != "CONFIG_RECORD" {
			continue
		}
		seen[configKey{image.ConfigTypeForID(rec.Data.ResourceType), rec.Data.Name}]++
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
