package main

import (
	"runtime/debug"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/node"
	"github.com/kmeta-go/kmeta/image/redact"
)

// The shell's tree is the tree of Kafka's kafka-metadata-shell: RootShellNode
// holds /local (the tool) and /image, package node's MetadataImageNode.

// toolVersion and toolCommit are what /local prints (AppInfoParser's
// version and commit id in Kafka's shell): the module version and VCS
// revision Go stamped into the binary, "unknown" when none was.
func toolVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "unknown"
}

func toolCommit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "unknown"
}

// shellRoot is RootShellNode over img. Sensitive config values, SCRAM
// credentials and delegation tokens print as [redacted] (redact.Normal)
// unless unredacted.
func shellRoot(img *image.Image, unredacted bool) node.Node {
	crit := redact.Normal(nil)
	if unredacted {
		crit = redact.Disabled
	}
	return node.Fixed(map[string]func() node.Node{
		// LocalShellNode: the tool's own version and commit.
		"local": func() node.Node {
			return node.Fixed(map[string]func() node.Node{
				"version":  func() node.Node { return node.Leaf(toolVersion()) },
				"commitId": func() node.Node { return node.Leaf(toolCommit()) },
			})
		},
		"image": func() node.Node { return node.Image(img, crit) },
	})
}

// isoZoned prints ms as ProvenanceNode prints a time.
func isoZoned(ms int64) string { return node.ISOZoned(ms) }
