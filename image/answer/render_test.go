package answer

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

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
