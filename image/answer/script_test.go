package answer

import (
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/internal/datadriven"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the scripts under testdata/ with the answers given")

// TestScripts runs the scripts under testdata/*.txt (etcd-io/raft's
// datadriven form): simulator operations that build a cluster as Kafka's
// controller would, and requests answered by a Responder, each followed by
// its expected answer. go test ./image/answer -run TestScripts -rewrite
// writes the answers given back into the scripts; a change to them is a
// change of behaviour to review. Commands:
//
//	load edge                       the hand-built edgeImage (testimage_test.go)
//	sim [seed=N] [mv=LEVEL] [elr=0] a new simulated cluster (deltatest.Simulator)
//	add-brokers N                   register and unfence N brokers (PLAINTEXT)
//	register-broker ID [rack=R] [listeners=NAME:HOST:PORT,...]  registered, fenced
//	unfence-broker|fence-broker|crash-broker|unregister-broker|heartbeat|controlled-shutdown ID
//	create-topic NAME PARTITIONS RF   delete-topic NAME
//	shrink-isr|expand-isr TOPIC PARTITION BROKER   elect-unclean TOPIC PARTITION
//	set-feature NAME LEVEL          set-topic-config TOPIC KEY VALUE
//	register-controller|unregister-controller ID   (listener CONTROLLER)
//	set-broker-config BROKER|"" KEY VALUE   ("" is the cluster default)
//	set-quota TYPE=NAME|<default>... KEY=VALUE   (TYPE user, client-id, ip)
//	advance DURATION
//	config [cluster-id=S] [auto-create=false] [group-partitions=N] [txn-partitions=N]
//	       [share-partitions=N] [max-partitions=N] [num-partitions=N] [rf=N] [internal-rf=N]
//	       [authorizer=standard] [super=U,...]   the Responder's Config from now on
//	partitions TOPIC                the image's partitions of a topic
//	metadata v=N|N-M listener=L [topics=a,b|all] [ids=NAME,...] [auto-create=true]
//	         (topics: "" is an empty name, <null> a null one, <long> 250 x's)
//	         [principal=P host=H] [topic-ops=true] [cluster-ops=true]
//	describe-cluster v=N|N-M listener=L [fenced=true] [endpoint-type=N] [controller=LEADER]
//	describe-topic-partitions listener=L [topics=a,b] [limit=N] [cursor=TOPIC:P] [pages=true]
//	find-coordinator v=N|N-M listener=L type=group|transaction|share keys=a,b
//	topic-config TOPIC [node=ID] [static=KEY:VALUE,...]
//	client-quota USER CLIENT-ID KEY   ip-quota IP KEY
func TestScripts(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scripts under testdata: %v", err)
	}
	seen := map[string]bool{}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txt"), func(t *testing.T) {
			s := &script{seen: seen}
			datadriven.Run(t, p, *rewrite, s.handle)
		})
	}
	checkScriptCoverage(t, seen)
}

// checkScriptCoverage: the scripts ask every answer at every version the
// Responder answers, and exercise auto-creation, several listeners, fenced
// brokers, eligible leader replicas, pagination and every coordinator type.
func checkScriptCoverage(t *testing.T, seen map[string]bool) {
	var want []string
	for name := range requestCommands() {
		want = append(want, name)
	}
	for cmd, hi := range map[string]int{"metadata": 13, "describe-cluster": 2, "find-coordinator": 6} {
		for v := 0; v <= hi; v++ {
			want = append(want, fmt.Sprintf("%s v%d", cmd, v))
		}
	}
	want = append(want, "metadata auto-create=true", "find-coordinator auto-create", "describe-cluster fenced=true",
		"describe-topic-partitions pages=true", "find-coordinator type=group", "find-coordinator type=transaction",
		"find-coordinator type=share", "listener INTERNAL", "listener PLAINTEXT", "listener NO_SUCH_LISTENER",
		"describe-topic-partitions elr", "describe-cluster controller")
	for _, w := range want {
		if !seen[w] {
			t.Errorf("no script covers %q", w)
		}
	}
}

// note records what a case covers for checkScriptCoverage.
func (s *script) note(c *datadriven.Case, out string) {
	s.seen[c.Cmd] = true
	if v, ok := c.Arg("v"); ok {
		a, b, rng := strings.Cut(v, "-")
		lo, _ := strconv.Atoi(a)
		hi := lo
		if rng {
			hi, _ = strconv.Atoi(b)
		}
		for x := lo; x <= hi; x++ {
			s.seen[fmt.Sprintf("%s v%d", c.Cmd, x)] = true
		}
	}
	for _, a := range c.Args {
		if k, v, _ := strings.Cut(a, "="); k == "listener" {
			s.seen["listener "+v] = true
		} else if k == "controller" {
			s.seen[c.Cmd+" controller"] = true
		} else {
			s.seen[c.Cmd+" "+a] = true
		}
	}
	if strings.Contains(out, "create [{") {
		s.seen[c.Cmd+" auto-create"] = true
	}
	if c.Cmd == "describe-topic-partitions" && strings.Contains(strings.ReplaceAll(out, " elr=[]", ""), " elr=[") {
		s.seen["describe-topic-partitions elr"] = true
	}
}

type script struct {
	sim  *deltatest.Simulator
	img  *image.Image // with load; else the simulator's image
	cfg  Config
	std  *authz.Config   // authorizer=standard: built from each image's ACLs
	seen map[string]bool // what the scripts covered, for checkScriptCoverage
}

func (s *script) image(t *testing.T) *image.Image {
	if s.sim != nil {
		return s.sim.Image()
	}
	if s.img == nil {
		t.Fatal("no image: load or sim first")
	}
	return s.img
}

// responder is the Responder of the script's Config for img (a standard
// authorizer is built from img's ACLs).
func (s *script) responder(img *image.Image) *Responder {
	cfg := s.cfg
	if s.std != nil {
		cfg.Authorizer = authz.New(img.ACLs(), *s.std)
	}
	return New(cfg)
}

// scriptCommand is one command of the scripts: its usage and its handler
// (rafttest's handlers, one a command).
type scriptCommand struct {
	usage string
	run   func(s *script, t *testing.T, c *datadriven.Case) string
}

// scriptCommands lists every command; TestScripts' doc shows them.
var scriptCommands map[string]scriptCommand

func init() {
	scriptCommands = map[string]scriptCommand{}
	for _, group := range []map[string]scriptCommand{simCommands(), requestCommands()} {
		for name, cmd := range group {
			scriptCommands[name] = cmd
		}
	}
}

func (s *script) handle(t *testing.T, c *datadriven.Case) string {
	cmd, ok := scriptCommands[c.Cmd]
	if !ok {
		t.Fatalf("%s: unknown command %q", c.Pos, c.Cmd)
	}
	out := cmd.run(s, t, c)
	s.note(c, out)
	return out
}

// arg returns positional argument i.
func arg(t *testing.T, c *datadriven.Case, i int) string {
	pos := c.Positional()
	if i >= len(pos) {
		t.Fatalf("%s: %s: missing argument %d (usage: %s %s)", c.Pos, c.Cmd, i+1, c.Cmd, scriptCommands[c.Cmd].usage)
	}
	return pos[i]
}

// id returns positional argument i as a number.
func id(t *testing.T, c *datadriven.Case, i int) int32 {
	n, err := strconv.ParseInt(arg(t, c, i), 10, 32)
	if err != nil {
		t.Fatalf("%s: %v", c.Pos, err)
	}
	return int32(n)
}

// result is the output of an operation.
func result(err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return "ok"
}
