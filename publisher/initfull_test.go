package publisher

import (
	"bytes"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// TestSnapshotFromEmptyInitializesLikeImageRewrite: a publisher installed
// before the first snapshot is initialized with that snapshot's delta (a
// snapshot over the empty image) instead of a rewrite of the image into a
// delta from the empty image (MetadataLoader.initializeNewPublishers'
// ImageReWriter). It must see exactly what a publisher installed after the
// load sees, which gets the rewrite: the same image and the same changes,
// for every snapshot of the corpus and the end-to-end benchmark's.
func TestSnapshotFromEmptyInitializesLikeImageRewrite(t *testing.T) {
	small := e2eSnapshot(t, 300)
	check := func(t *testing.T, open func() (*metalog.SnapshotReader, error)) {
		early := &lastUpdate{}
		l1 := NewLoader(Config{})
		if err := l1.Install(early); err != nil {
			t.Fatal(err)
		}
		r1, err := open()
		if err != nil {
			t.Fatal(err)
		}
		l1.SetHighWatermark(r1.LastContainedLogOffset() + 1)
		if err := l1.LoadSnapshot(r1); err != nil {
			t.Skipf("not loadable: %v", err)
		}
		l2 := NewLoader(Config{})
		r2, err := open()
		if err != nil {
			t.Fatal(err)
		}
		l2.SetHighWatermark(r2.LastContainedLogOffset() + 1)
		if err := l2.LoadSnapshot(r2); err != nil {
			t.Fatal(err)
		}
		late := &lastUpdate{}
		if err := l2.Install(late); err != nil {
			t.Fatal(err)
		}
		if early.n != 1 || late.n != 1 {
			t.Fatalf("updates: early %d, late %d; want one each", early.n, late.n)
		}
		if early.u.Image != l1.Image() {
			t.Fatal("the early publisher was not handed the loaded image")
		}
		if early.u.Manifest.Type != SnapshotLoad || late.u.Manifest.Type != SnapshotLoad ||
			early.u.Manifest.Provenance != late.u.Manifest.Provenance {
			t.Fatalf("manifests %+v and %+v", early.u.Manifest, late.u.Manifest)
		}
		if a, b := changesSummary(early.u), changesSummary(late.u); !reflect.DeepEqual(a, b) {
			t.Fatalf("changes differ:\nsnapshot delta %+v\nimage rewrite  %+v", a, b)
		}
	}
	t.Run("e2e-300-topics", func(t *testing.T) {
		check(t, func() (*metalog.SnapshotReader, error) {
			return metalog.NewSnapshotReader(bytes.NewReader(small.data), small.name, small.id)
		})
	})
	n := 0
	for _, f := range sharedtest.CorpusFolders(t) {
		_ = filepath.WalkDir(f.Root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".checkpoint") || d.Name() == "bootstrap.checkpoint" {
				return nil
			}
			n++
			rel, _ := filepath.Rel(f.Root, path)
			t.Run(f.Name+"/"+rel, func(t *testing.T) {
				check(t, func() (*metalog.SnapshotReader, error) { return metalog.OpenSnapshot(metalog.OS{}, path) })
			})
			return nil
		})
	}
	// Kafka's snapshot scenarios hold ACLs, SCRAM credentials, tokens,
	// quotas and configs, which the corpus barely has.
	for _, sc := range sharedtest.Scenarios(t) {
		snaps, _ := filepath.Glob(filepath.Join(sc, "__cluster_metadata-0", "*.checkpoint"))
		for _, path := range snaps {
			n++
			t.Run("scenario/"+filepath.Base(sc), func(t *testing.T) {
				check(t, func() (*metalog.SnapshotReader, error) { return metalog.OpenSnapshot(metalog.OS{}, path) })
			})
		}
	}
	if n == 0 {
		t.Fatal("no corpus snapshot found")
	}
}

// lastUpdate is a publisher that keeps the last update it was given.
type lastUpdate struct {
	u Update
	n int
}

func (p *lastUpdate) Name() string            { return "last" }
func (p *lastUpdate) OnUpdate(u Update) error { p.u, p.n = u, p.n+1; return nil }
func (p *lastUpdate) Close() error            { return nil }

func sortedACLs(acls []delta.ACLChange) []delta.ACLChange {
	return slices.SortedFunc(slices.Values(acls), func(a, b delta.ACLChange) int { return bytes.Compare(a.ID[:], b.ID[:]) })
}

// changesSummary is everything Changes reports of u, in a comparable form.
func changesSummary(u Update) map[string]any {
	c := u.Changes
	mv, mvok := c.MetadataVersionChanged()
	out := map[string]any{
		"base-empty": c.Base().IsEmpty(), "mv": mv, "mvok": mvok,
		"topics": c.Topics(), "growth": c.PartitionGrowth(), "brokers": c.Brokers(),
		"configs": c.Configs(), "quotas": c.ClientQuotas(), "scram": c.Scram(), "tokens": c.Tokens(),
		"features": c.Features(), "controllers": c.Controllers(),
		// A full delta adds every ACL; the order of the adds follows the
		// records (the snapshot's, or the image writer's), and an
		// authorizer built from them is the same either way.
		"acls": sortedACLs(c.ACLs()),
	}
	for t := range u.Image.Topics().All() {
		out["partitions "+t.Name()] = c.ChangedPartitions(t.ID())
	}
	for b := range u.Image.Cluster().Brokers() {
		out[fmt.Sprint("local ", b.ID())] = c.LocalChanges(b.ID())
		out[fmt.Sprint("replicas ", b.ID())] = c.ReplicaChanges(b.ID(), false)
		out[fmt.Sprint("coordinators ", b.ID())] = c.Coordinators(b.ID())
	}
	return out
}
