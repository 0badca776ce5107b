package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// lineEditor reads lines from a terminal in raw mode, with the editing keys
// of JLine's LineReader that the metadata shell uses: left/right, home/end
// (Ctrl-A/Ctrl-E), backspace, Ctrl-U, Ctrl-K, Ctrl-W, up/down through the
// history, Ctrl-C to drop the line, Ctrl-D on an empty line to leave, and
// Tab to complete (once: the longest common prefix; twice: the list).
type lineEditor struct {
	in       *bufio.Reader
	out      io.Writer
	prompt   string
	history  []string
	complete func(line string) (start int, cands []string)
	width    func() int
}

var errInterrupted = errors.New("interrupted")

// lineState is the line being edited: its runes, the cursor, the history
// entry shown (len(history): the line typed), the line typed while the
// history is shown, and whether the last key was Tab.
type lineState struct {
	buf     []rune
	pos     int
	hi      int
	saved   string
	lastTab bool
}

// readLine reads one line: Enter ends it, Ctrl-C drops it
// (errInterrupted), Ctrl-D on an empty line is io.EOF.
func (e *lineEditor) readLine() (string, error) {
	st := &lineState{buf: []rune{}, hi: len(e.history)}
	fmt.Fprint(e.out, e.prompt)
	for {
		if f, ok := e.out.(interface{ Flush() error }); ok {
			f.Flush()
		}
		r, _, err := e.in.ReadRune()
		if err != nil {
			return "", err
		}
		tab := false
		switch r {
		case '\r', '\n':
			fmt.Fprint(e.out, "\n")
			return string(st.buf), nil
		case 3: // Ctrl-C
			fmt.Fprint(e.out, "^C\n")
			return "", errInterrupted
		case 4: // Ctrl-D
			if len(st.buf) == 0 {
				fmt.Fprint(e.out, "\n")
				return "", io.EOF
			}
			st.deleteAtCursor()
		case '\t':
			tab = true
			e.tab(st)
		case 27: // escape sequences: ESC [ X or ESC O X
			if err := e.escape(st); err != nil {
				return "", err
			}
		default:
			st.edit(r)
		}
		st.lastTab = tab
		e.redraw(st)
	}
}

// redraw writes the prompt and the line over the current one and puts the
// cursor back at pos.
func (e *lineEditor) redraw(st *lineState) {
	// The line may hold a completed name from the log: shown escaped.
	fmt.Fprintf(e.out, "\r%s%s\x1b[K", e.prompt, escapeString(string(st.buf)))
	if back := len([]rune(escapeString(string(st.buf[st.pos:])))); back > 0 {
		fmt.Fprintf(e.out, "\x1b[%dD", back)
	}
}

// deleteAtCursor deletes the rune under the cursor, if any.
func (st *lineState) deleteAtCursor() {
	if st.pos < len(st.buf) {
		st.buf = append(st.buf[:st.pos], st.buf[st.pos+1:]...)
	}
}

// edit applies one editing key or inserts a printable rune.
func (st *lineState) edit(r rune) {
	switch r {
	case 1: // Ctrl-A
		st.pos = 0
	case 5: // Ctrl-E
		st.pos = len(st.buf)
	case 2: // Ctrl-B
		st.pos = max(0, st.pos-1)
	case 6: // Ctrl-F
		st.pos = min(len(st.buf), st.pos+1)
	case 11: // Ctrl-K
		st.buf = st.buf[:st.pos]
	case 21: // Ctrl-U
		st.buf = append([]rune{}, st.buf[st.pos:]...)
		st.pos = 0
	case 23: // Ctrl-W
		i := st.pos
		for i > 0 && st.buf[i-1] == ' ' {
			i--
		}
		for i > 0 && st.buf[i-1] != ' ' {
			i--
		}
		st.buf = append(st.buf[:i], st.buf[st.pos:]...)
		st.pos = i
	case 127, 8: // Backspace
		if st.pos > 0 {
			st.buf = append(st.buf[:st.pos-1], st.buf[st.pos:]...)
			st.pos--
		}
	default:
		if r >= ' ' {
			st.buf = append(st.buf[:st.pos], append([]rune{r}, st.buf[st.pos:]...)...)
			st.pos++
		}
	}
}

