package answer

import (
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

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
func TestScripts(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scripts under testdata: %v", err)
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txt"), func(t *testing.T) {
			s := &script{}
			datadriven.Run(t, p, *rewrite, s.handle)
		})
	}
}

type script struct {
	sim *deltatest.Simulator
	img *image.Image // with load; else the simulator's image
	cfg Config
	std *authz.Config // authorizer=standard: built from each image's ACLs
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

func (s *script) handle(t *testing.T, c *datadriven.Case) string {
	pos := c.Positional()
	id := func(i int) int32 {
		if i >= len(pos) {
			t.Fatalf("%s: missing argument %d", c.Pos, i+1)
		}
		n, err := strconv.ParseInt(pos[i], 10, 32)
		if err != nil {
			t.Fatalf("%s: %v", c.Pos, err)
		}
		return int32(n)
	}
	op := func(err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return "ok"
	}
	switch c.Cmd {
	case "load":
		if len(pos) != 1 || pos[0] != "edge" {
			t.Fatalf("%s: load edge", c.Pos)
		}
		s.sim, s.img = nil, edgeImage(t)
		return "ok"
	case "sim":
		cfg := deltatest.Config{Seed: 1}
		if v, ok := c.Arg("seed"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			cfg.Seed = n
		}
		if v, ok := c.Arg("mv"); ok {
			n, _ := strconv.Atoi(v)
			mv, err := image.ParseMetadataVersionLevel(int16(n))
			if err != nil {
				t.Fatalf("%s: %v", c.Pos, err)
			}
			cfg.MetadataVersion = mv
		}
		if v, ok := c.Arg("elr"); ok {
			n, _ := strconv.Atoi(v)
			cfg.Features = map[string]int16{image.ELRFeature: int16(n)}
		}
		sim, err := deltatest.New(cfg)
		if err != nil {
			t.Fatalf("%s: %v", c.Pos, err)
		}
		s.sim, s.img = sim, nil
		return "ok"
	case "add-brokers":
		return op(s.sim.AddBrokers(int(id(0))))
	case "register-broker":
		spec := deltatest.BrokerSpec{ID: id(0)}
		spec.Rack, _ = c.Arg("rack")
		if v, ok := c.Arg("listeners"); ok {
			for _, l := range strings.Split(v, ",") {
				f := strings.Split(l, ":")
				if len(f) != 3 {
					t.Fatalf("%s: listener %q is not NAME:HOST:PORT", c.Pos, l)
				}
				port, _ := strconv.Atoi(f[2])
				spec.Listeners = append(spec.Listeners, image.Endpoint{Name: f[0], Host: f[1], Port: uint16(port)})
			}
		}
		return op(s.sim.RegisterBroker(spec))
	case "unfence-broker":
		return op(s.sim.UnfenceBroker(id(0)))
	case "fence-broker":
		return op(s.sim.FenceBroker(id(0)))
	case "crash-broker":
		return op(s.sim.CrashBroker(id(0)))
	case "unregister-broker":
		return op(s.sim.UnregisterBroker(id(0)))
	case "heartbeat":
		return op(s.sim.Heartbeat(id(0)))
	case "controlled-shutdown":
		return op(s.sim.ControlledShutdown(id(0)))
	case "create-topic":
		_, err := s.sim.CreateTopic(deltatest.TopicSpec{Name: pos[0], Partitions: int(id(1)), ReplicationFactor: int(id(2))})
		return op(err)
	case "delete-topic":
		return op(s.sim.DeleteTopic(pos[0]))
	case "shrink-isr":
		return op(s.sim.ShrinkISR(pos[0], id(1), id(2)))
	case "expand-isr":
		return op(s.sim.ExpandISR(pos[0], id(1), id(2)))
	case "elect-unclean":
		return op(s.sim.ElectUncleanLeader(pos[0], id(1)))
	case "set-topic-config":
		return op(s.sim.SetTopicConfig(pos[0], pos[1], pos[2]))
	case "set-feature":
		return op(s.sim.SetFeature(pos[0], int16(id(1))))
	case "advance":
		d, err := time.ParseDuration(pos[0])
		if err != nil {
			t.Fatalf("%s: %v", c.Pos, err)
		}
		return op(s.sim.Advance(d))
	case "config":
		return s.config(t, c)
	case "partitions":
		return partitionsOf(s.image(t), pos[0])
	case "metadata":
		return s.metadata(t, c)
	case "describe-cluster":
		return s.describeCluster(t, c)
	case "describe-topic-partitions":
		return s.describeTopicPartitions(t, c)
	case "find-coordinator":
		return s.findCoordinator(t, c)
	}
	t.Fatalf("%s: unknown command %q", c.Pos, c.Cmd)
	return ""
}

func (s *script) config(t *testing.T, c *datadriven.Case) string {
	s.cfg, s.std = Config{}, nil
	i32 := func(v string) int32 {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			t.Fatalf("%s: %v", c.Pos, err)
		}
		return int32(n)
	}
	for _, a := range c.Args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "cluster-id":
			s.cfg.ClusterID = v
		case "auto-create":
			s.cfg.DisableAutoCreateTopics = v == "false"
		case "group-partitions":
			s.cfg.GroupCoordinatorPartitions = i32(v)
		case "txn-partitions":
			s.cfg.TransactionCoordinatorPartitions = i32(v)
		case "share-partitions":
			s.cfg.ShareCoordinatorPartitions = i32(v)
		case "max-partitions":
			s.cfg.MaxRequestPartitionSizeLimit = i32(v)
		case "num-partitions":
			s.cfg.NumPartitions = i32(v)
		case "rf":
			s.cfg.DefaultReplicationFactor = int16(i32(v))
		case "internal-rf":
			s.cfg.InternalTopicReplicationFactor = int16(i32(v))
		case "authorizer":
			if v != "standard" {
				t.Fatalf("%s: authorizer=standard", c.Pos)
			}
			if s.std == nil {
				s.std = &authz.Config{}
			}
		case "super":
			if s.std == nil {
				s.std = &authz.Config{}
			}
			s.std.SuperUsers = strings.Split(v, ",")
		default:
			t.Fatalf("%s: unknown config %q", c.Pos, k)
		}
	}
	return "ok"
}

