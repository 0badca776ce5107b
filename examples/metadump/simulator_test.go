package main

import (
	"bytes"
	"slices"
	"strings"
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
	dir, err := s.WriteDir(t.TempDir(), deltatest.WriteDirOptions{SegmentBatches: 4})
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

// TestImageOfSimulatedKafka44: clusters simulated at metadata.version
// 4.3-IV0 (cordoned log directories) and 4.4-IV2 (a controller unregistered
// as well), written as __cluster_metadata-0 directories with a snapshot in
// the middle, give through `metadump -image-records` the image the
// simulator holds in memory.
func TestImageOfSimulatedKafka44(t *testing.T) {
	for _, mv := range []image.MetadataVersion{image.MV4_3_IV0, image.MV4_4_IV2} {
		t.Run(mv.String(), func(t *testing.T) {
			s := deltatest.MustNew(deltatest.Config{MetadataVersion: mv, Seed: 11})
			for id := int32(3000); id < 3003; id++ {
				if err := s.RegisterController(deltatest.ControllerSpec{ID: id}); err != nil {
					t.Fatal(err)
				}
			}
			dirs := []record.UUID{{0xa1}, {0xa2}}
			if err := s.AddBroker(deltatest.BrokerSpec{ID: 1, LogDirs: dirs}); err != nil {
				t.Fatal(err)
			}
			for id := int32(2); id <= 3; id++ {
				if err := s.AddBroker(deltatest.BrokerSpec{ID: id, Rack: "r"}); err != nil {
					t.Fatal(err)
				}
			}
			s.MustCreateTopic("orders", 6, 3)
			if err := s.CordonLogDirs(1, dirs[1]); err != nil {
				t.Fatal(err)
			}
			half := s.NextOffset()
			if err := s.CordonLogDirs(1, dirs[0]); err != nil {
				t.Fatal(err)
			}
			s.MustCreateTopic("payments", 4, 2)
			if mv >= image.MV4_4_IV2 {
				if err := s.UnregisterController(3002); err != nil {
					t.Fatal(err)
				}
			}
			dir, err := s.WriteDir(t.TempDir(), deltatest.WriteDirOptions{SegmentBatches: 3, SnapshotAt: half})
			if err != nil {
				t.Fatal(err)
			}
			out, errs, code := runDump(t, "-unredacted", "-image-records", dir)
			if code != 0 {
				t.Fatal(errs)
			}
			got := lines(out)
			slices.Sort(got)
			if w := recordLines(t, s.Image()); !slices.Equal(w, got) {
				t.Fatalf("image of the directory differs from the simulator's:\nwant %q\ngot  %q", w, got)
			}
			if !strings.Contains(out, `"cordonedLogDirs":[`) {
				t.Fatal("no cordoned directories in the image")
			}
		})
	}
}