// tab completes the word before the cursor: the one candidate, else the
// longest common prefix, else (on a second Tab) the list of candidates.
func (e *lineEditor) tab(st *lineState) {
	line := string(st.buf[:st.pos])
	start, cands := e.complete(line)
	switch {
	case len(cands) == 1:
		st.buf, st.pos = e.insert(st.buf, st.pos, start, cands[0])
	case len(cands) > 1:
		common := cands[0]
		for _, c := range cands[1:] {
			for !strings.HasPrefix(c, common) {
				common = common[:len(common)-1]
			}
		}
		if len([]rune(common)) > len([]rune(line[start:])) {
			st.buf, st.pos = e.insert(st.buf, st.pos, start, common)
		} else if st.lastTab {
			fmt.Fprint(e.out, "\n")
			names := make([]string, len(cands))
			for i, c := range cands {
				names[i] = strings.TrimSuffix(c, " ")
			}
			sh := &shell{out: &termSafe{w: e.out}, width: e.width()}
			sh.printEntries("", names)
		}
	default:
		fmt.Fprint(e.out, "\a")
	}
}

// escape reads the rest of an escape sequence (ESC [ X or ESC O X, digits
// before X skipped) and applies its key: arrows, home, end, delete.
func (e *lineEditor) escape(st *lineState) error {
	b, err := e.in.ReadByte()
	if err != nil {
		return err
	}
	if b != '[' && b != 'O' {
		return nil
	}
	c, err := e.in.ReadByte()
	if err != nil {
		return err
	}
	for c >= '0' && c <= '9' { // ESC [ 3 ~ and friends
		if c, err = e.in.ReadByte(); err != nil {
			return err
		}
	}
	switch c {
	case 'D':
		st.pos = max(0, st.pos-1)
	case 'C':
		st.pos = min(len(st.buf), st.pos+1)
	case 'H':
		st.pos = 0
	case 'F':
		st.pos = len(st.buf)
	case 'A', 'B':
		e.historyStep(st, c == 'A')
	case '~': // Delete
		st.deleteAtCursor()
	}
	return nil
}

// historyStep shows the previous (up) or next history entry, the line typed
// after the last.
func (e *lineEditor) historyStep(st *lineState, up bool) {
	if st.hi == len(e.history) {
		st.saved = string(st.buf)
	}
	if up && st.hi > 0 {
		st.hi--
	} else if !up && st.hi < len(e.history) {
		st.hi++
	}
	if st.hi == len(e.history) {
		st.buf = []rune(st.saved)
	} else {
		st.buf = []rune(e.history[st.hi])
	}
	st.pos = len(st.buf)
}

// insert replaces the word that starts at byte start of the text before
// pos with word.
func (e *lineEditor) insert(buf []rune, pos, start int, word string) ([]rune, int) {
	before := []rune(string(buf[:pos])[:start])
	rest := buf[pos:]
	nb := append(append(before, []rune(word)...), rest...)
	return nb, len(before) + len([]rune(word))
}

// interactive is InteractiveShell.runMainLoop: the banner, then one command
// per line at the ">> " prompt until exit or end of input.
func interactive(s *shell, in, out *os.File) error {
	restore, err := makeRaw(in)
	if err != nil {
		return err
	}
	defer restore()
	w := bufio.NewWriter(out)
	defer w.Flush()
	s.out = &termSafe{w: w}
	s.width = screenWidth(out)
	fmt.Fprint(w, "[ Kafka Metadata Shell (kmeta) ]\n")
	ed := &lineEditor{in: bufio.NewReader(in), out: w, prompt: ">> ", complete: s.complete,
		width: func() int { return screenWidth(out) }}
	for !s.exit {
		w.Flush()
		line, err := ed.readLine()
		if errors.Is(err, errInterrupted) {
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		s.width = screenWidth(out)
		if strings.TrimSpace(line) != "" {
			ed.history = append(ed.history, line)
		}
		s.run(strings.TrimSpace(line))
	}
	return nil
}
