package javahash

import (
	"testing"
	"unicode/utf16"
)

// TestStringIsJavas: String equals the definition of String.hashCode over
// the UTF-16 encoding (surrogate pairs for characters beyond U+FFFF,
// U+FFFD for invalid UTF-8), and known values of Java's ("".hashCode() is 0,
// "polygenelubricants".hashCode() is Integer.MIN_VALUE).
func TestStringIsJavas(t *testing.T) {
	def := func(s string) int32 {
		var h int32
		for _, c := range utf16.Encode([]rune(s)) {
			h = 31*h + int32(c)
		}
		return h
	}
	for _, s := range []string{"", "a", "group-1", "ñandú", "日本語グループ", "😀-emoji", "bad\xffutf8", "\xf0\x9f"} {
		if got, want := String(s), def(s); got != want {
			t.Errorf("%q: %d, want %d", s, got, want)
		}
	}
	if String("polygenelubricants") != -2147483648 || String("") != 0 || String("a") != 97 {
		t.Error("known Java hash codes differ")
	}
}
