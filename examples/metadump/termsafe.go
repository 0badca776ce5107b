package main

import (
	"io"
	"strconv"
	"strings"
)

// Text for a terminal: every string from the log passes through termSafe
// (or escapeString) before it is written, so that a topic name, a config
// value or a principal holding ESC, CSI, OSC or BEL sequences prints as
// text (\x1b, \x07, \u009b) instead of driving the terminal. Newlines and
// tabs are kept; carriage returns are escaped (they would let a string
// overwrite the line it is on). JSON output is not passed through it:
// JSON's own escaping already writes control characters as \u00NN.

// termSafe is an io.Writer that escapes control characters: C0 (except
// '\n' and '\t'), DEL, and the C1 characters U+0080 to U+009F (encoded in
// UTF-8 as 0xC2 0x80..0x9F, which some terminals read as CSI and OSC).
type termSafe struct {
	w    io.Writer
	held bool // a 0xC2 byte at the end of the last write, not yet written
	buf  []byte
}

// Write writes p escaped; it reports len(p) when the escaped bytes were
// written.
func (t *termSafe) Write(p []byte) (int, error) {
	out := t.buf[:0]
	for _, c := range p {
		if t.held {
			t.held = false
			if c >= 0x80 && c <= 0x9f {
				out = append(out, `\u00`...)
				out = strconv.AppendUint(out, uint64(c), 16)
				continue
			}
			out = append(out, 0xc2)
		}
		switch {
		case c == 0xc2:
			t.held = true
		case c == '\n' || c == '\t':
			out = append(out, c)
		case c < 0x20 || c == 0x7f:
			out = append(out, `\x`...)
			if c < 0x10 {
				out = append(out, '0')
			}
			out = strconv.AppendUint(out, uint64(c), 16)
		default:
			out = append(out, c)
		}
	}
	t.buf = out
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a 0xC2 byte held back at the end of the last write.
func (t *termSafe) Flush() error {
	if !t.held {
		return nil
	}
	t.held = false
	_, err := t.w.Write([]byte{0xc2})
	return err
}

// escapeString is s as termSafe writes it.
func escapeString(s string) string {
	var b strings.Builder
	t := &termSafe{w: &b}
	t.Write([]byte(s))
	t.Flush()
	return b.String()
}
