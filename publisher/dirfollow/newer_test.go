package dirfollow_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// TestNewerMetadataVersionStopsLoadAndFollow: a directory whose log reaches
// a FeatureLevelRecord for a metadata.version kmeta does not know (level 99,
// a newer Kafka's) makes Load and Follow return an error naming the
// record's offset and the level (delta.ErrNewerVersion through the loader's
// halt), and the image published before it stays the one served.
func TestNewerMetadataVersionStopsLoadAndFollow(t *testing.T) {
	fl := func(level int16) []byte {
		r := record.NewFeatureLevelRecord()
		r.Name, r.FeatureLevel = image.MetadataVersionFeature, level
		return value(t, r)
	}
	dir := t.TempDir()
	seg, err := metalog.CreateSegment(metalog.OS{}, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seg.AppendData(1, 1000, append([][]byte{fl(int16(image.MV4_4_IV2))}, topic(t, "a", 1)...)...); err != nil {
		t.Fatal(err)
	}
	if _, err := seg.AppendData(1, 1001, fl(99)); err != nil {
		t.Fatal(err)
	}
	seg.Close()
	for _, follow := range []bool{false, true} {
		l := publisher.NewLoader(publisher.Config{FaultHandler: func(*publisher.Loader, *publisher.Fault) {}})
		cache := publisher.NewCache("")
		if err := l.Install(cache); err != nil {
			t.Fatal(err)
		}
		if follow {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err = dirfollow.Follow(ctx, l, dir, dirfollow.Options{Poll: 5 * time.Millisecond})
			cancel()
		} else {
			err = dirfollow.Load(l, dir)
		}
		if !errors.Is(err, delta.ErrNewerVersion) || !strings.Contains(err.Error(), "offset 3") || !strings.Contains(err.Error(), "level 99") {
			t.Fatalf("follow=%v: got %v, want delta.ErrNewerVersion naming offset 3 and level 99", follow, err)
		}
		if img := cache.Load(); img != nil {
			if mv, _ := img.Features().MetadataVersion(); mv != 0 && mv != image.MV4_4_IV2 {
				t.Fatalf("follow=%v: serving metadata.version %s", follow, mv)
			}
		}
		l.Close()
	}
}
