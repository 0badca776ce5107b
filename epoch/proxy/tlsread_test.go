//go:build !go1.27

package proxy

// tlsReadAllocates: before Go 1.27, crypto/tls allocates once each time it
// reads from the network (Conn.readFromUntil hands bytes.Buffer.ReadFrom an
// atLeastReader, which escapes to the heap): once per request read from a
// TLS client, once per burst of records of a TLS answer upstream. Go 1.27
// reads into the record buffer without it.
const tlsReadAllocates = true
