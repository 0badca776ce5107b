// Package proxytest holds what the tests of epoch/proxy and examples/proxy
// share: request frames as clients send them (valid ones of every kind the
// proxy answers, and hostile ones drawn from a seed), a client's round trip,
// and a proxy process's CPU time and resident memory from /proc.
package proxytest
