package main

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// TestDumpOfSimulatedCluster: a cluster simulated by delta/deltatest and
// written as a __cluster_metadata-0 directory dumps to record lines that,
// parsed and replayed with delta, give the simulator's own image.
func TestDumpOfSimulatedCluster(t *testing.T) {
	s := deltatest.MustNew(deltatest.Config{Seed: 7})
	if err := s.AddBrokers(4, "a", "b"); err != nil {
		t.Fatal(err)
	}
	s.MustCreateTopic("orders", 6, 3)
	s.MustCreateTopic("payments", 3, 2)
	if err := s.SetTopicConfig("orders", "retention.ms", "3600000"); err != nil {
		t.Fatal(err)
	}
	if err := s.CrashBroker(2); err != nil {
		t.Fatal(err)
	}
	// past the 9 s session timeout: broker 2 is fenced
	if err := s.Advance(12 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := s.CreatePartitions("orders", 12, nil); err != nil {
		t.Fatal(err)
	}
	dir, err := s.WriteDir(t.TempDir(), deltatest.DirOptions{SegmentBatches: 4})
	if err != nil {
		t.Fatal(err)
	}
	out, errs, code := runDump(t, "-unredacted", dir)
	if code != 0 {
		t.Fatal(errs)
	}
	d := delta.New(nil)
	for _, l := range lines(out) {
		r, _, err := record.ParseEnvelopeJSON([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Replay(r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := d.Apply(s.Image().Provenance())
	if err != nil {
		t.Fatal(err)
	}
	if w, g := recordLines(t, s.Image()), recordLines(t, got); !slices.Equal(w, g) {
		t.Fatalf("dumped image differs:\nwant %d records\ngot  %d records", len(w), len(g))
	}
}

func recordLines(t *testing.T, img *image.Image) []string {
	t.Helper()
	var out []string
	err := img.Write(image.WriteOptions{}, func(r record.Record, v int16) error {
		b, err := record.AppendEnvelopeJSON(nil, r, v)
		out = append(out, string(bytes.Clone(b)))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
