package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func shellRun(t *testing.T, dir, cmds string) string {
	t.Helper()
	out, errs, code := runDump(t, "-shell", "-c", cmds, dir)
	require.Equal(t, 0, code, errs)
	return out
}

// shellFail runs commands of which one fails: their output, and exit
// status 1 with the count on stderr.
func shellFail(t *testing.T, dir, cmds string) string {
	t.Helper()
	out, errs, code := runDump(t, "-shell", "-c", cmds, dir)
	require.Equal(t, 1, code, out)
	require.Contains(t, errs, "command(s) failed")
	return out
}

// TestShellKafkaLayout: the tree is kafka-metadata-shell's
// (RootShellNode, MetadataImageNode and the image node classes), and each
// leaf prints what Kafka's node prints.
func TestShellKafkaLayout(t *testing.T) {
	dir := incidentDir(t, 11)
	img, err := imageAt(dir, -1)
	require.NoError(t, err)

	require.Equal(t, "image\nlocal\n", shellRun(t, dir, "ls /"))
	require.Equal(t, "commitId\nversion\n", shellRun(t, dir, "ls /local")) // LocalShellNode
	require.Equal(t, "acls\nclientQuotas\ncluster\nconfigs\ndelegationToken\nfeatures\nproducerIds\nprovenance\nscram\ntopics\n", shellRun(t, dir, "ls /image"))
	require.Equal(t, "byId\nbyName\n", shellRun(t, dir, "ls /image/topics"))
	require.Equal(t, "audit\norders\npayments\n", shellRun(t, dir, "ls /image/topics/byName"))
	// TopicImageNode: name, id, then partitions; ls sorts.
	require.Equal(t, "0\n1\n2\n3\n4\n5\nid\nname\n", shellRun(t, dir, "ls /image/topics/byName/orders"))
	p, _ := img.Topics().ByName("orders")
	part, _ := p.Partition(3)
	require.Equal(t, part.String()+"\n", shellRun(t, dir, "cat /image/topics/byName/orders/3"))
	require.Equal(t, "orders\n", shellRun(t, dir, "cat /image/topics/byId/"+p.ID().String()+"/name"))
	require.Equal(t, "1\n2\n3\n4\n", shellRun(t, dir, "ls /image/cluster/brokers"))
	b, _ := img.Cluster().Broker(2)
	require.Equal(t, b.String()+"\n", shellRun(t, dir, "cat /image/cluster/brokers/2"))
	require.Equal(t, "3600000\n", shellRun(t, dir, "cat /image/configs/TOPIC:orders/retention.ms"))
	require.Equal(t, "4.1-IV1\n", shellRun(t, dir, "cat /image/features/metadataVersion"))
	require.Contains(t, shellRun(t, dir, "ls /image/features"), "finalized_eligible.leader.replicas.version\n")
	require.Equal(t, "SCRAM-SHA-256\nSCRAM-SHA-512\n", shellRun(t, dir, "ls /image/scram"))
	require.Equal(t, "nextProducerId\n", shellRun(t, dir, "ls /image/producerIds"))
	prov := img.Provenance()
	require.Equal(t, fmt.Sprintf("offset %d, epoch %d, time %s\n", prov.LastContainedOffset, prov.LastContainedEpoch, isoZoned(prov.LastContainedLogTimeMs)), shellRun(t, dir, "cat /image/provenance"))

	// ShellNodePrinter: "name:" and two more spaces per level.
	tree := shellRun(t, dir, "tree /image/topics/byName/payments")
	require.True(t, strings.HasPrefix(tree, "0:\n  PartitionRegistration("), tree)
	require.Contains(t, tree, "\nname:\n  payments\n")
}

// TestShellCommands: cd, pwd, globs, find, history, errors and -c's ';'.
func TestShellCommands(t *testing.T) {
	dir := incidentDir(t, 11)
	require.Equal(t, "/image/topics/byName/orders\nid\nname\n",
		shellRun(t, dir, "cd /image/topics/byName/orders; pwd; ls {id,name}"))
	require.Equal(t, "/image/topics\n", shellRun(t, dir, "cd /image/topics/byName; cd ..; pwd"))
	require.Equal(t, "/\n", shellRun(t, dir, "cd /image; cd; pwd"))
	// GlobVisitor: * and {a,b}, matches in sorted order.
	require.Equal(t, "audit\norders\npayments\n", shellRun(t, dir, "cat /image/topics/byName/*/name"))
	require.Equal(t, "orders\npayments\n", shellRun(t, dir, "cat /image/topics/byName/{orders,payments}/name"))
	// ls of several targets: "name:" headers, a blank line between them,
	// nothing for an empty directory (LsCommandHandler.printTargets).
	require.Equal(t, "\nbrokers:\n1\n2\n3\n4\n", shellRun(t, dir, "ls /image/cluster/controllers /image/cluster/brokers"))
	require.Equal(t, "cluster:\nbrokers\ncontrollers\n\ntopics:\nbyId\nbyName\n", shellRun(t, dir, "ls /image/cluster /image/topics"))
	require.Equal(t, "/image/cluster\n/image/cluster/brokers\n/image/cluster/brokers/1\n/image/cluster/brokers/2\n/image/cluster/brokers/3\n/image/cluster/brokers/4\n/image/cluster/controllers\n",
		shellRun(t, dir, "find /image/cluster"))
	require.Equal(t, "    0  pwd\n    1  ls /\n    2  history\n", shellRun(t, dir, "pwd; ls /; history")[2:][len("image\nlocal\n"):])
	require.Equal(t, "cat: /nope: No such file or directory.\n", shellFail(t, dir, "cat /nope"))
	require.Equal(t, "cat: /image: Is a directory\n", shellFail(t, dir, "cat /image"))
	require.Equal(t, "cd: /image/provenance: not a directory.\n", shellFail(t, dir, "cd /image/provenance"))
	require.Equal(t, "ls: /x: no such file or directory.\n", shellFail(t, dir, "ls /x"))
	require.Equal(t, "Unknown command specified: frobnicate\n", shellFail(t, dir, "frobnicate"))
	require.Equal(t, "/\n", shellRun(t, dir, "pwd; exit; pwd"))
}

