package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/node"
	"github.com/kmeta-go/kmeta/publisher/history"
)

// The shell is Kafka's kafka-metadata-shell (org.apache.kafka.shell) over
// kmeta's images: the same tree (RootShellNode), the same commands and
// output (ls, cd, cat, tree, find, pwd, history, help, exit, with
// GlobVisitor's globs), plus time travel: "at OFFSET|TIME" replaces the image
// with the image at that point of the log, and "diff" compares two points.

// shell is MetadataShellState plus the command history.
type shell struct {
	path       string
	unredacted bool
	img        *image.Image
	final      *image.Image
	root       node.Node
	cwd        []string
	hist       []string
	width      int // screen width for ls columns; 0 prints one column
	out        io.Writer
	exit       bool
	hist2      *history.History // the log's history, read on first use
	failed     int              // commands that reported an error
}

// failf prints a command's error and counts it (-shell -c and a script on
// stdin exit 1 when a command failed).
func (s *shell) failf(format string, args ...any) {
	s.failed++
	fmt.Fprintf(s.out, format, args...)
}

// failln is failf with fmt.Fprintln's formatting.
func (s *shell) failln(args ...any) {
	s.failed++
	fmt.Fprintln(s.out, args...)
}

func newShell(path string, unredacted bool, out io.Writer) (*shell, error) {
	img, err := history.ImageAt(path, history.End())
	if err != nil {
		return nil, err
	}
	s := &shell{path: path, unredacted: unredacted, final: img, out: out}
	s.setImage(img)
	return s, nil
}

func (s *shell) setImage(img *image.Image) {
	s.img = img
	s.root = shellRoot(img, s.unredacted)
}

// shellCommands are the command names, sorted (Commands.TYPES).
var shellCommands = [...]string{"at", "cat", "cd", "diff", "exit", "find", "help", "history", "ls", "pwd", "tree"}

// shellHelp is each command's help line (Command.Handler's description).
func shellHelp(c string) string {
	switch c {
	case "at":
		return "at [OFFSET|TIME|end]: travel to the image just after the record at OFFSET, or after the last batch appended at or before TIME (RFC 3339); no argument prints where the shell is."
	case "cat":
		return "cat TARGET...: show the contents of metadata files."
	case "cd":
		return "cd [TARGET]: set the current working directory."
	case "diff":
		return "diff A [B]: what changed from point A to point B (OFFSET, TIME or end; B defaults to the shell's current image)."
	case "exit":
		return "exit: exit the metadata shell."
	case "find":
		return "find [PATH...]: search for nodes in the directory hierarchy."
	case "help":
		return "help: display this help message."
	case "history":
		return "history [N]: print the last N commands (all without N); history PATH: what the log says about the broker, topic or partition at PATH."
	case "ls":
		return "ls [TARGET...]: list metadata nodes."
	case "pwd":
		return "pwd: print the current working directory."
	case "tree":
		return "tree TARGET...: show the contents of metadata nodes in a tree structure."
	}
	return ""
}

// run executes one command line (Commands.parseCommand and the handler).
func (s *shell) run(line string) {
	words, err := splitWords(line)
	if err != nil {
		s.failln("error:", err)
		return
	}
	if len(words) == 0 {
		return
	}
	s.hist = append(s.hist, line)
	cmd, args := words[0], words[1:]
	switch cmd {
	case "ls":
		s.ls(args)
	case "cd":
		s.cd(args)
	case "cat":
		s.catOrTree("cat", args)
	case "tree":
		s.catOrTree("tree", args)
	case "find":
		s.find(args)
	case "pwd":
		fmt.Fprintln(s.out, s.pwd())
	case "history":
		s.history(args)
	case "at":
		s.at(args)
	case "diff":
		s.diff(args)
	case "help", "man":
		for _, c := range shellCommands {
			fmt.Fprintln(s.out, shellHelp(c))
		}
	case "exit":
		s.exit = true
	default:
		s.failf("Unknown command specified: %s\n", cmd)
	}
}

func (s *shell) pwd() string { return "/" + strings.Join(s.cwd, "/") }

// absolute is path p's components, relative to the working directory
// (node.Resolve).
func (s *shell) absolute(p string) []string { return node.Resolve(s.cwd, p) }

// visit calls f for every node glob matches (node.Visit, Kafka's
// GlobVisitor); false when nothing matches.
func (s *shell) visit(glob string, f func(path []string, n node.Node)) bool {
	return node.Visit(s.root, s.cwd, glob, f)
}

