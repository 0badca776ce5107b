// Package prefetch asks the CPU to bring memory into its caches ahead of a
// read (PREFETCHT0 on amd64; nothing elsewhere, or with the purego build
// tag). A prefetch is a hint: it reads nothing the program sees, never
// faults whatever the address, and changes no result, only how long the
// later reads wait.
//
// The client view's Merge uses it to fetch the answer's next partition
// entries while it compares the current ones (see clientview's
// prefetchAnswer).
package prefetch
