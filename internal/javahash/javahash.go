// Package javahash is Java's String.hashCode, which Kafka's placement,
// HashMap iteration orders and coordinator partitions depend on, written
// once for the module.
package javahash

import "unicode/utf8"

// String is Java's String.hashCode of s: h = 31*h + c over the UTF-16 code
// units of s, with int32 wrap-around. Bytes of s that are not valid UTF-8
// count as U+FFFD, as Kafka's UTF-8 decoder replaces them.
func String(s string) int32 {
	var h int32
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			h = 31*h + int32(c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
		} else {
			h = 31*h + int32(r)
		}
	}
	return h
}
