package answer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/imagetest"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
)

// vectorCase is one row of an input's INDEX.tsv in vectors/answers: a
// request, the listener it arrived on, the broker's options, and how Kafka's
// answer may be normalised.
type vectorCase struct {
	name       string
	apiKey     int16
	version    int16
	listener   string
	options    map[string]string
	controller []int32 // ControllerId values Kafka may answer; nil: compare as is
	unordered  string
}

func parseVectorCase(tb testing.TB, row imagetest.IndexRow) vectorCase {
	tb.Helper()
	c := vectorCase{name: row["case"], listener: row["listener"], unordered: row["unordered"], options: map[string]string{}}
	k, err1 := strconv.ParseInt(row["apiKey"], 10, 16)
	v, err2 := strconv.ParseInt(row["version"], 10, 16)
	if err1 != nil || err2 != nil {
		tb.Fatalf("case %s: bad apiKey %q or version %q", c.name, row["apiKey"], row["version"])
	}
	c.apiKey, c.version = int16(k), int16(v)
	for _, kv := range strings.Split(row["options"], ";") {
		if kv == "" {
			continue
		}
		key, val, _ := strings.Cut(kv, "=")
		c.options[key] = val
	}
	if s := row["controllerId"]; s != "" {
		for _, id := range strings.Split(s, "|") {
			n, err := strconv.ParseInt(id, 10, 32)
			if err != nil {
				tb.Fatalf("case %s: bad controllerId %q", c.name, s)
			}
			c.controller = append(c.controller, int32(n))
		}
	}
	return c
}

// answerOptions turns the case's options into kmeta's: the listener, the
// cluster id, StandardAuthorizer with the principal, host, super users and
// allow.everyone.if.no.acl.found of the row, and on controller listeners the
// raft leader.
func (c *vectorCase) answerOptions(tb testing.TB, img *image.Image) (*Responder, Request) {
	tb.Helper()
	cfg := Config{ClusterID: c.options["clusterId"]}
	rq := Request{Listener: c.listener}
	switch a := c.options["authorizer"]; a {
	case "", "none":
	case "StandardAuthorizer":
		ac := authz.Config{AllowIfNoACLFound: c.options["allowEveryoneIfNoAclFound"] == "true"}
		for _, su := range strings.Split(c.options["superUsers"], ",") {
			if su != "" {
				ac.SuperUsers = append(ac.SuperUsers, su)
			}
		}
		cfg.Authorizer = authz.New(img.ACLs(), ac)
		rq.Principal, rq.Host = c.options["principal"], c.options["host"]
	default:
		tb.Fatalf("case %s: unknown authorizer %q", c.name, a)
	}
	switch e := c.options["endpoint"]; e {
	case "", "broker":
	case "controller":
		id, err := strconv.ParseInt(c.options["raftLeaderId"], 10, 32)
		if err != nil {
			tb.Fatalf("case %s: bad raftLeaderId %q", c.name, c.options["raftLeaderId"])
		}
		rq.Controller = &ViaController{LeaderID: int32(id)}
	default:
		tb.Fatalf("case %s: unknown endpoint %q", c.name, e)
	}
	return New(cfg), rq
}

// answerVector decodes req at the case's version and answers it from img.
func (c *vectorCase) answer(tb testing.TB, img *image.Image, reqBytes []byte) (kmsg.Response, error) {
	tb.Helper()
	req := kmsg.RequestForKey(c.apiKey)
	if req == nil {
		return nil, fmt.Errorf("unknown apiKey %d", c.apiKey)
	}
	req.SetVersion(c.version)
	if err := req.ReadFrom(reqBytes); err != nil {
		return nil, fmt.Errorf("request does not decode at v%d: %w", c.version, err)
	}
	r, rq := c.answerOptions(tb, img)
	switch req := req.(type) {
	case *kmsg.MetadataRequest:
		resp, _ := r.Metadata(img, req, rq)
		return resp, nil
	case *kmsg.DescribeClusterRequest:
		return r.DescribeCluster(img, req, rq), nil
	case *kmsg.DescribeTopicPartitionsRequest:
		return r.DescribeTopicPartitions(img, req, rq), nil
	case *kmsg.FindCoordinatorRequest:
		resp, _ := r.FindCoordinator(img, req, rq)
		return resp, nil
	}
	return nil, fmt.Errorf("no answer for %T", req)
}

