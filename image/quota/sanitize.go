package quota

import (
	"unicode/utf8"
)

// Sanitize is Kafka's Sanitizer.sanitize: name URL-encoded as UTF-8
// (URLEncoder), with "*" as %2A and a space as %20, so that only ASCII
// letters, digits, ".", "-" and "_" stay as they are. It is how a broker
// names a principal in quota keys and metric tags (Session.sanitizedUser,
// ClientQuotaMetadataManager's UserEntity). A byte that is not valid
// UTF-8 is encoded as U+FFFD, the character Java decodes it to. Sanitize
// allocates only when name has a character to encode.
func Sanitize(name string) string {
	i := 0
	for i < len(name) && plain(name[i]) {
		i++
	}
	if i == len(name) {
		return name
	}
	out := make([]byte, i, len(name)+16)
	copy(out, name[:i])
	var buf [utf8.UTFMax]byte
	for i < len(name) {
		c := name[i]
		if plain(c) {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(name[i:])
		n := utf8.EncodeRune(buf[:], r) // RuneError for an invalid byte
		for _, b := range buf[:n] {
			out = append(out, '%', hexUpper[b>>4], hexUpper[b&15])
		}
		i += size
	}
	return string(out)
}

const hexUpper = "0123456789ABCDEF"

// plain reports whether URLEncoder leaves c as it is and Sanitizer keeps
// it ("*", which URLEncoder keeps, Sanitizer encodes).
func plain(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
}
