package delta

import (
	"fmt"
	"testing"

	"github.com/kmeta-go/kmeta/internal/invariants"
)

// TestCheckImageHoldsOnRandomImages runs the invariants self-check directly,
// whatever the build tags, on the images of a random record stream.
func TestCheckImageHoldsOnRandomImages(t *testing.T) {
	t.Logf("invariants.Enabled = %v (on with -tags invariants or -race)", invariants.Enabled)
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			img, _ := modelStream(t, seed, 300)
			if err := checkImage(img); err != nil {
				t.Fatal(err)
			}
			if img.Topics().Len() == 0 {
				t.Fatal("the stream built no topic, the check checked nothing")
			}
		})
	}
}