// decodeResponse reads a response body of the case's API at its version.
func (c *vectorCase) decodeResponse(b []byte) (kmsg.Response, error) {
	r := kmsg.ResponseForKey(c.apiKey)
	r.SetVersion(c.version)
	if err := r.ReadFrom(b); err != nil {
		return nil, err
	}
	return r, nil
}

// normalise applies what answers/README.md allows and nothing else: a
// ControllerId among those the row lists is taken as Kafka's (KIP-590,
// getRandomAliveBrokerId), and the lists the row names as hash-ordered are
// sorted (Metadata topics by name then id, brokers by id; the trailing
// TOPIC_AUTHORIZATION_FAILED entries of DescribeTopicPartitions by name).
func (c *vectorCase) normalise(r kmsg.Response, kafkaController int32) {
	if c.controller != nil {
		switch r := r.(type) {
		case *kmsg.MetadataResponse:
			if slices.Contains(c.controller, r.ControllerID) {
				r.ControllerID = kafkaController
			}
		case *kmsg.DescribeClusterResponse:
			if slices.Contains(c.controller, r.ControllerID) {
				r.ControllerID = kafkaController
			}
		}
	}
	un := strings.Split(c.unordered, ",")
	has := func(s string) bool { return slices.Contains(un, s) }
	switch r := r.(type) {
	case *kmsg.MetadataResponse:
		if has("topics") {
			slices.SortStableFunc(r.Topics, func(a, b kmsg.MetadataResponseTopic) int {
				if x := cmpNullable(a.Topic, b.Topic); x != 0 {
					return x
				}
				return bytes.Compare(a.TopicID[:], b.TopicID[:])
			})
		}
		if has("brokers") {
			slices.SortStableFunc(r.Brokers, func(a, b kmsg.MetadataResponseBroker) int { return int(a.NodeID) - int(b.NodeID) })
		}
	case *kmsg.DescribeClusterResponse:
		if has("brokers") {
			slices.SortStableFunc(r.Brokers, func(a, b kmsg.DescribeClusterResponseBroker) int { return int(a.NodeID) - int(b.NodeID) })
		}
	case *kmsg.DescribeTopicPartitionsResponse:
		if strings.HasPrefix(c.unordered, "topics(TOPIC_AUTHORIZATION_FAILED") {
			i := len(r.Topics)
			for i > 0 && r.Topics[i-1].ErrorCode == int16(kafkaerr.TopicAuthorizationFailed) {
				i--
			}
			slices.SortStableFunc(r.Topics[i:], func(a, b kmsg.DescribeTopicPartitionsResponseTopic) int {
				return cmpNullable(a.Topic, b.Topic)
			})
		}
	}
}

func cmpNullable(a, b *string) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return strings.Compare(*a, *b)
}

func controllerOf(r kmsg.Response) int32 {
	switch r := r.(type) {
	case *kmsg.MetadataResponse:
		return r.ControllerID
	case *kmsg.DescribeClusterResponse:
		return r.ControllerID
	}
	return 0
}

