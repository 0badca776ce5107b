// Package invariants says whether kmeta's expensive self-checks run, in the
// manner of pebble's internal/invariants: they are on in builds with the
// invariants build tag or the race detector (go test -race -tags
// invariants, as the CI script runs), and compile away otherwise.
//
// With them on, delta.Delta.Apply checks the image it builds (every index
// agrees with every other, lists are in their documented order) and
// clientview.View.Merge checks the view it returns, and both panic with what
// broke: a self-check that fails is a bug in kmeta, never bad input.
package invariants