// versions is v=N or v=N-M.
func versions(t *testing.T, c *datadriven.Case, lo, hi int16) []int16 {
	v, ok := c.Arg("v")
	if !ok {
		t.Fatalf("%s: no v=", c.Pos)
	}
	a, b, rng := strings.Cut(v, "-")
	from, err1 := strconv.Atoi(a)
	to := from
	var err2 error
	if rng {
		to, err2 = strconv.Atoi(b)
	}
	if err1 != nil || err2 != nil || from < int(lo) || to > int(hi) || from > to {
		t.Fatalf("%s: v=%s: want versions within %d-%d", c.Pos, v, lo, hi)
	}
	var out []int16
	for x := from; x <= to; x++ {
		out = append(out, int16(x))
	}
	return out
}

func request(c *datadriven.Case) Request {
	var rq Request
	rq.Listener, _ = c.Arg("listener")
	rq.Principal, _ = c.Arg("principal")
	rq.Host, _ = c.Arg("host")
	return rq
}

func list(c *datadriven.Case, key string) ([]string, bool) {
	v, ok := c.Arg(key)
	if !ok {
		return nil, false
	}
	if v == "" {
		return []string{}, true
	}
	return strings.Split(v, ","), true
}

// each renders one answer per version, headed "vN:" when there are several.
func each(vs []int16, answer func(v int16) string) string {
	var b strings.Builder
	for _, v := range vs {
		if len(vs) > 1 {
			fmt.Fprintf(&b, "v%d:\n", v)
		}
		b.WriteString(answer(v))
	}
	return b.String()
}

func (s *script) metadata(t *testing.T, c *datadriven.Case) string {
	img := s.image(t)
	r, rq := s.responder(img), request(c)
	names, named := list(c, "topics")
	if named && len(names) == 1 && names[0] == "all" {
		names, named = nil, false
	}
	ids, _ := list(c, "ids")
	return each(versions(t, c, 0, 13), func(v int16) string {
		req := kmsg.NewPtrMetadataRequest()
		req.Version = v
		if named || ids != nil {
			req.Topics = []kmsg.MetadataRequestTopic{}
		}
		for _, n := range names {
			tp := kmsg.NewMetadataRequestTopic()
			switch n {
			case "<null>":
				tp.Topic = nil
			case "<long>": // 250 characters, one more than Topic.validate allows
				tp.Topic = kmsg.StringPtr(strings.Repeat("x", 250))
			default:
				tp.Topic = kmsg.StringPtr(n)
			}
			req.Topics = append(req.Topics, tp)
		}
		for _, n := range ids {
			tp := kmsg.NewMetadataRequestTopic()
			if x, ok := img.Topic(n); ok {
				tp.TopicID = x.ID()
			} else {
				tp.TopicID = [16]byte{15: 0xee} // an id the image does not have
			}
			req.Topics = append(req.Topics, tp)
		}
		a, _ := c.Arg("auto-create")
		req.AllowAutoTopicCreation = a == "true"
		to, _ := c.Arg("topic-ops")
		co, _ := c.Arg("cluster-ops")
		req.IncludeTopicAuthorizedOperations, req.IncludeClusterAuthorizedOperations = to == "true", co == "true"
		resp, create := r.Metadata(img, req, rq)
		return renderMetadata(t, resp) + renderCreate(create)
	})
}