// fieldDiffs lists the fields where two decoded responses differ, by path
// (Topics[3].Partitions[0].Leader), at most limit of them.
func fieldDiffs(kafka, kmeta any, limit int) []string {
	var out []string
	var walk func(path string, a, b reflect.Value)
	walk = func(path string, a, b reflect.Value) {
		if len(out) >= limit {
			return
		}
		switch a.Kind() {
		case reflect.Pointer:
			if a.IsNil() || b.IsNil() {
				if a.IsNil() != b.IsNil() {
					out = append(out, fmt.Sprintf("%s: Kafka %s, kmeta %s", path, showValue(a), showValue(b)))
				}
				return
			}
			walk(path, a.Elem(), b.Elem())
		case reflect.Struct:
			for i := 0; i < a.NumField(); i++ {
				f := a.Type().Field(i)
				if !f.IsExported() {
					continue
				}
				walk(strings.TrimPrefix(path+"."+f.Name, "."), a.Field(i), b.Field(i))
			}
		case reflect.Slice:
			if a.Type().Elem().Kind() != reflect.Struct {
				if !reflect.DeepEqual(a.Interface(), b.Interface()) && !(a.Len() == 0 && b.Len() == 0) {
					out = append(out, fmt.Sprintf("%s: Kafka %v, kmeta %v", path, a.Interface(), b.Interface()))
				}
				return
			}
			if a.Len() != b.Len() {
				out = append(out, fmt.Sprintf("%s: Kafka %d entries, kmeta %d", path, a.Len(), b.Len()))
			}
			for i := 0; i < min(a.Len(), b.Len()); i++ {
				walk(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))
			}
		default:
			if !reflect.DeepEqual(a.Interface(), b.Interface()) {
				out = append(out, fmt.Sprintf("%s: Kafka %s, kmeta %s", path, showValue(a), showValue(b)))
			}
		}
	}
	walk("", reflect.ValueOf(kafka), reflect.ValueOf(kmeta))
	return out
}

func showValue(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "null"
		}
		v = v.Elem()
	}
	if v.Kind() == reflect.String {
		return strconv.Quote(v.String())
	}
	if v.Kind() == reflect.Struct {
		return fmt.Sprintf("%+v", v.Interface())
	}
	return fmt.Sprint(v.Interface())
}

// vectorException is a case where kmeta answers on purpose otherwise than
// Kafka 4.3.1. want checks that Kafka's answer is the one the reason
// describes and builds, from Kafka's answers to sibling cases of the same
// input (sibling reads one), the answer kmeta gives instead, which the test
// then compares field by field like any other.
type vectorException struct {
	reason string
	// controllerFrom names the sibling case whose ControllerId values
	// apply (Kafka's exception answer has none).
	controllerFrom string
	want           func(req kmsg.Request, kafka kmsg.Response, sibling func(name string) kmsg.Response) (kmsg.Response, error)
}

