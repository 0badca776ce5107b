package metaprops

import "strings"

// parseText reads java.util.Properties text as Properties.load(InputStream)
// does: bytes are ISO 8859-1 characters; a logical line may continue over
// natural lines ending in an odd number of backslashes; blank lines and lines
// starting with '#' or '!' are comments; the key ends at the first unescaped
// '=', ':' or blank, and one '=' or ':' with blanks around it separates it
// from the value; backslash escapes (\t, \n, \r, \f, \uXXXX, and any other
// character for itself) are resolved in keys and values. A later key
// replaces an earlier one. False is a malformed \uXXXX escape, which
// Properties.load refuses.
func parseText(data []byte) (map[string]string, bool) {
	kv := map[string]string{}
	for _, l := range logicalLines(latin1(data)) {
		k, v := splitKeyValue(l)
		uk, ok1 := unescape(k)
		uv, ok2 := unescape(v)
		if !ok1 || !ok2 {
			return nil, false // Properties.loadConvert: "Malformed \\uxxxx encoding."
		}
		kv[uk] = uv
	}
	return kv, true
}

func latin1(data []byte) string {
	var b strings.Builder
	b.Grow(len(data))
	for _, c := range data {
		b.WriteRune(rune(c))
	}
	return b.String()
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }

// logicalLines joins continued lines and drops comments and blank lines;
// each result keeps its escapes, with the backslash-newline joins removed.
// A natural line ends at "\n", "\r" or "\r\n".
func logicalLines(s string) []string {
	var out []string
	var cur strings.Builder
	continuing := false
	for s != "" {
		line := s
		s = ""
		if i := strings.IndexAny(line, "\r\n"); i >= 0 {
			rest := line[i+1:]
			if line[i] == '\r' && strings.HasPrefix(rest, "\n") {
				rest = rest[1:]
			}
			line, s = line[:i], rest
		}
		line = strings.TrimLeft(line, " \t\f")
		if !continuing && (line == "" || line[0] == '#' || line[0] == '!') {
			continue
		}
		body, cont := trailingBackslash(line)
		cur.WriteString(body)
		if continuing = cont; cont {
			continue
		}
		out = append(out, cur.String())
		cur.Reset()
	}
	if continuing {
		out = append(out, cur.String())
	}
	return out
}

// trailingBackslash reports whether line ends in an odd number of
// backslashes (a continuation), and returns it without that last one.
func trailingBackslash(line string) (string, bool) {
	n := 0
	for n < len(line) && line[len(line)-1-n] == '\\' {
		n++
	}
	if n%2 == 1 {
		return line[:len(line)-1], true
	}
	return line, false
}

// splitKeyValue splits a logical line at its first unescaped separator.
func splitKeyValue(l string) (string, string) {
	i := 0
	for i < len(l) {
		c := l[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || isBlank(c) {
			break
		}
		i++
	}
	if i > len(l) {
		i = len(l)
	}
	key, rest := l[:i], l[i:]
	rest = strings.TrimLeft(rest, " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	return key, rest
}

// unescape resolves Properties' backslash escapes; false is a malformed
// \uXXXX.
func unescape(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			if c != '\\' {
				b.WriteByte(c)
			}
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			r, ok := hex4(s[i+1:])
			if !ok {
				return "", false
			}
			b.WriteRune(r)
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), true
}

func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[:4]) {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
