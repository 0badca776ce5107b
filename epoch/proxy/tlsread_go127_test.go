//go:build go1.27

package proxy

// tlsReadAllocates: from Go 1.27, crypto/tls reads records from the network
// without allocating (Conn.readFromUntil reads into its buffer directly).
const tlsReadAllocates = false