// answerExceptions are the listed exceptions, by case name: the two
// requests on which Kafka 4.3.1 throws NullPointerException and answers
// UNKNOWN_SERVER_ERROR for every topic (getErrorResponse). kmeta answers as
// Kafka's code would if it did not throw.
var answerExceptions = map[string]vectorException{
	"md-v12-nullname": {
		controllerFrom: "md-v12-ids",
		reason:         "a null topic name at Metadata v12 reaches Topic.validate(null), a NullPointerException in Kafka; kmeta answers INVALID_TOPIC_EXCEPTION for the null name",
		want: func(req kmsg.Request, kafka kmsg.Response, sibling func(string) kmsg.Response) (kmsg.Response, error) {
			k := kafka.(*kmsg.MetadataResponse)
			if len(k.Topics) != 1 || k.Topics[0].ErrorCode != int16(kafkaerr.UnknownServerError) {
				return nil, fmt.Errorf("Kafka's answer is no longer UNKNOWN_SERVER_ERROR for the one topic: the exception may be obsolete")
			}
			// Brokers, cluster and controller as Kafka answers any v12
			// request on this listener.
			want := *sibling("md-v12-ids").(*kmsg.MetadataResponse)
			e := kmsg.NewMetadataResponseTopic()
			e.ErrorCode = int16(kafkaerr.InvalidTopic)
			want.Topics = []kmsg.MetadataResponseTopic{e}
			return &want, nil
		},
	},
	"dtp-named-emptyname": {
		reason: "a topic named \"\" without a cursor makes DescribeTopicPartitionsRequestHandler call partitionIndex() on a null cursor, a NullPointerException in Kafka; kmeta starts that topic at partition 0 and answers INVALID_TOPIC_EXCEPTION for it",
		want: func(req kmsg.Request, kafka kmsg.Response, sibling func(string) kmsg.Response) (kmsg.Response, error) {
			k := kafka.(*kmsg.DescribeTopicPartitionsResponse)
			for _, t := range k.Topics {
				if t.ErrorCode != int16(kafkaerr.UnknownServerError) {
					return nil, fmt.Errorf("Kafka's answer is no longer UNKNOWN_SERVER_ERROR for every topic: the exception may be obsolete")
				}
			}
			// Kafka's answers for the other names and for an invalid
			// name, from the case that asks for them without "".
			named := sibling("dtp-named").(*kmsg.DescribeTopicPartitionsResponse)
			want := kmsg.NewPtrDescribeTopicPartitionsResponse()
			var invalid *kmsg.DescribeTopicPartitionsResponseTopic
			for i := range named.Topics {
				if named.Topics[i].ErrorCode == int16(kafkaerr.InvalidTopic) {
					invalid = &named.Topics[i]
				}
			}
			if invalid == nil {
				return nil, fmt.Errorf("dtp-named has no invalid name")
			}
			empty := *invalid
			empty.Topic = new(string)
			want.Topics = append(want.Topics, empty)
			for _, rt := range req.(*kmsg.DescribeTopicPartitionsRequest).Topics {
				if rt.Topic == "" {
					continue
				}
				for _, t := range named.Topics {
					if t.Topic != nil && *t.Topic == rt.Topic {
						want.Topics = append(want.Topics, t)
					}
				}
			}
			return want, nil
		},
	},
}

// vectorTally counts the answers of TestKafkaAnswerVectors.
type vectorTally struct {
	inputs  int
	byAPI   map[string]*[4]int // equal, excepted, awaiting, differ
	skipped []string
}

func (t *vectorTally) sum(i int) int {
	n := 0
	for _, c := range t.byAPI {
		n += c[i]
	}
	return n
}

var apiNames = map[int16]string{3: "Metadata", 10: "FindCoordinator", 60: "DescribeCluster", 75: "DescribeTopicPartitions"}

