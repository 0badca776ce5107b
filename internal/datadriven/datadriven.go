// Package datadriven runs test scripts in the manner of etcd-io/raft's
// datadriven tests: a file is a sequence of cases, each a command line, an
// optional input, a line "----" and the expected output, ending at a blank
// line:
//
//	# a comment
//	create-topic orders 6 3
//	----
//	ok
//
//	metadata v12 listener=PLAINTEXT topics=orders
//	----
//	...
//
// An output that holds blank lines is written between "----" and "----"
// lines doubled (raft's form). Run hands each case to a handler and
// compares its output; with rewrite true it writes the file back with the
// outputs the handler gave, for review in a diff.
package datadriven

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// Case is one command of a script.
type Case struct {
	Pos   string   // file:line of the command
	Cmd   string   // the command's first word
	Args  []string // the other words, key=value or positional
	Input string   // the lines between the command and "----"
	Want  string   // the expected output
}

// Arg returns the value of key=value among the case's arguments.
func (c *Case) Arg(key string) (string, bool) {
	for _, a := range c.Args {
		if k, v, ok := strings.Cut(a, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// Positional returns the arguments that are not key=value.
func (c *Case) Positional() []string {
	var out []string
	for _, a := range c.Args {
		if !strings.Contains(a, "=") {
			out = append(out, a)
		}
	}
	return out
}

// Parse reads the cases of a script; the text between cases (comments and
// blank lines) is kept in the order it came for Rewrite.
func Parse(name, text string) ([]Case, []string, error) {
	lines := strings.Split(text, "\n")
	var cases []Case
	var between []string // text before each case, then the text after the last
	var pending strings.Builder
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			if i < len(lines)-1 || l != "" {
				pending.WriteString(l + "\n")
			}
			continue
		}
		c := Case{Pos: fmt.Sprintf("%s:%d", name, i+1)}
		f := strings.Fields(l)
		c.Cmd, c.Args = f[0], f[1:]
		var in []string
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			in = append(in, lines[i])
		}
		if i >= len(lines) {
			return nil, nil, fmt.Errorf("%s: no ---- after the command", c.Pos)
		}
		c.Input = strings.Join(in, "\n")
		var out []string
		if i+1 < len(lines) && lines[i+1] == "----" { // ---- ---- output ---- ----
			for i += 2; i+1 < len(lines) && !(lines[i] == "----" && lines[i+1] == "----"); i++ {
				out = append(out, lines[i])
			}
			if i+1 >= len(lines) {
				return nil, nil, fmt.Errorf("%s: no closing ---- ----", c.Pos)
			}
			i++
		} else {
			for i++; i < len(lines) && lines[i] != ""; i++ {
				out = append(out, lines[i])
			}
			i-- // the blank line is between-text
		}
		c.Want = strings.Join(out, "\n")
		between = append(between, pending.String())
		pending.Reset()
		cases = append(cases, c)
	}
	between = append(between, pending.String())
	return cases, between, nil
}

// format writes a case back with output got.
func format(b *strings.Builder, c Case, got string) {
	b.WriteString(c.Cmd)
	for _, a := range c.Args {
		b.WriteString(" " + a)
	}
	b.WriteString("\n")
	if c.Input != "" {
		b.WriteString(c.Input + "\n")
	}
	got = strings.TrimRight(got, "\n")
	if strings.Contains(got, "\n\n") {
		b.WriteString("----\n----\n" + got + "\n----\n----\n")
		return
	}
	b.WriteString("----\n" + got + "\n")
}

// Run runs the script at path: handle gets each case in order and returns
// its output. Outputs that differ from the script's fail t; with rewrite
// the script is written back with the outputs handle gave.
func Run(t *testing.T, path string, rewrite bool, handle func(t *testing.T, c *Case) string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases, between, err := Parse(path, string(data))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for i := range cases {
		c := &cases[i]
		got := strings.TrimRight(handle(t, c), "\n")
		if got == "" {
			got = "ok"
		}
		out.WriteString(between[i])
		format(&out, *c, got)
		if !rewrite && got != c.Want {
			t.Errorf("%s: %s: output differs (rerun with -rewrite to accept):\n%s", c.Pos, c.Cmd, diff(c.Want, got))
		}
	}
	out.WriteString(between[len(cases)])
	if rewrite {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("first difference at output line %d:\n- %s\n+ %s", i+1, a, b)
		}
	}
	return ""
}
