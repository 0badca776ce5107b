package dirfollow

import (
	"context"
	"time"

	"github.com/kmeta-go/kmeta/record/metalog"
)

// await polls the directory every poll until it holds a log segment or a
// frozen snapshot (Options.AwaitFiles), or ctx ends (its error).
func (f *follower) await(ctx context.Context, poll time.Duration) error {
	t := time.NewTicker(poll)
	defer t.Stop()
	for !f.hasMetadataFiles() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// hasMetadataFiles reports whether the directory exists and holds a log
// segment or a frozen snapshot; .checkpoint.part and .deleted files do not
// count (metalog.ParseSnapshotName refuses them).
func (f *follower) hasMetadataFiles() bool {
	ents, err := f.readDir()
	if err != nil {
		return false
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		if _, err := metalog.ParseSegmentName(e.Name()); err == nil {
			return true
		}
		if _, err := metalog.ParseSnapshotName(e.Name()); err == nil {
			return true
		}
	}
	return false
}
