// Package imagetest is test support for comparing images with Kafka's: it
// reads the JSON record lines Kafka's own code prints for an image (one
// record per line in the JSON form of Kafka's generated *RecordJsonConverter
// classes) and compares an image's written-back records with them, record
// for record, in the order of Kafka's MetadataImage.write. kmeta's tests use
// it against the output of Kafka's Java code; embedders can use it against
// their own.
package imagetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// ReadJSONL parses every line of a .jsonl file of Kafka record envelopes.
func ReadJSONL(tb testing.TB, path string) []image.VersionedRecord {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []image.VersionedRecord
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		r, v, err := record.ParseEnvelopeJSON(line)
		if err != nil {
			tb.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, image.VersionedRecord{Record: r, Version: v})
	}
	return out
}

// ReadLines returns the non-empty lines of a file.
func ReadLines(tb testing.TB, path string) []string {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// EnvelopeLines prints records as Kafka's envelope JSON lines.
func EnvelopeLines(tb testing.TB, recs []image.VersionedRecord) []string {
	tb.Helper()
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		b, err := record.AppendEnvelopeJSON(nil, r.Record, r.Version)
		if err != nil {
			tb.Fatalf("%s v%d: %v", r.Record.Type(), r.Version, err)
		}
		out = append(out, string(b))
	}
	return out
}

// Normalize applies the comparison rules of vectors/README.md to envelope
// lines: ZK_MIGRATION_STATE_RECORD is dropped, the endPoints and features
// arrays of REGISTER_BROKER_RECORD and REGISTER_CONTROLLER_RECORD are sorted
// by name, and every line is re-marshalled canonically. The result is sorted,
// ready for a multiset comparison.
func Normalize(tb testing.TB, lines []string) []string {
	tb.Helper()
	var out []string
	for _, l := range lines {
		var env map[string]any
		dec := json.NewDecoder(strings.NewReader(l))
		dec.UseNumber()
		if err := dec.Decode(&env); err != nil {
			tb.Fatalf("bad line %q: %v", l, err)
		}
		typ, _ := env["type"].(string)
		if typ == "ZK_MIGRATION_STATE_RECORD" {
			continue
		}
		if typ == "REGISTER_BROKER_RECORD" || typ == "REGISTER_CONTROLLER_RECORD" {
			data, _ := env["data"].(map[string]any)
			for _, k := range []string{"endPoints", "features"} {
				arr, _ := data[k].([]any)
				sort.SliceStable(arr, func(i, j int) bool {
					a, _ := arr[i].(map[string]any)["name"].(string)
					b, _ := arr[j].(map[string]any)["name"].(string)
					return a < b
				})
			}
		}
		b, err := json.Marshal(env)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

// DiffMultiset returns a description of the differences between two
// normalized, sorted multisets, or "" when they are equal.
func DiffMultiset(want, got []string) string {
	var missing, extra []string
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j >= len(got) || (i < len(want) && want[i] < got[j]):
			missing = append(missing, want[i])
			i++
		case i >= len(want) || got[j] < want[i]:
			extra = append(extra, got[j])
			j++
		default:
			i++
			j++
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d records missing, %d unexpected (want %d, got %d)\n", len(missing), len(extra), len(want), len(got))
	for k, m := range missing {
		if k == 10 {
			b.WriteString("  ...\n")
			break
		}
		fmt.Fprintf(&b, "  missing:    %s\n", m)
	}
	for k, e := range extra {
		if k == 10 {
			b.WriteString("  ...\n")
			break
		}
		fmt.Fprintf(&b, "  unexpected: %s\n", e)
	}
	return b.String()
}

// ImageLines writes img back at its own metadata.version and returns the
// envelope lines.
func ImageLines(tb testing.TB, img *image.Image) []string {
	tb.Helper()
	recs, err := img.Records(image.WriteOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return EnvelopeLines(tb, recs)
}

// CompareImage fails tb when img written back differs from Kafka's records.
func CompareImage(tb testing.TB, img *image.Image, kafkaLines []string) {
	tb.Helper()
	if d := DiffMultiset(Normalize(tb, kafkaLines), Normalize(tb, ImageLines(tb, img))); d != "" {
		tb.Errorf("image written back differs from Kafka's:\n%s", d)
	}
}