func (s *script) describeCluster(t *testing.T, c *datadriven.Case) string {
	img := s.image(t)
	r, rq := s.responder(img), request(c)
	if v, ok := c.Arg("controller"); ok {
		n, _ := strconv.ParseInt(v, 10, 32)
		rq.Controller = &ViaController{LeaderID: int32(n)}
	}
	return each(versions(t, c, 0, 2), func(v int16) string {
		req := kmsg.NewPtrDescribeClusterRequest()
		req.Version = v
		f, _ := c.Arg("fenced")
		req.IncludeFencedBrokers = f == "true"
		if et, ok := c.Arg("endpoint-type"); ok {
			n, _ := strconv.Atoi(et)
			req.EndpointType = int8(n)
		}
		co, _ := c.Arg("cluster-ops")
		req.IncludeClusterAuthorizedOperations = co == "true"
		return renderDescribeCluster(t, r.DescribeCluster(img, req, rq))
	})
}

func (s *script) describeTopicPartitions(t *testing.T, c *datadriven.Case) string {
	img := s.image(t)
	r, rq := s.responder(img), request(c)
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	names, _ := list(c, "topics")
	for _, n := range names {
		tp := kmsg.NewDescribeTopicPartitionsRequestTopic()
		tp.Topic = n
		if n == "<long>" {
			tp.Topic = strings.Repeat("x", 250)
		}
		req.Topics = append(req.Topics, tp)
	}
	if v, ok := c.Arg("limit"); ok {
		n, _ := strconv.ParseInt(v, 10, 32)
		req.ResponsePartitionLimit = int32(n)
	}
	if v, ok := c.Arg("cursor"); ok {
		tn, p, _ := strings.Cut(v, ":")
		n, _ := strconv.ParseInt(p, 10, 32)
		cur := kmsg.NewDescribeTopicPartitionsRequestCursor()
		cur.Topic, cur.Partition = tn, int32(n)
		req.Cursor = &cur
	}
	pages, _ := c.Arg("pages")
	var b strings.Builder
	for page := 1; page <= 100; page++ {
		resp := r.DescribeTopicPartitions(img, req, rq)
		if pages == "true" {
			fmt.Fprintf(&b, "page %d:\n", page)
		}
		b.WriteString(renderDTP(t, resp))
		if pages != "true" || resp.NextCursor == nil {
			return b.String()
		}
		cur := kmsg.NewDescribeTopicPartitionsRequestCursor()
		cur.Topic, cur.Partition = resp.NextCursor.Topic, resp.NextCursor.Partition
		req.Cursor = &cur
	}
	t.Fatalf("%s: more than 100 pages", c.Pos)
	return ""
}

func (s *script) findCoordinator(t *testing.T, c *datadriven.Case) string {
	img := s.image(t)
	r, rq := s.responder(img), request(c)
	keyType := CoordinatorGroup
	switch ty, _ := c.Arg("type"); ty {
	case "", "group":
	case "transaction":
		keyType = CoordinatorTransaction
	case "share":
		keyType = CoordinatorShare
	default:
		n, err := strconv.Atoi(ty)
		if err != nil {
			t.Fatalf("%s: type=%s", c.Pos, ty)
		}
		keyType = int8(n)
	}
	keys, _ := list(c, "keys")
	return each(versions(t, c, 0, 6), func(v int16) string {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.Version, req.CoordinatorType = v, keyType
		if v < 4 {
			if len(keys) > 0 {
				req.CoordinatorKey = keys[0]
			}
		} else {
			req.CoordinatorKeys = keys
		}
		resp, create := r.FindCoordinator(img, req, rq)
		return renderFindCoordinator(t, resp) + renderCreate(create)
	})
}

// partitionsOf prints a topic's partitions as the image holds them.
func partitionsOf(img *image.Image, name string) string {
	tp, ok := img.Topic(name)
	if !ok {
		return "no topic " + name
	}
	var b strings.Builder
	for i := 0; i < tp.NumPartitions(); i++ {
		p := tp.PartitionAt(i)
		fmt.Fprintf(&b, "p%d leader=%d epoch=%d replicas=%v isr=%v elr=%v lastKnownElr=%v\n", p.ID(), p.Leader(), p.LeaderEpoch(), p.Replicas(), p.ISR(), p.ELR(), p.LastKnownELR())
	}
	return b.String()
}
