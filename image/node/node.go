package node

import (
	"fmt"
	"slices"
)

// Node is Kafka's MetadataNode: a directory with named children, or a leaf
// with a line of text.
type Node interface {
	// IsDir reports whether the node is a directory.
	IsDir() bool
	// ChildNames returns the names of a directory's children, sorted; nil
	// for a leaf.
	ChildNames() []string
	// Child returns the child called name, or nil when there is none.
	Child(name string) Node
	// Text is what a leaf prints (MetadataLeafNode's string); "" for a
	// directory.
	Text() string
}

// Leaf is Kafka's MetadataLeafNode: a node with no children that prints
// its string.
type Leaf string

// IsDir reports false.
func (Leaf) IsDir() bool { return false }

// ChildNames returns nil.
func (Leaf) ChildNames() []string { return nil }

// Child returns nil.
func (Leaf) Child(string) Node { return nil }

// Text returns the leaf's string.
func (l Leaf) Text() string { return string(l) }

func leaff(format string, a ...any) Leaf { return Leaf(fmt.Sprintf(format, a...)) }

// Dir is a directory whose children are made when asked for: Names lists
// them (in any order) and Get makes one, or returns nil for a name it does
// not know. A nil Names or Get is a directory with no children.
type Dir struct {
	// Names returns the children's names; the slice may be sorted in place.
	Names func() []string
	// Get returns the child called name, or nil.
	Get func(name string) Node
}

// IsDir reports true.
func (Dir) IsDir() bool { return true }

// ChildNames returns the names Names returns, sorted.
func (d Dir) ChildNames() []string {
	if d.Names == nil {
		return nil
	}
	n := d.Names()
	slices.Sort(n)
	return n
}

// Child returns Get(name), or nil when Get is nil.
func (d Dir) Child(name string) Node {
	if d.Get == nil {
		return nil
	}
	return d.Get(name)
}

// Text returns "".
func (Dir) Text() string { return "" }

// Fixed returns a directory with the children of m, each made by its
// function when asked for.
func Fixed(m map[string]func() Node) Dir {
	return Dir{
		Names: func() []string {
			out := make([]string, 0, len(m))
			for k := range m {
				out = append(out, k)
			}
			return out
		},
		Get: func(name string) Node {
			if f, ok := m[name]; ok {
				return f()
			}
			return nil
		},
	}
}

// Printer is Kafka's MetadataNodePrinter: what Print tells as it walks a
// tree.
type Printer interface {
	// EnterNode is called before a child called name is printed.
	EnterNode(name string)
	// LeaveNode is called after that child.
	LeaveNode()
	// Output is called with a leaf's text.
	Output(text string)
}

// Print walks n as MetadataNode.print does: a leaf outputs its text; a
// directory enters each child in sorted order, prints it (when Child does
// not return nil) and leaves it.
func Print(n Node, p Printer) {
	if !n.IsDir() {
		p.Output(n.Text())
		return
	}
	for _, name := range n.ChildNames() {
		p.EnterNode(name)
		if c := n.Child(name); c != nil {
			Print(c, p)
		}
		p.LeaveNode()
	}
}