// TestKafkaAnswerVectors replays every answer of vectors/answers, Kafka
// 4.3.1's own answers (KafkaApis.handleTopicMetadataRequest,
// handleDescribeCluster, handleDescribeTopicPartitionsRequest and
// handleFindCoordinatorRequest over KRaftMetadataCache): each request is
// decoded at its version, answered from kmeta's image of the named input
// with the row's listener and options, encoded at the same version and
// compared with Kafka's bytes after only the normalisation the README allows.
// An input whose image equals an earlier one's (SAME_AS) is answered from its
// own image with that input's cases. Inputs kmeta cannot load yet (Kafka 4.3
// and 4.4 files) are skipped by name; any other load failure fails.
func TestKafkaAnswerVectors(t *testing.T) {
	root := sharedtest.Path(t, "vectors", "answers")
	shared := sharedtest.Dir(t)
	inputs := imagetest.ReadIndex(t, filepath.Join(root, "INPUTS.tsv"))
	cases := map[string]string{}
	for _, in := range inputs {
		cases[in["input"]] = in["cases"]
	}
	tally := vectorTally{byAPI: map[string]*[4]int{}}
	for _, api := range apiNames {
		tally.byAPI[api] = new([4]int)
	}
	allowEveryoneKafka := allowEveryoneFollowsKafka(t)
	for _, in := range inputs {
		name := in["input"]
		t.Run(name, func(t *testing.T) {
			from := name
			if s := in["same_as"]; s != "" {
				from = s
			}
			if cases[from] == "0" || cases[from] == "" {
				tally.skipped = append(tally.skipped, name+" (Kafka 4.3.1 gives no answers: "+in["loaded_by"]+")")
				t.Skipf("Kafka 4.3.1 gives no answers for this input: %s", in["loaded_by"])
			}
			img, err := dirfollow.LoadPath(filepath.Join(shared, in["path"]))
			if err != nil {
				if newerKafka(in) {
					tally.skipped = append(tally.skipped, fmt.Sprintf("%s (kmeta cannot load it yet: %v)", name, err))
					t.Skipf("kmeta cannot load this Kafka %s input yet: %v", in["metadata_version"], err)
				}
				t.Fatalf("%s: %v", in["path"], err)
			}
			if mv, _ := img.Features().MetadataVersion(); mv.String() != in["metadata_version"] {
				if newerKafka(in) {
					tally.skipped = append(tally.skipped, fmt.Sprintf("%s (kmeta loads metadata.version %s as %s)", name, in["metadata_version"], mv))
					t.Skipf("kmeta cannot load this input yet: metadata.version %s read as %s", in["metadata_version"], mv)
				}
				t.Fatalf("%s: metadata.version %s, Kafka's %s", in["path"], mv, in["metadata_version"])
			}
			tally.inputs++
			dir := filepath.Join(root, filepath.FromSlash(from))
			rows := imagetest.ReadIndex(t, filepath.Join(dir, "INDEX.tsv"))
			byCase := map[string]imagetest.IndexRow{}
			for _, row := range rows {
				byCase[row["case"]] = row
			}
			for _, row := range rows {
				c := parseVectorCase(t, row)
				if ex, ok := answerExceptions[c.name]; ok && ex.controllerFrom != "" {
					c.controller = parseVectorCase(t, byCase[ex.controllerFrom]).controller
				}
				ok, diffs := runVector(t, img, dir, &c)
				api := apiNames[c.apiKey]
				n := tally.byAPI[api]
				switch {
				case ok && answerExceptions[c.name].reason != "":
					n[1]++
				case ok:
					n[0]++
				case !allowEveryoneKafka && c.options["allowEveryoneIfNoAclFound"] == "true":
					n[2]++
					t.Logf("awaiting image/authz's allow.everyone.if.no.acl.found rule: input %s case %s (%s v%d on %s): %s", name, c.name, api, c.version, c.listener, strings.Join(diffs, "; "))
				default:
					n[3]++
					t.Errorf("input %s case %s (%s v%d on %s): %s", name, c.name, api, c.version, c.listener, strings.Join(diffs, "; "))
				}
			}
		})
	}
	total := tally.sum(0) + tally.sum(1) + tally.sum(2) + tally.sum(3)
	t.Logf("answers over %d inputs: %d of %d equal to Kafka's, %d listed exceptions answered as documented, %d awaiting image/authz's allow.everyone.if.no.acl.found rule, %d differ",
		tally.inputs, tally.sum(0), total, tally.sum(1), tally.sum(2), tally.sum(3))
	for _, api := range []string{"Metadata", "DescribeCluster", "DescribeTopicPartitions", "FindCoordinator"} {
		n := tally.byAPI[api]
		t.Logf("  %s: %d equal, %d exceptions, %d awaiting, %d differ", api, n[0], n[1], n[2], n[3])
	}
	for _, s := range tally.skipped {
		t.Logf("  skipped input %s", s)
	}
}

