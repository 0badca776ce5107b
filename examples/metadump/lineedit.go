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

func (e *lineEditor) readLine() (string, error) {
	buf := []rune{}
	pos := 0
	hi := len(e.history)
	saved := ""
	lastTab := false
	redraw := func() {
		fmt.Fprintf(e.out, "\r%s%s\x1b[K", e.prompt, string(buf))
		if back := len(buf) - pos; back > 0 {
			fmt.Fprintf(e.out, "\x1b[%dD", back)
		}
	}
	flush := func() {
		if f, ok := e.out.(interface{ Flush() error }); ok {
			f.Flush()
		}
	}
	fmt.Fprint(e.out, e.prompt)
	for {
		flush()
		r, _, err := e.in.ReadRune()
		if err != nil {
			return "", err
		}
		tab := false
		switch r {
		case '\r', '\n':
			fmt.Fprint(e.out, "\n")
			return string(buf), nil
		case 3: // Ctrl-C
			fmt.Fprint(e.out, "^C\n")
			return "", errInterrupted
		case 4: // Ctrl-D
			if len(buf) == 0 {
				fmt.Fprint(e.out, "\n")
				return "", io.EOF
			}
			if pos < len(buf) {
				buf = append(buf[:pos], buf[pos+1:]...)
			}
		case 1: // Ctrl-A
			pos = 0
		case 5: // Ctrl-E
			pos = len(buf)
		case 2: // Ctrl-B
			pos = max(0, pos-1)
		case 6: // Ctrl-F
			pos = min(len(buf), pos+1)
		case 11: // Ctrl-K
			buf = buf[:pos]
		case 21: // Ctrl-U
			buf = append([]rune{}, buf[pos:]...)
			pos = 0
		case 23: // Ctrl-W
			i := pos
			for i > 0 && buf[i-1] == ' ' {
				i--
			}
			for i > 0 && buf[i-1] != ' ' {
				i--
			}
			buf = append(buf[:i], buf[pos:]...)
			pos = i
		case 127, 8: // Backspace
			if pos > 0 {
				buf = append(buf[:pos-1], buf[pos:]...)
				pos--
			}
		case '\t':
			tab = true
			line := string(buf[:pos])
			start, cands := e.complete(line)
			switch {
			case len(cands) == 1:
				buf, pos = e.insert(buf, pos, start, cands[0])
			case len(cands) > 1:
				common := cands[0]
				for _, c := range cands[1:] {
					for !strings.HasPrefix(c, common) {
						common = common[:len(common)-1]
					}
				}
				if len([]rune(common)) > len([]rune(line[start:])) {
					buf, pos = e.insert(buf, pos, start, common)
				} else if lastTab {
					fmt.Fprint(e.out, "\n")
					names := make([]string, len(cands))
					for i, c := range cands {
						names[i] = strings.TrimSuffix(c, " ")
					}
					sh := &shell{out: e.out, width: e.width()}
					sh.printEntries("", names)
				}
			default:
				fmt.Fprint(e.out, "\a")
			}
		case 27: // escape sequences: ESC [ X or ESC O X
			b, err := e.in.ReadByte()
			if err != nil {
				return "", err
			}
			if b != '[' && b != 'O' {
				break
			}
			c, err := e.in.ReadByte()
			if err != nil {
				return "", err
			}
			for c >= '0' && c <= '9' { // ESC [ 3 ~ and friends
				if c, err = e.in.ReadByte(); err != nil {
					return "", err
				}
			}
			switch c {
			case 'D':
				pos = max(0, pos-1)
			case 'C':
				pos = min(len(buf), pos+1)
			case 'H':
				pos = 0
			case 'F':
				pos = len(buf)
			case 'A', 'B':
				if hi == len(e.history) {
					saved = string(buf)
				}
				if c == 'A' && hi > 0 {
					hi--
				} else if c == 'B' && hi < len(e.history) {
					hi++
				}
				if hi == len(e.history) {
					buf = []rune(saved)
				} else {
					buf = []rune(e.history[hi])
				}
				pos = len(buf)
			case '~': // Delete
				if pos < len(buf) {
					buf = append(buf[:pos], buf[pos+1:]...)
				}
			}
		default:
			if r >= ' ' {
				buf = append(buf[:pos], append([]rune{r}, buf[pos:]...)...)
				pos++
			}
		}
		lastTab = tab
		redraw()
	}
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
	s.out = w
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
