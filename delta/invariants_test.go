package delta

import (
	"testing"

	"github.com/kmeta-go/kmeta/internal/invariants"
)

// TestCheckImageHoldsOnRandomImages runs the invariants self-check directly,
// whatever the build tags, on the images of a random record stream.
func TestCheckImageHoldsOnRandomImages(t *testing.T) {
	t.Logf("invariants.Enabled = %v (on with -tags invariants or -race)", invariants.Enabled)
	for seed := uint64(1); seed <= 3; seed++ {
		img, _ := modelStream(t, seed, 300)
		if err := checkImage(img); err != nil {
			t.Fatalf("seed=%d: %v", seed, err)
		}
		if img.Topics().Len() == 0 {
			t.Fatalf("seed=%d: the stream built no topic, the check checked nothing", seed)
		}
	}
}