func effectivePaths(args []string) []string {
	var out []string
	for _, a := range args {
		if a != "" {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		out = []string{"."}
	}
	return out
}

func lastComponent(path []string) string {
	if len(path) == 0 {
		return "/"
	}
	return path[len(path)-1]
}

// ls is LsCommandHandler: files first, then each directory's sorted
// children, with "name:" headers when more than one target prints, in
// columns when the screen width is known.
func (s *shell) ls(args []string) {
	var files []string
	type target struct {
		name     string
		children []string
	}
	var dirs []target
	for _, p := range effectivePaths(args) {
		ok := s.visit(p, func(path []string, n node.Node) {
			if n.IsDir() {
				dirs = append(dirs, target{lastComponent(path), n.ChildNames()})
			} else {
				files = append(files, lastComponent(path))
			}
		})
		if !ok {
			s.failf("ls: %s: no such file or directory.\n", p)
		}
	}
	s.printEntries("", files)
	needIntro := len(files) > 0 || len(dirs) > 1
	firstIntro := len(files) == 0
	for _, d := range dirs {
		intro := ""
		if needIntro {
			if !firstIntro {
				intro = "\n"
			}
			intro += d.name + ":"
			firstIntro = false
		}
		s.printEntries(intro, d.children)
	}
}

// printEntries is LsCommandHandler.printEntries with its column schema:
// the most columns (of at most width/4) whose widths (longest entry + 2)
// fit the screen, filled column by column.
func (s *shell) printEntries(intro string, entries []string) {
	if len(entries) == 0 {
		return
	}
	if intro != "" {
		fmt.Fprintln(s.out, intro)
	}
	cols, per, widths := 1, len(entries), []int{0}
	if maxCols := s.width / 4; maxCols > 1 {
		for n := maxCols; n > 1; n-- {
			p := (len(entries) + n - 1) / n
			w := make([]int, n)
			for i, e := range entries {
				w[i/p] = max(w[i/p], len(e)+2)
			}
			total := 0
			for _, x := range w {
				total += x
			}
			if w[n-1] != 0 && total <= s.width {
				cols, per, widths = n, p, w
				break
			}
		}
	}
	lines := (len(entries) + cols - 1) / cols
	for l := 0; l < lines; l++ {
		var b strings.Builder
		for c := 0; c < cols; c++ {
			i := l + c*per
			if i < len(entries) {
				b.WriteString(entries[i])
				if c < cols-1 {
					b.WriteString(strings.Repeat(" ", widths[c]-len(entries[i])))
				}
			}
		}
		fmt.Fprintln(s.out, b.String())
	}
}

// cd is CdCommandHandler.
func (s *shell) cd(args []string) {
	target := "/"
	if len(args) > 0 {
		target = args[0]
	}
	found := false
	ok := s.visit(target, func(path []string, n node.Node) {
		if found {
			return
		}
		found = true
		if !n.IsDir() {
			s.failf("cd: %s: not a directory.\n", target)
			return
		}
		s.cwd = slices.Clone(path)
	})
	if !ok {
		s.failf("cd: %s: no such directory.\n", target)
	}
}

// catOrTree is CatCommandHandler and TreeCommandHandler (ShellNodePrinter:
// "name:" then the children two spaces further in).
func (s *shell) catOrTree(cmd string, args []string) {
	if len(args) == 0 {
		s.failf("%s: too few arguments\n", cmd)
		return
	}
	for _, t := range args {
		ok := s.visit(t, func(path []string, n node.Node) {
			if cmd == "cat" {
				if n.IsDir() {
					s.failf("cat: %s: Is a directory\n", t)
				} else {
					fmt.Fprintln(s.out, n.Text())
				}
				return
			}
			node.Print(n, &node.TreePrinter{W: s.out})
		})
		if !ok {
			s.failf("%s: %s: No such file or directory.\n", cmd, t)
		}
	}
}

// find is FindCommandHandler: the path, then every node under it.
func (s *shell) find(args []string) {
	for _, p := range effectivePaths(args) {
		ok := s.visit(p, func(_ []string, n node.Node) {
			fmt.Fprintln(s.out, p)
			node.Print(n, &findPrinter{out: s.out, paths: []string{p}})
		})
		if !ok {
			s.failf("find: %s: no such file or directory.\n", p)
		}
	}
}

// findPrinter prints the path of every node entered, below the path it
// started from.
type findPrinter struct {
	out   io.Writer
	paths []string // the path of each node entered, innermost last
}

func (p *findPrinter) EnterNode(name string) {
	path := p.paths[len(p.paths)-1]
	next := path + "/" + name
	if path == "/" {
		next = path + name
	}
	fmt.Fprintln(p.out, next)
	p.paths = append(p.paths, next)
}

func (p *findPrinter) LeaveNode() { p.paths = p.paths[:len(p.paths)-1] }

func (*findPrinter) Output(string) {}

// history is HistoryCommandHandler: "% 5d  %s" per entry, numbered from 0.
func (s *shell) history(args []string) {
	n := len(s.hist)
	if len(args) > 0 {
		v, err := strconv.Atoi(args[0])
		if err != nil {
			s.entityHistory(args[0])
			return
		}
		n = max(0, min(v, len(s.hist)))
	}
	for i := len(s.hist) - n; i < len(s.hist); i++ {
		fmt.Fprintf(s.out, "%5d  %s\n", i, s.hist[i])
	}
}

// imageAtPoint is the image at OFFSET, an RFC 3339 time or "end"
// (history.ParsePoint, history.ImageAt: the image Kafka's loader publishes
// from the log cut just after the point).
func (s *shell) imageAtPoint(arg string) (*image.Image, error) {
	if arg == "end" || arg == "latest" {
		return s.final, nil
	}
	p, err := history.ParsePoint(arg)
	if err != nil {
		return nil, err
	}
	return history.ImageAt(s.path, p)
}

// at travels to another point of the log; the working directory stays when
// it still exists there.
func (s *shell) at(args []string) {
	if len(args) == 0 {
		p := s.img.Provenance()
		fmt.Fprintf(s.out, "at offset %d, epoch %d, time %s\n", p.LastContainedOffset, p.LastContainedEpoch, isoZoned(p.LastContainedLogTimeMs))
		return
	}
	img, err := s.imageAtPoint(args[0])
	if err != nil {
		s.failln("at:", err)
		return
	}
	s.setImage(img)
	p := img.Provenance()
	fmt.Fprintf(s.out, "at offset %d, epoch %d, time %s\n", p.LastContainedOffset, p.LastContainedEpoch, isoZoned(p.LastContainedLogTimeMs))
	for len(s.cwd) > 0 {
		if s.visit(s.pwd(), func([]string, node.Node) {}) {
			break
		}
		s.cwd = s.cwd[:len(s.cwd)-1]
	}
}

func (s *shell) diff(args []string) {
	if len(args) == 0 || len(args) > 2 {
		s.failln("diff: usage: diff A [B]")
		return
	}
	a, err := s.imageAtPoint(args[0])
	if err != nil {
		s.failln("diff:", err)
		return
	}
	b := s.img
	if len(args) == 2 {
		if b, err = s.imageAtPoint(args[1]); err != nil {
			s.failln("diff:", err)
			return
		}
	}
	lines := imageDiffLines(a, b, s.unredacted)
	fmt.Fprintf(s.out, "offset %d -> %d: %d change(s)\n", a.Provenance().LastContainedOffset, b.Provenance().LastContainedOffset, len(lines))
	for _, l := range lines {
		fmt.Fprintln(s.out, l)
	}
}

// splitWords splits a command line as JLine's DefaultParser does: blanks
// separate words, single and double quotes group, a backslash escapes.
func splitWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quote, esc := false, byte(0), false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case esc:
			cur.WriteByte(c)
			esc = false
		case c == '\\':
			esc, in = true, true
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, errors.New("unterminated quote")
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// complete is MetadataShellCompleter: command names for the first word,
// paths (CommandUtils.completePath) after it. It returns the candidates for
// the word being typed and where that word starts in line.
func (s *shell) complete(line string) (start int, cands []string) {
	start = strings.LastIndexAny(line, " \t") + 1
	word := line[start:]
	if strings.TrimSpace(line[:start]) == "" {
		for _, c := range shellCommands {
			if strings.HasPrefix(c, word) {
				cands = append(cands, c+" ")
			}
		}
		return start, cands
	}
	cmd := strings.Fields(line)[0]
	switch cmd {
	case "at", "diff", "exit", "help", "history", "pwd":
		return start, nil
	}
	comps := s.absolute(word)
	numDirs := len(comps) - 1
	if strings.HasSuffix(word, "/") || word == "" {
		numDirs = len(comps)
	}
	n := s.root
	for i := 0; i < numDirs; i++ {
		c := n.Child(comps[i])
		if c == nil || !c.IsDir() {
			return start, nil
		}
		n = c
	}
	last := ""
	if numDirs >= 0 && numDirs < len(comps) {
		last = comps[numDirs]
	}
	prefix := ""
	if i := strings.LastIndex(word, "/"); i >= 0 {
		prefix = word[:i+1]
	}
	for _, name := range n.ChildNames() {
		if !strings.HasPrefix(name, last) {
			continue
		}
		c := prefix + name
		if ch := n.Child(name); ch != nil && ch.IsDir() {
			c += "/"
		} else {
			c += " "
		}
		cands = append(cands, c)
	}
	return start, cands
}

// runShell is -shell: commands from -c (separated by ';' or newlines), else
// an interactive session on a terminal, else one command per line of stdin.
func runShell(path, commands string, unredacted bool, stdin io.Reader, stdout io.Writer) error {
	safe := &termSafe{w: stdout}
	defer safe.Flush()
	w := bufio.NewWriter(safe)
	defer w.Flush()
	s, err := newShell(path, unredacted, w)
	if err != nil {
		return err
	}
	if commands != "" {
		for _, line := range strings.FieldsFunc(commands, func(r rune) bool { return r == ';' || r == '\n' }) {
			s.run(strings.TrimSpace(line))
			if s.exit {
				break
			}
		}
		return s.failure()
	}
	if f, ok := stdin.(*os.File); ok && isTerminal(f) {
		if out, ok := stdout.(*os.File); ok {
			w.Flush()
			return interactive(s, f, out)
		}
	}
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		s.run(strings.TrimSpace(sc.Text()))
		if s.exit {
			break
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return s.failure()
}

// failure is the error of a run of commands of which some failed.
func (s *shell) failure() error {
	if s.failed == 0 {
		return nil
	}
	return fmt.Errorf("-shell: %d command(s) failed (printed above)", s.failed)
}
