package answer

import (
	"bufio"
	"encoding/base64"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

func uuidString(id [16]byte) string {
	if id == [16]byte{} {
		return "ZERO"
	}
	return base64.RawURLEncoding.EncodeToString(id[:])
}

func strp(s *string) string {
	if s == nil {
		return "null"
	}
	return fmt.Sprintf("%q", *s)
}

// renderMetadata prints a Metadata response, one line per broker, topic and
// partition, after checking it encodes and decodes at its version.
func renderMetadata(t *testing.T, r *kmsg.MetadataResponse) string {
	t.Helper()
	roundTrip(t, r)
	var b strings.Builder
	fmt.Fprintf(&b, "  cluster=%s controller=%d clusterOps=%d err=%d\n", strp(r.ClusterID), r.ControllerID, r.AuthorizedOperations, r.ErrorCode)
	for _, br := range r.Brokers {
		fmt.Fprintf(&b, "  broker %d %s:%d rack=%s\n", br.NodeID, br.Host, br.Port, strp(br.Rack))
	}
	for _, tp := range r.Topics {
		fmt.Fprintf(&b, "  topic %s err=%d id=%s internal=%t ops=%d\n", strp(tp.Topic), tp.ErrorCode, uuidString(tp.TopicID), tp.IsInternal, tp.AuthorizedOperations)
		for _, p := range tp.Partitions {
			fmt.Fprintf(&b, "    p%d err=%d leader=%d epoch=%d replicas=%v isr=%v offline=%v\n", p.Partition, p.ErrorCode, p.Leader, p.LeaderEpoch, p.Replicas, p.ISR, p.OfflineReplicas)
		}
	}
	return b.String()
}

func renderDescribeCluster(t *testing.T, r *kmsg.DescribeClusterResponse) string {
	roundTrip(t, r)
	var b strings.Builder
	fmt.Fprintf(&b, "  err=%d msg=%s type=%d cluster=%q controller=%d ops=%d\n", r.ErrorCode, strp(r.ErrorMessage), r.EndpointType, r.ClusterID, r.ControllerID, r.ClusterAuthorizedOperations)
	for _, br := range r.Brokers {
		fmt.Fprintf(&b, "  broker %d %s:%d rack=%s fenced=%t\n", br.NodeID, br.Host, br.Port, strp(br.Rack), br.IsFenced)
	}
	return b.String()
}

func renderDTP(t *testing.T, r *kmsg.DescribeTopicPartitionsResponse) string {
	roundTrip(t, r)
	var b strings.Builder
	for _, tp := range r.Topics {
		fmt.Fprintf(&b, "  topic %s err=%d id=%s internal=%t ops=%d\n", strp(tp.Topic), tp.ErrorCode, uuidString(tp.TopicID), tp.IsInternal, tp.AuthorizedOperations)
		for _, p := range tp.Partitions {
			fmt.Fprintf(&b, "    p%d err=%d leader=%d epoch=%d replicas=%v isr=%v elr=%v lastKnownElr=%v offline=%v\n", p.Partition, p.ErrorCode, p.LeaderID, p.LeaderEpoch, p.Replicas, p.ISR, p.EligibleLeaderReplicas, p.LastKnownELR, p.OfflineReplicas)
		}
	}
	if r.NextCursor != nil {
		fmt.Fprintf(&b, "  next %q %d\n", r.NextCursor.Topic, r.NextCursor.Partition)
	} else {
		b.WriteString("  next null\n")
	}
	return b.String()
}

func renderFindCoordinator(t *testing.T, r *kmsg.FindCoordinatorResponse) string {
	roundTrip(t, r)
	var b strings.Builder
	if r.Version < 4 {
		fmt.Fprintf(&b, "  err=%d msg=%s node=%d %s:%d\n", r.ErrorCode, strp(r.ErrorMessage), r.NodeID, r.Host, r.Port)
	}
	for _, c := range r.Coordinators {
		fmt.Fprintf(&b, "  key=%q err=%d msg=%s node=%d %s:%d\n", c.Key, c.ErrorCode, strp(c.ErrorMessage), c.NodeID, c.Host, c.Port)
	}
	return b.String()
}

func renderCreate(c []CreateTopic) string {
	if len(c) == 0 {
		return ""
	}
	return fmt.Sprintf("  create %v\n", c)
}

// roundTrip checks that a response encodes at its version and decodes back to
// the same encoding.
func roundTrip(t *testing.T, r kmsg.Response) {
	t.Helper()
	enc := r.AppendTo(nil)
	back := r.RequestKind().ResponseKind()
	back.SetVersion(r.GetVersion())
	if err := back.ReadFrom(enc); err != nil {
		t.Fatalf("%T v%d does not decode: %v", r, r.GetVersion(), err)
	}
	if again := back.AppendTo(nil); string(again) != string(enc) {
		t.Fatalf("%T v%d does not round-trip", r, r.GetVersion())
	}
}

func mdReq(v int16, names ...string) *kmsg.MetadataRequest {
	r := kmsg.NewPtrMetadataRequest()
	r.Version = v
	if names != nil {
		r.Topics = []kmsg.MetadataRequestTopic{}
	}
	for _, n := range names {
		t := kmsg.NewMetadataRequestTopic()
		s := n
		t.Topic = &s
		r.Topics = append(r.Topics, t)
	}
	return r
}

// goldenCase is one image the golden answers are taken from.
type goldenCase struct {
	name string
	img  *image.Image
}

// goldenImages are the images of the kmeta-written golden files: only the
// edge image, built here, which holds cases no Kafka vector has (a fenced
// leader, an unregistered replica, an offline log dir, a leader without the
// listener, ACL patterns, fixed coordinator partition counts). The answers
// for the real corpus and the snapshot scenarios are Kafka's own and are
// checked by TestKafkaAnswerVectors.
func goldenImages(t *testing.T) []goldenCase {
	return []goldenCase{{"edge", edgeImage(t)}}
}

// listeners returns every listener name of the image's brokers, sorted.
func listeners(img *image.Image) []string {
	var out []string
	for b := range img.Cluster().Brokers() {
		for _, ep := range b.Listeners() {
			if !slices.Contains(out, ep.Name) {
				out = append(out, ep.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// principals returns the principals the image's ACLs name, sorted.
func principals(img *image.Image) []string {
	var out []string
	for a := range img.ACLs().All() {
		if !slices.Contains(out, a.Principal) {
			out = append(out, a.Principal)
		}
	}
	slices.Sort(out)
	return out
}

// TestGolden writes every answer for each golden image to
// testdata/golden/<image>.txt and compares (go test -run TestGolden -update
// rewrites them). These files are kmeta's own answers, kept only for what
// Kafka's vectors cannot answer (see testdata/golden/README.md). The rules each case exercises are
// (KafkaApis.handleTopicMetadataRequest, handleDescribeCluster,
// DescribeTopicPartitionsRequestHandler, getCoordinator).
func TestGolden(t *testing.T) {
	for _, gc := range goldenImages(t) {
		t.Run(gc.name, func(t *testing.T) {
			got := goldenText(t, gc.img)
			path := filepath.Join("testdata", "golden", gc.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if string(want) != got {
				t.Errorf("answers differ from %s (run with -update to rewrite):\n%s", path, firstDiff(string(want), got))
			}
		})
	}
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, a, b)
		}
	}
	return ""
}

func goldenText(t *testing.T, img *image.Image) string {
	var b strings.Builder
	w := bufio.NewWriter(&b)
	section := func(format string, args ...any) { fmt.Fprintf(w, "== "+format+"\n", args...) }
	ls := listeners(img)
	first := ""
	if len(ls) > 0 {
		first = ls[0]
	}
	o := &Options{Listener: first, ClusterID: "golden-cluster"}

	// All topics, at every version, on each listener at the latest.
	small := 0
	for t := range img.Topics().All() {
		small += t.NumPartitions()
	}
	for v := int16(0); v <= 13; v++ {
		if small > 100 && v != 0 && v != 5 && v != 12 {
			continue // every version is covered by the named requests below
		}
		req := mdReq(v)
		if v == 0 {
			req = mdReq(0, []string{}...)
			req.Topics = []kmsg.MetadataRequestTopic{}
		}
		resp, c := Metadata(img, req, o)
		section("Metadata v%d all topics, listener %s", v, o.Listener)
		w.WriteString(renderMetadata(t, resp) + renderCreate(c))
	}
	for _, l := range append(ls, "NO_SUCH_LISTENER") {
		lo := *o
		lo.Listener = l
		resp, _ := Metadata(img, mdReq(12), &lo)
		section("Metadata v12 all topics, listener %s", l)
		w.WriteString(renderMetadata(t, resp))
		lo.Listener = l
		resp, _ = Metadata(img, mdReq(5), &lo)
		section("Metadata v5 all topics, listener %s", l)
		w.WriteString(renderMetadata(t, resp))
	}

	// Named topics: a known one, unknown and invalid names, an internal one,
	// duplicates; with and without auto-creation.
	var known string
	if ts := img.Topics().Sorted(); len(ts) > 0 {
		known = ts[0].Name()
	}
	names := []string{known, "no-such-topic", "bad/name", "", "..", strings.Repeat("x", 250), GroupTopic, known}
	for v := int16(0); v <= 13; v++ {
		for _, auto := range []bool{false, true} {
			if v < 4 && !auto {
				continue
			}
			req := mdReq(v, names...)
			req.AllowAutoTopicCreation = auto
			req.IncludeTopicAuthorizedOperations = true
			req.IncludeClusterAuthorizedOperations = true
			resp, c := Metadata(img, req, o)
			section("Metadata v%d named topics, autoCreate %t", v, auto)
			w.WriteString(renderMetadata(t, resp) + renderCreate(c))
		}
	}
	do := *o
	do.DisableAutoCreateTopics = true
	resp, c := Metadata(img, mdReq(12, names...), &do)
	section("Metadata v12 named topics, auto.create.topics.enable=false")
	w.WriteString(renderMetadata(t, resp) + renderCreate(c))

	// Topic ids (v12+), and before v12 (InvalidRequestException).
	if known != "" {
		id, _ := img.Topics().IDOf(known)
		for _, v := range []int16{10, 11, 12, 13} {
			req := mdReq(v)
			req.Topics = []kmsg.MetadataRequestTopic{{TopicID: id}, {TopicID: [16]byte{15: 0xee}}, {TopicID: id}}
			resp, c := Metadata(img, req, o)
			section("Metadata v%d topic ids (known, unknown, known again)", v)
			w.WriteString(renderMetadata(t, resp) + renderCreate(c))
		}
	}

	// ACLs: each principal the ACLs name, and one they do not, with the
	// StandardAuthorizer (allow.everyone.if.no.acl.found false).
	a := authz.New(img.ACLs(), authz.Config{})
	for _, p := range append(principals(img), "User:nobody") {
		ao := *o
		ao.Authorizer, ao.Principal, ao.Host = a, p, "127.0.0.1"
		req := mdReq(10)
		req.IncludeTopicAuthorizedOperations, req.IncludeClusterAuthorizedOperations = true, true
		resp, _ := Metadata(img, req, &ao)
		section("Metadata v10 all topics as %s", p)
		w.WriteString(renderMetadata(t, resp))
		req = mdReq(12, append(names, "alpha", "gamma", "new-topic", "secret-data")...)
		req.AllowAutoTopicCreation, req.IncludeTopicAuthorizedOperations = true, true
		resp, c := Metadata(img, req, &ao)
		section("Metadata v12 named topics as %s", p)
		w.WriteString(renderMetadata(t, resp) + renderCreate(c))
		if known != "" {
			id, _ := img.Topics().IDOf(known)
			req := mdReq(12)
			req.Topics = []kmsg.MetadataRequestTopic{{TopicID: id}}
			resp, _ := Metadata(img, req, &ao)
			section("Metadata v12 topic id of %s as %s", known, p)
			w.WriteString(renderMetadata(t, resp))
		}
		dreq := kmsg.NewPtrDescribeTopicPartitionsRequest()
		dreq.Topics = []kmsg.DescribeTopicPartitionsRequestTopic{{Topic: known}, {Topic: "secret-data"}, {Topic: "no-such-topic"}}
		section("DescribeTopicPartitions named as %s", p)
		w.WriteString(renderDTP(t, DescribeTopicPartitions(img, dreq, &ao)))
		freq := kmsg.NewPtrFindCoordinatorRequest()
		freq.Version = 4
		freq.CoordinatorKeys = []string{"g1", "blocked-group"}
		fr, _ := FindCoordinator(img, freq, &ao)
		section("FindCoordinator v4 groups as %s", p)
		w.WriteString(renderFindCoordinator(t, fr))
		freq.CoordinatorType = CoordinatorTransaction
		freq.CoordinatorKeys = []string{"tx-1", "other-tx"}
		fr, _ = FindCoordinator(img, freq, &ao)
		section("FindCoordinator v4 transactions as %s", p)
		w.WriteString(renderFindCoordinator(t, fr))
	}

	// DescribeCluster.
	for v := int16(0); v <= 2; v++ {
		for _, fenced := range []bool{false, true} {
			req := kmsg.NewPtrDescribeClusterRequest()
			req.Version, req.IncludeFencedBrokers, req.IncludeClusterAuthorizedOperations = v, fenced, true
			section("DescribeCluster v%d includeFenced %t", v, fenced)
			w.WriteString(renderDescribeCluster(t, DescribeCluster(img, req, o, nil)))
		}
		for _, et := range []int8{EndpointController, 7} {
			req := kmsg.NewPtrDescribeClusterRequest()
			req.Version, req.EndpointType = v, et
			section("DescribeCluster v%d endpoint type %d on a broker listener", v, et)
			w.WriteString(renderDescribeCluster(t, DescribeCluster(img, req, o, nil)))
		}
	}
	for c := range img.Cluster().Controllers() {
		for _, ep := range c.Listeners() {
			co := *o
			co.Listener = ep.Name
			req := kmsg.NewPtrDescribeClusterRequest()
			req.Version, req.EndpointType = 1, EndpointController
			section("DescribeCluster v1 on controller listener %s", ep.Name)
			w.WriteString(renderDescribeCluster(t, DescribeCluster(img, req, &co, &ControllerListener{LeaderID: c.ID()})))
		}
		break
	}

	// DescribeTopicPartitions: all topics in pages of 7 partitions, then
	// named topics with a cursor.
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	req.ResponsePartitionLimit = 7
	for page := 0; page < 200; page++ {
		resp := DescribeTopicPartitions(img, req, o)
		section("DescribeTopicPartitions all, limit 7, page %d", page)
		w.WriteString(renderDTP(t, resp))
		if resp.NextCursor == nil {
			break
		}
		req.Cursor = &kmsg.DescribeTopicPartitionsRequestCursor{Topic: resp.NextCursor.Topic, Partition: resp.NextCursor.Partition}
	}
	req = kmsg.NewPtrDescribeTopicPartitionsRequest()
	for _, n := range names {
		req.Topics = append(req.Topics, kmsg.DescribeTopicPartitionsRequestTopic{Topic: n})
	}
	section("DescribeTopicPartitions named")
	w.WriteString(renderDTP(t, DescribeTopicPartitions(img, req, o)))
	req.Cursor = &kmsg.DescribeTopicPartitionsRequestCursor{Topic: "not-in-list"}
	section("DescribeTopicPartitions cursor not in the list")
	w.WriteString(renderDTP(t, DescribeTopicPartitions(img, req, o)))
	req.Cursor = &kmsg.DescribeTopicPartitionsRequestCursor{Topic: known, Partition: -1}
	section("DescribeTopicPartitions negative cursor partition")
	w.WriteString(renderDTP(t, DescribeTopicPartitions(img, req, o)))

	// FindCoordinator at every version, groups and transactions, keys
	// whose hash covers ASCII, non-ASCII, surrogate pairs and MIN_VALUE.
	keys := []string{"", "group-1", "orders-consumer", "polygenelubricants", "ñandú", "日本語グループ", "😀-emoji", "tx-1"}
	for v := int16(0); v <= 6; v++ {
		types := []int8{CoordinatorGroup}
		if v >= 1 {
			types = append(types, CoordinatorTransaction, CoordinatorShare)
		}
		for _, kt := range types {
			if v < 4 {
				for _, k := range keys[:3] {
					req := kmsg.NewPtrFindCoordinatorRequest()
					req.Version, req.CoordinatorType, req.CoordinatorKey = v, kt, k
					resp, c := FindCoordinator(img, req, o)
					section("FindCoordinator v%d type %d key %q", v, kt, k)
					w.WriteString(renderFindCoordinator(t, resp) + renderCreate(c))
				}
				continue
			}
			req := kmsg.NewPtrFindCoordinatorRequest()
			req.Version, req.CoordinatorType, req.CoordinatorKeys = v, kt, keys
			if kt == CoordinatorShare {
				req.CoordinatorKeys = []string{"g:AAAAAAAAAAAAAAAAAAAAAA:0", "bad-share-key"}
			}
			resp, c := FindCoordinator(img, req, o)
			section("FindCoordinator v%d type %d keys %q", v, kt, req.CoordinatorKeys)
			w.WriteString(renderFindCoordinator(t, resp) + renderCreate(c))
		}
	}
	fo := *o
	fo.GroupCoordinatorPartitions = 3
	fo.TransactionCoordinatorPartitions = 2
	for _, kt := range []int8{CoordinatorGroup, CoordinatorTransaction} {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.Version, req.CoordinatorType, req.CoordinatorKeys = 4, kt, keys
		resp, _ := FindCoordinator(img, req, &fo)
		section("FindCoordinator v4 type %d, partition counts fixed at 3 and 2", kt)
		w.WriteString(renderFindCoordinator(t, resp))
	}
	w.Flush()
	return b.String()
}
