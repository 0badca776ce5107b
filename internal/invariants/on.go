//go:build invariants || race

package invariants

// Enabled is true: the self-checks run.
const Enabled = true
