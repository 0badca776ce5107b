package node

import (
	"regexp"
	"slices"
	"strings"
)

// Resolve returns the components of path p, relative to the working
// directory cwd unless p starts with "/": Kafka's shell joins the two
// (CommandUtils.splitPath), then drops "" and "." components and lets ".."
// drop the one before it (stripDotPathComponents); ".." at the root stays
// at the root.
func Resolve(cwd []string, p string) []string {
	full := p
	if !strings.HasPrefix(p, "/") {
		full = "/" + strings.Join(cwd, "/") + "/" + p
	}
	var out []string
	for _, c := range strings.Split(full, "/") {
		switch c {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, c)
		}
	}
	return out
}

// Visit is Kafka's shell GlobVisitor: it resolves glob against cwd (see
// Resolve) and calls f with the path and node of every node under root that
// the glob's components match, in sorted order. A component with no glob
// characters names a child; one with ?, *, {a,b} or \ matches the names of
// a directory's children (GlobComponent); a component that is no valid glob
// (a nested or unclosed {) names a child too. Visit reports false when
// nothing matched.
func Visit(root Node, cwd []string, glob string, f func(path []string, n Node)) bool {
	comps := Resolve(cwd, glob)
	var walk func(i int, n Node, path []string) bool
	walk = func(i int, n Node, path []string) bool {
		if i == len(comps) {
			f(path, n)
			return true
		}
		if !n.IsDir() {
			return false
		}
		re, literal := globRegexp(comps[i])
		if literal {
			c := n.Child(comps[i])
			if c == nil {
				return false
			}
			return walk(i+1, c, append(slices.Clip(path), comps[i]))
		}
		matched := false
		for _, name := range n.ChildNames() {
			if !re.MatchString(name) {
				continue
			}
			if c := n.Child(name); c != nil && walk(i+1, c, append(slices.Clip(path), name)) {
				matched = true
			}
		}
		return matched
	}
	return walk(0, root, nil)
}

// globRegexp is GlobComponent.toRegularExpression: ? and * match, {a,b}
// alternates, \ escapes; literal is true for a component with none of the
// first three (escapes alone leave a literal, backslashes included), and for
// an invalid glob (a nested or unclosed {), which GlobComponent takes
// literally.
func globRegexp(g string) (*regexp.Regexp, bool) {
	var b strings.Builder
	b.WriteString("^")
	literal, group := true, false
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch c {
		case '?':
			literal = false
			b.WriteString(".")
		case '*':
			literal = false
			b.WriteString(".*")
		case '\\':
			if i+1 == len(g) {
				b.WriteString(`\\`)
			} else {
				i++
				b.WriteString(regexp.QuoteMeta(string(g[i])))
			}
		case '{':
			if group {
				return nil, true
			}
			literal, group = false, true
			b.WriteString("(?:(?:")
		case ',':
			if group {
				literal = false
				b.WriteString(")|(?:")
			} else {
				b.WriteString(",")
			}
		case '}':
			if group {
				literal, group = false, false
				b.WriteString("))")
			} else {
				b.WriteString("}")
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if group {
		return nil, true
	}
	if literal {
		return nil, true
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, true
	}
	return re, false
}
