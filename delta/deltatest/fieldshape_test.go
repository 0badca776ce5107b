package deltatest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// shape is how a field's value looks: null, empty ("" or []), or a value.
func shape(raw json.RawMessage) string {
	switch s := strings.TrimSpace(string(raw)); s {
	case "null":
		return "null"
	case `""`, "[]":
		return "empty"
	}
	return "value"
}

// fieldShapes adds, for each record type, version and top-level field of
// the envelope line, the shapes seen.
func fieldShapes(into map[string]map[string]bool, line []byte) error {
	var env struct {
		Type    string                     `json:"type"`
		Version int                        `json:"version"`
		Data    map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(line, &env); err != nil {
		return err
	}
	for k, v := range env.Data {
		key := fmt.Sprintf("%s v%d %s", env.Type, env.Version, k)
		if into[key] == nil {
			into[key] = map[string]bool{}
		}
		into[key][shape(v)] = true
	}
	return nil
}

// corpusShapes reads every data record of every segment and snapshot of
// the corpus (written by Kafka's controllers).
func corpusShapes(t *testing.T) (map[string]map[string]bool, map[string]int) {
	shapes := map[string]map[string]bool{}
	counts := map[string]int{}
	for _, sub := range []string{"kraft", "kraft-2", "kraft-4.3"} {
		root := sharedtest.Path(t, "corpus", sub)
		filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			var src interface {
				Next() (*metalog.Batch, error)
				Close() error
			}
			switch {
			case strings.HasSuffix(p, metalog.SegmentSuffix):
				if _, err := metalog.ParseSegmentName(e.Name()); err != nil {
					return nil
				}
				s, err := metalog.OpenSegment(metalog.OS{}, p, metalog.Finished)
				if err != nil {
					return nil
				}
				src = s
			case strings.HasSuffix(p, metalog.SnapshotSuffix):
				s, err := metalog.OpenSnapshot(metalog.OS{}, p)
				if err != nil {
					return nil
				}
				src = s
			default:
				return nil
			}
			defer src.Close()
			for {
				b, err := src.Next()
				if err != nil {
					if !errors.Is(err, io.EOF) {
						t.Logf("%s: %v", p, err)
					}
					return nil
				}
				if b.IsControl() {
					continue
				}
				for _, en := range b.Entries {
					r, v, err := en.Decode()
					if err != nil {
						continue
					}
					line, err := record.AppendEnvelopeJSON(nil, r, v)
					if err != nil {
						continue
					}
					counts[r.Type().String()+fmt.Sprintf(" v%d", v)]++
					fieldShapes(shapes, line)
				}
			}
		})
	}
	return shapes, counts
}

// TestSimulatorFieldsAsKafkaWritesThem: field by field, the simulator
// writes null where Kafka's controllers write null and "" or [] where they
// write those. A record's Default() is the schema's default ("" for a
// nullable string with no default), which is not always what the
// controller sets: ClusterControlManager.registerBroker copies the
// request's rack, null for a broker without broker.rack. For every record
// type and version both write (at least 5 corpus records), a field the
// simulator writes empty that Kafka only ever writes null (or the reverse)
// is a difference.
func TestSimulatorFieldsAsKafkaWritesThem(t *testing.T) {
	kafka, counts := corpusShapes(t)
	sim := map[string]map[string]bool{}
	simFor := func(s *Simulator) {
		for _, b := range s.Batches() {
			for _, r := range b.Records {
				line, err := record.AppendEnvelopeJSON(nil, r.Record, r.Version)
				if err != nil {
					t.Fatal(err)
				}
				if err := fieldShapes(sim, line); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// Brokers without a rack (the corpus's clusters set none), topics,
	// configs, leader moves, fencing, a reassignment.
	s := MustNew(Config{Seed: 5})
	if err := s.AddBrokers(3); err != nil {
		t.Fatal(err)
	}
	s.MustCreateTopic("a", 3, 2)
	if err := s.SetTopicConfig("a", "retention.ms", "1000"); err != nil {
		t.Fatal(err)
	}
	if err := s.FenceBroker(1); err != nil {
		t.Fatal(err)
	}
	if err := s.Advance(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := s.Reassign("a", 0, []int32{2, 3}); err != nil {
		t.Fatal(err)
	}
	simFor(s)
	var diffs []string
	for key, shapes := range sim {
		typ := key[:strings.LastIndex(key, " ")]
		k := kafka[key]
		if k == nil || counts[typ] < 5 {
			continue
		}
		if shapes["empty"] && !k["empty"] && k["null"] {
			diffs = append(diffs, key+": the simulator writes empty, Kafka null")
		}
		if shapes["null"] && !k["null"] && k["empty"] {
			diffs = append(diffs, key+": the simulator writes null, Kafka empty")
		}
	}
	sort.Strings(diffs)
	for _, d := range diffs {
		t.Error(d)
	}
}
