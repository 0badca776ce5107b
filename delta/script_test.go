package delta_test

import (
	"flag"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/datadriven"
	"github.com/kmeta-go/kmeta/record"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the scripts under testdata/ with the outputs given")

// TestReplayScripts runs the scripts under testdata/*.txt (etcd-io/raft's
// datadriven form): operations of a simulated KRaft controller
// (deltatest.Simulator, which writes the records Kafka's QuorumController
// writes for them and replays them through a Delta), records replayed by
// hand (Kafka's JSON form, for what no controller writes: a record that
// contradicts the image, a snapshot that renames a topic), and queries of
// the resulting image and of the delta of the last step (MetadataDelta and
// its change reports), each followed by its expected output.
// go test ./delta -run TestReplayScripts -rewrite writes the outputs given
// back into the scripts; a change to them is a change of behaviour to
// review. The commands are listed in scriptCommands.
func TestReplayScripts(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scripts under testdata: %v", err)
	}
	replayed, levels := map[record.Type]bool{}, map[image.MetadataVersion]bool{}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txt"), func(t *testing.T) {
			s := &replayScript{marks: map[string]*image.Image{}, names: map[string]string{}, replayed: replayed, levels: levels}
			datadriven.Run(t, p, *rewrite, s.handle)
		})
	}
	// The scripts replay every metadata record type (MetadataRecordType),
	// and logs written at every metadata.version.
	for mv := image.MV3_0_IV1; mv <= image.LatestMetadataVersion; mv++ {
		if !levels[mv] {
			t.Errorf("no script simulates metadata.version %s", mv)
		}
	}
	for ty := record.Type(0); ty < 64; ty++ {
		if ty.Known() && !replayed[ty] {
			t.Errorf("no script replays a %s", ty)
		}
	}
}

// replayScript is the state of one script: a simulator (or an image
// replayed by hand, detached from it), the delta of the last step, and
// images and ids the script named.
type replayScript struct {
	sim *deltatest.Simulator
	img *image.Image // the current image when no simulator drives it
	// last is the delta of the last step and from its first offset.
	last     *delta.Delta
	lastFrom int64
	marks    map[string]*image.Image
	names    map[string]string              // ACL and token ids by the script's name for them
	replayed map[record.Type]bool           // the record types replayed, by every script
	levels   map[image.MetadataVersion]bool // the metadata.versions simulated
}

// scriptCommand is one command of the scripts: its usage and its handler.
type scriptCommand struct {
	usage string
	run   func(s *replayScript, t *testing.T, c *datadriven.Case) string
}

// scriptCommands lists every command (rafttest's handlers, one a command).
var scriptCommands map[string]scriptCommand

func init() {
	scriptCommands = map[string]scriptCommand{}
	for _, group := range [][]namedCommand{simCommands(), brokerCommands(), topicCommands(), partitionCommands(), resourceCommands(), queryCommands()} {
		for _, nc := range group {
			scriptCommands[nc.name] = nc.scriptCommand
		}
	}
}

type namedCommand struct {
	name string
	scriptCommand
}

func (s *replayScript) handle(t *testing.T, c *datadriven.Case) string {
	cmd, ok := scriptCommands[c.Cmd]
	if !ok {
		var names []string
		for n := range scriptCommands {
			names = append(names, n)
		}
		sort.Strings(names)
		t.Fatalf("%s: unknown command %q (commands: %s)", c.Pos, c.Cmd, strings.Join(names, " "))
	}
	return cmd.run(s, t, c)
}

// image is the current image.
func (s *replayScript) image() *image.Image {
	if s.sim != nil {
		return s.sim.Image()
	}
	if s.img == nil {
		return image.Empty()
	}
	return s.img
}

// simulator is the script's simulator; a script that replayed records by
// hand must start one from its image first.
func (s *replayScript) simulator(t *testing.T, c *datadriven.Case) *deltatest.Simulator {
	if s.sim == nil {
		t.Fatalf("%s: %s needs a simulator (sim, or sim from-image after replay)", c.Pos, c.Cmd)
	}
	return s.sim
}

// step runs one simulator operation and keeps its delta as the last step.
func (s *replayScript) step(t *testing.T, c *datadriven.Case, op func(sim *deltatest.Simulator) error) string {
	sim := s.simulator(t, c)
	from := sim.NextOffset()
	d, _, err := sim.Step(func() error { return op(sim) })
	if err != nil { // the controller wrote nothing
		s.last, s.lastFrom = delta.New(sim.Image()), from
		return "error: " + err.Error()
	}
	s.last, s.lastFrom = d, from
	for _, b := range sim.BatchesFrom(from) {
		for _, r := range b.Records {
			s.replayed[r.Record.Type()] = true
		}
	}
	return "ok"
}

// arg helpers.

func pos(t *testing.T, c *datadriven.Case, i int) string {
	p := c.Positional()
	if i >= len(p) {
		t.Fatalf("%s: %s: missing argument %d (usage: %s %s)", c.Pos, c.Cmd, i+1, c.Cmd, scriptCommands[c.Cmd].usage)
	}
	return p[i]
}

func num(t *testing.T, c *datadriven.Case, v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("%s: %s: %v", c.Pos, c.Cmd, err)
	}
	return n
}

func id32(t *testing.T, c *datadriven.Case, i int) int32 { return int32(num(t, c, pos(t, c, i))) }

func ids(t *testing.T, c *datadriven.Case, v string) []int32 {
	out := []int32{}
	if v == "" {
		return out
	}
	for _, f := range strings.Split(v, ",") {
		out = append(out, int32(num(t, c, f)))
	}
	return out
}
