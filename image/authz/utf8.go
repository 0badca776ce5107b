package authz

import "unicode/utf8"

// javaString is s as Kafka holds it: the wire and the metadata log carry
// UTF-8, which Java decodes with new String(bytes, UTF_8), replacing each
// malformed sequence by U+FFFD: one per maximal subpart of an ill-formed
// sequence, as Unicode recommends, except that the JDK reads an encoded
// surrogate as one three-byte sequence. Comparing
// and taking prefixes of the re-encoded string is then comparing Java's
// strings. Valid UTF-8 is returned as it is.
func javaString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || n > 1 {
			b = append(b, s[i:i+n]...)
			i += n
			continue
		}
		// An ill-formed sequence: its maximal subpart is the lead byte
		// and the continuation bytes that can still follow it.
		i += maximalSubpart(s[i:])
		b = append(b, "\uFFFD"...)
	}
	return string(b)
}

// maximalSubpart is the length (at least 1) of the longest prefix of s
// that starts a well-formed UTF-8 sequence without completing one.
func maximalSubpart(s string) int {
	c := s[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC || c == 0xEE || c == 0xEF:
		need = 2
	case c == 0xED:
		// Java reads an encoded surrogate (ED A0..BF 80..BF) as one
		// malformed sequence of three bytes.
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(s); k++ {
		b := s[n]
		if b < lo || b > hi {
			break
		}
		lo, hi = 0x80, 0xBF
		n++
	}
	return n
}
