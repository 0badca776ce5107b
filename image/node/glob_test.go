package node_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/image/node"
)

// globTree is a small tree for globs: /a/{x,y,z}, /b/x, /c (a leaf), and
// /odd/{"a*b", "{}", "a,b", "{x"} whose names hold glob characters.
func globTree() node.Node {
	leaf := func(s string) func() node.Node { return func() node.Node { return node.Leaf(s) } }
	return node.Fixed(map[string]func() node.Node{
		"a": func() node.Node {
			return node.Fixed(map[string]func() node.Node{"x": leaf("ax"), "y": leaf("ay"), "z": leaf("az")})
		},
		"b": func() node.Node { return node.Fixed(map[string]func() node.Node{"x": leaf("bx")}) },
		"c": leaf("c"),
		"odd": func() node.Node {
			return node.Fixed(map[string]func() node.Node{"a*b": leaf("star"), "{}": leaf("braces"), "a,b": leaf("comma"), "{x": leaf("open")})
		},
	})
}

// TestResolveStripDotPathComponents: Resolve is CommandUtils.splitPath and
// stripDotPathComponents relative to the working directory.
func TestResolveStripDotPathComponents(t *testing.T) {
	for _, tc := range []struct {
		cwd  []string
		p    string
		want []string
	}{
		{nil, "/", nil},
		{nil, "", nil},
		{[]string{"image", "topics"}, "byName", []string{"image", "topics", "byName"}},
		{[]string{"image", "topics"}, "../cluster//./brokers/", []string{"image", "cluster", "brokers"}},
		{[]string{"image"}, "/local", []string{"local"}},
		{[]string{"image"}, "../../..", nil},
		{nil, "a/b/../../c", []string{"c"}},
	} {
		if got := node.Resolve(tc.cwd, tc.p); !slices.Equal(got, tc.want) {
			t.Errorf("Resolve(%q, %q) = %q, want %q", tc.cwd, tc.p, got, tc.want)
		}
	}
}

// TestGlobVisitor: Visit reports every node a glob matches, sorted, with
// GlobComponent's ?, *, {a,b} and \ escapes; false when none matches.
func TestGlobVisitor(t *testing.T) {
	root := globTree()
	for _, tc := range []struct {
		cwd  []string
		glob string
		want string // matched paths, space-separated; "-" when Visit reports false
	}{
		{nil, "/", "/"},
		{nil, "/a/x", "/a/x"},
		{[]string{"a"}, "y", "/a/y"},
		{[]string{"a"}, "../b/*", "/b/x"},
		{nil, "/*/x", "/a/x /b/x"},
		{nil, "/a/?", "/a/x /a/y /a/z"},
		{nil, "/a/{x,z}", "/a/x /a/z"},
		{nil, "/{a,b}/x", "/a/x /b/x"},
		{nil, "/*", "/a /b /c /odd"},
		{nil, "/c/*", "-"}, // a leaf has no children
		{nil, "/c/x", "-"},
		{nil, "/a/w", "-"},
		{nil, "/a/{w,v}", "-"},
		{nil, `/odd/a\*?`, "/odd/a*b"},
		{nil, "/odd/a*b", "/odd/a*b /odd/a,b"},
		{nil, `/odd/\{\}*`, "/odd/{}"},
		{nil, `/odd/a\*b`, "-"},       // escapes alone leave a literal, backslashes and all
		{nil, "/odd/a,b", "/odd/a,b"}, // a comma outside {} is literal
		{nil, "/odd/{x", "/odd/{x"},   // an unclosed { is no glob: a literal name
		{nil, "/a/{{x}}", "-"},        // nor is a nested one
	} {
		var got []string
		ok := node.Visit(root, tc.cwd, tc.glob, func(path []string, n node.Node) {
			got = append(got, "/"+strings.Join(path, "/"))
		})
		s := strings.Join(got, " ")
		if !ok {
			s = "-"
			if len(got) > 0 {
				t.Errorf("%q: reported false after matching %q", tc.glob, got)
			}
		}
		if s != tc.want {
			t.Errorf("Visit(%q, %q) matched %s, want %s", tc.cwd, tc.glob, s, tc.want)
		}
	}
}
