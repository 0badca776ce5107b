package answer

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/config"
	"github.com/kmeta-go/kmeta/internal/datadriven"
)

// requestCommands answer requests and print the image.
func requestCommands() map[string]scriptCommand {
	return map[string]scriptCommand{
		"partitions": {"TOPIC", func(s *script, t *testing.T, c *datadriven.Case) string {
			return partitionsOf(s.image(t), arg(t, c, 0))
		}},
		"metadata":                  {"v=N|N-M listener=L [topics=a,b|all] [ids=NAME,...] [auto-create=true] [principal=P host=H] [topic-ops=true] [cluster-ops=true]", (*script).metadata},
		"describe-cluster":          {"v=N|N-M listener=L [fenced=true] [endpoint-type=N] [controller=LEADER] [cluster-ops=true]", (*script).describeCluster},
		"describe-topic-partitions": {"listener=L [topics=a,b] [limit=N] [cursor=TOPIC:P] [pages=true]", (*script).describeTopicPartitions},
		"find-coordinator":          {"v=N|N-M listener=L type=group|transaction|share keys=a,b", (*script).findCoordinator},
		"topic-config":              {"TOPIC [node=ID] [static=KEY:VALUE,...]", (*script).topicConfig},
	}
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
		// AppendMetadata is the same answer, encoded.
		if enc, _ := r.AppendMetadata(nil, img, req, rq); !bytes.Equal(enc, resp.AppendTo(nil)) {
			t.Fatalf("%s: v%d: AppendMetadata differs from Metadata's answer", c.Pos, v)
		}
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

// topicConfig prints TopicConfig on broker node (default 1) with the given
// static config: each config not from Kafka's default, its value, source
// and synonym.
func (s *script) topicConfig(t *testing.T, c *datadriven.Case) string {
	node := "1"
	if v, ok := list(c, "node"); ok && len(v) == 1 {
		node = v[0]
	}
	static := map[string]string{
		"process.roles": "broker", "node.id": node, "controller.listener.names": "CONTROLLER",
		"controller.quorum.bootstrap.servers": "localhost:9093", "listeners": "PLAINTEXT://:9092",
	}
	v, _ := list(c, "static")
	for _, kv := range v {
		name, val, _ := strings.Cut(kv, ":")
		static[name] = val
	}
	broker, err := config.NewBroker(static)
	if err != nil {
		return "error: " + err.Error()
	}
	vals, err := TopicConfig(s.image(t), broker, arg(t, c, 0))
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, cv := range vals {
		if cv.Source != config.SourceDefaultConfig {
			fmt.Fprintf(&b, "%s=%s source=%d synonym=%s\n", cv.Name, cv.Value, cv.Source, cv.Synonym)
		}
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}