// allowEveryoneFollowsKafka reports whether image/authz applies
// allow.everyone.if.no.acl.found as StandardAuthorizer does: only when no
// ACL matches the resource at all (an ACL for another principal on it makes
// the request DENIED). Until it does, the answers of the rows configured
// with allowEveryoneIfNoAclFound=true differ because of the authorizer, not
// of the answers, and are reported apart; once it does they must be equal.
func allowEveryoneFollowsKafka(t *testing.T) bool {
	a := authz.New(edgeImage(t).ACLs(), authz.Config{AllowIfNoACLFound: true})
	// Topic alpha has ACLs for User:alice and User:bob only.
	return !a.Authorize(authz.Context{Principal: "User:nobody", Host: "127.0.0.1"}, authz.OpDescribe, authz.ResourceTopic, "alpha")
}

// newerKafka reports an input written by Kafka 4.3 or later, which kmeta
// may not load until it knows those record versions and metadata.version
// levels.
func newerKafka(in imagetest.IndexRow) bool {
	p, mv := in["path"], in["metadata_version"]
	return strings.HasPrefix(p, "corpus/kraft-4.3/") || strings.HasPrefix(p, "vectors/snapshots-4.4/") ||
		strings.HasPrefix(mv, "4.3") || strings.HasPrefix(mv, "4.4")
}

// runVector answers one case and compares it with Kafka's answer; it
// returns whether they are equal and, if not, the differing fields.
func runVector(t *testing.T, img *image.Image, dir string, c *vectorCase) (bool, []string) {
	t.Helper()
	reqBytes, err := os.ReadFile(filepath.Join(dir, c.name+".req.bin"))
	if err != nil {
		t.Fatal(err)
	}
	kafkaBytes, err := os.ReadFile(filepath.Join(dir, c.name+".resp.bin"))
	if err != nil {
		t.Fatal(err)
	}
	kafka, err := c.decodeResponse(kafkaBytes)
	if err != nil {
		return false, []string{fmt.Sprintf("Kafka's response does not decode: %v", err)}
	}
	if again := kafka.AppendTo(nil); !bytes.Equal(again, kafkaBytes) {
		return false, []string{"Kafka's response does not re-encode to its bytes through kmsg: the comparison would lose fields"}
	}
	if ex, ok := answerExceptions[c.name]; ok {
		sibling := func(name string) kmsg.Response {
			b, err := os.ReadFile(filepath.Join(dir, name+".resp.bin"))
			if err != nil {
				t.Fatalf("exception %s: %v", c.name, err)
			}
			r, err := c.decodeResponse(b)
			if err != nil {
				t.Fatalf("exception %s: sibling %s: %v", c.name, name, err)
			}
			return r
		}
		req := kmsg.RequestForKey(c.apiKey)
		req.SetVersion(c.version)
		if err := req.ReadFrom(reqBytes); err != nil {
			t.Fatal(err)
		}
		if kafka, err = ex.want(req, kafka, sibling); err != nil {
			return false, []string{err.Error()}
		}
	}
	kafkaController := controllerOf(kafka)
	if c.apiKey == 3 && c.version == 0 {
		c.controller = nil // Metadata v0 carries no ControllerId
	}
	if c.controller != nil && !slices.Contains(c.controller, kafkaController) {
		return false, []string{fmt.Sprintf("Kafka's ControllerId %d is not among the listed %v", kafkaController, c.controller)}
	}
	mine, err := c.answer(t, img, reqBytes)
	if err != nil {
		return false, []string{err.Error()}
	}
	// Compare what is on the wire: decode kmeta's bytes back, so that
	// fields the version does not carry are defaults on both sides.
	mineBytes := mine.AppendTo(nil)
	back, err := c.decodeResponse(mineBytes)
	if err != nil {
		return false, []string{fmt.Sprintf("kmeta's response does not decode: %v", err)}
	}
	c.normalise(kafka, kafkaController)
	c.normalise(back, kafkaController)
	if bytes.Equal(kafka.AppendTo(nil), back.AppendTo(nil)) {
		return true, nil
	}
	d := fieldDiffs(kafka, back, 6)
	if len(d) == 0 {
		d = []string{"the bytes differ"}
	}
	return false, d
}
