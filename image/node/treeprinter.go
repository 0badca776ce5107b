package node

import (
	"fmt"
	"io"
	"strings"
)

// TreePrinter is a Printer that writes a tree as kafka-metadata-shell's
// tree command does (ShellNodePrinter): "name:" on a line of its own for
// each node entered, and what is under it, leaves' text included, two
// spaces further in. Use it as &TreePrinter{W: w}; it keeps the depth, so
// use one per Print.
type TreePrinter struct {
	// W receives the lines.
	W      io.Writer
	indent int
}

// EnterNode writes "name:" at the current depth and goes one level in.
func (p *TreePrinter) EnterNode(name string) {
	fmt.Fprintf(p.W, "%s%s:\n", strings.Repeat("  ", p.indent), name)
	p.indent++
}

// LeaveNode goes one level out.
func (p *TreePrinter) LeaveNode() { p.indent-- }

// Output writes a leaf's text at the current depth.
func (p *TreePrinter) Output(text string) {
	fmt.Fprintf(p.W, "%s%s\n", strings.Repeat("  ", p.indent), text)
}