// TestShellTimeTravel: "at" moves the shell to an earlier image and back;
// "diff" lists what changed between two points, as diffImages does.
func TestShellTimeTravel(t *testing.T) {
	dir := incidentDir(t, 11)
	tl, err := buildTimeline(dir, false)
	require.NoError(t, err)
	// The moment scratch is deleted: before it scratch exists, after not.
	var del moment
	for _, m := range tl.Moments {
		for _, l := range m.Diff {
			if strings.HasPrefix(l, "- topic scratch") {
				del = m
			}
		}
	}
	require.NotZero(t, del.Offset)
	out := shellRun(t, dir, fmt.Sprintf("cd /image/topics/byName; at %d; ls; at end; ls", del.From))
	require.Contains(t, out, "\norders\npayments\nscratch\n")
	require.True(t, strings.HasSuffix(out, "\naudit\norders\npayments\n"), out)
	require.Contains(t, out, fmt.Sprintf("at offset %d,", del.From))

	diff := shellRun(t, dir, fmt.Sprintf("at %d; diff %d", del.Offset, del.From))
	require.Contains(t, diff, "- topic scratch")
	a, _ := imageAt(dir, del.From)
	b, _ := imageAt(dir, del.Offset)
	want := imageDiffLines(a, b, false)
	require.Equal(t, len(want), strings.Count(diff, "\n")-2, diff)

	// A time: the first append time is the bootstrap.
	require.Contains(t, shellRun(t, dir, "at "+fmtMs(tl.Start)[:19]+"Z; ls /image/topics/byName"), "at offset ")
	require.Contains(t, shellFail(t, dir, "at yesterday"), "neither an offset nor")
}

// TestShellComplete: MetadataShellCompleter's candidates.
func TestShellComplete(t *testing.T) {
	dir := incidentDir(t, 11)
	var buf bytes.Buffer
	s, err := newShell(dir, false, &buf)
	require.NoError(t, err)
	_, c := s.complete("c")
	require.Equal(t, []string{"cat ", "cd "}, c)
	start, c := s.complete("ls /image/to")
	require.Equal(t, 3, start)
	require.Equal(t, []string{"/image/topics/"}, c)
	_, c = s.complete("cat /image/topics/byName/")
	require.Equal(t, []string{"/image/topics/byName/audit/", "/image/topics/byName/orders/", "/image/topics/byName/payments/"}, c)
	_, c = s.complete("cat /image/pro")
	require.Equal(t, []string{"/image/producerIds/", "/image/provenance "}, c)
	s.run("cd /image/cluster")
	_, c = s.complete("ls b")
	require.Equal(t, []string{"brokers/"}, c)
}

// TestShellEntityHistory: "history PATH" prints what package history read
// about a broker, a topic or a partition; "history N" stays Kafka's command
// history.
func TestShellEntityHistory(t *testing.T) {
	dir := incidentDir(t, 11)
	out := shellRun(t, dir, "history /image/cluster/brokers/2")
	require.Contains(t, out, "broker 2: 2 registration(s)")
	require.Contains(t, out, "fenced")
	out = shellRun(t, dir, "cd /image/topics/byName; history orders/0")
	require.Contains(t, out, "orders-0 (")
	require.Contains(t, out, "PARTITION_RECORD: created")
	require.Contains(t, out, "PARTITION_CHANGE_RECORD: ")
	out = shellRun(t, dir, "history /image/topics/byName/scratch")
	require.Contains(t, out, "topic scratch (")
	require.Contains(t, out, "partition 1:")
	require.Contains(t, shellFail(t, dir, "history /image/features"), "no history")
	require.Equal(t, "/\n    1  history 1\n", shellRun(t, dir, "pwd; history 1"))
}

// TestShellLineMode: without -c and with stdin not a terminal, the shell
// runs one command per line and prints no prompt.
func TestShellLineMode(t *testing.T) {
	dir := incidentDir(t, 11)
	var stdout, stderr bytes.Buffer
	code := runIO([]string{"-shell", dir}, strings.NewReader("cd /image/topics/byName\npwd\nls\nexit\nls /\n"), &stdout, &stderr)
	out, errs := stdout.String(), stderr.String()
	require.Equal(t, 0, code, errs)
	require.Equal(t, "/image/topics/byName\naudit\norders\npayments\n", out)
}
