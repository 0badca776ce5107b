//go:build !amd64 || purego

package prefetch

import "unsafe"

// Enabled reports whether Lines issues prefetch instructions: not on this
// architecture or with the purego build tag.
const Enabled = false

// Lines does nothing here (no prefetch instruction is issued).
func Lines(unsafe.Pointer, uintptr) {}
