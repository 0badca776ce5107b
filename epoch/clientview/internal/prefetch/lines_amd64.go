//go:build !purego

package prefetch

import "unsafe"

// Enabled reports whether Lines issues prefetch instructions; when false,
// callers may skip computing the addresses.
const Enabled = true

// Lines asks the CPU to bring every 64-byte line of the n bytes from p into
// its caches. It is a hint (see the package documentation): any p and n are
// safe.
//
//go:noescape
func Lines(p unsafe.Pointer, n uintptr)
