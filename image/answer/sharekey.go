package answer

import (
	"encoding/base64"
	"strconv"
	"strings"
	"unicode"
)

// ShareCoordinatorKey parses a share coordinator key
// "groupId:topicId:partition" as Kafka's SharePartitionKey.getInstance(String)
// does and returns the key the share coordinator hashes,
// SharePartitionKey.asCoordinatorKey ("groupId:topicId:partition" with the
// topic id as Uuid.toString prints it and the partition in decimal);
// ok is false where getInstance throws IllegalArgumentException (KafkaApis
// .getCoordinator then answers INVALID_REQUEST).
//
// As in Kafka: the key is split on ':' as String.split does (trailing empty
// parts dropped), read from the right (the group id may hold colons); the
// group id must not be empty after String.trim; the topic id is
// Uuid.fromString (at most 24 characters of URL-safe base64 decoding to 16
// bytes, "==" padding allowed); the partition is Integer.parseInt (an
// optional sign, decimal digits, within int32). So "g:id:+05" and
// "g:id==:5" hash as "g:id:5".
func ShareCoordinatorKey(key string) (string, bool) {
	if key == "" {
		return "", false
	}
	tokens := strings.Split(key, ":")
	for len(tokens) > 0 && tokens[len(tokens)-1] == "" {
		tokens = tokens[:len(tokens)-1] // String.split(regex) drops trailing empty strings
	}
	if len(tokens) < 3 {
		return "", false
	}
	last := len(tokens) - 1
	group := strings.Join(tokens[:last-1], ":")
	if strings.TrimFunc(group, func(r rune) bool { return r <= ' ' }) == "" {
		return "", false
	}
	id, ok := javaUUIDFromString(tokens[last-1])
	if !ok {
		return "", false
	}
	p, ok := javaParseInt(tokens[last])
	if !ok {
		return "", false
	}
	return group + ":" + base64.RawURLEncoding.EncodeToString(id[:]) + ":" + strconv.FormatInt(int64(p), 10), true
}

// javaUUIDFromString is Kafka's Uuid.fromString: at most 24 characters that
// java.util.Base64's URL decoder decodes to exactly 16 bytes. That decoder
// takes 22 characters of the URL-safe alphabet, optionally followed by "==",
// rejects any other character (line breaks included) and ignores the unused
// low bits of the last character.
func javaUUIDFromString(s string) ([16]byte, bool) {
	var id [16]byte
	if len(s) > 24 {
		return id, false
	}
	data := strings.TrimSuffix(s, "==")
	if len(data) != 22 {
		return id, false
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return id, false
		}
	}
	n, err := base64.RawURLEncoding.DecodeString(data)
	if err != nil || len(n) != 16 {
		return id, false
	}
	copy(id[:], n)
	return id, true
}

// javaParseInt is Integer.parseInt(s, 10): an optional '+' or '-', then at
// least one decimal digit (Character.digit: any Unicode decimal digit of the
// Basic Multilingual Plane), the value within int32.
func javaParseInt(s string) (int32, bool) {
	neg := false
	rs := []rune(s)
	if len(rs) > 0 && (rs[0] == '-' || rs[0] == '+') {
		neg = rs[0] == '-'
		rs = rs[1:]
	}
	if len(rs) == 0 {
		return 0, false
	}
	var v int64
	for _, r := range rs {
		d, ok := decimalDigit(r)
		if !ok {
			return 0, false
		}
		v = v*10 + int64(d)
		if v > 1<<31 {
			return 0, false
		}
	}
	if neg {
		v = -v
	}
	if v > 1<<31-1 || v < -1<<31 {
		return 0, false
	}
	return int32(v), true
}

// decimalDigit is Character.digit(ch, 10) for one UTF-16 unit: the value of
// a decimal digit (Unicode category Nd, which comes in runs of ten from 0 to
// 9). Characters outside the BMP are two units in Java, neither a digit.
func decimalDigit(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if r > 0xFFFF || !unicode.IsDigit(r) {
		return 0, false
	}
	n := 0
	for unicode.IsDigit(r - rune(n) - 1) {
		n++
	}
	return n % 10, true
}
