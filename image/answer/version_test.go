package answer_test

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/answer"
)

// TestAnswerVersionIsRequestVersion holds the package doc's rule: every
// answer is at the request's Version, for every version kmsg knows, and
// encodes and decodes back at it.
func TestAnswerVersionIsRequestVersion(t *testing.T) {
	img := exampleImage()
	r := answer.New(answer.Config{ClusterID: "demo"})
	rq := answer.Request{Listener: "PLAINTEXT"}
	check := func(name string, reqV, respV int16, resp kmsg.Response) {
		t.Helper()
		if respV != reqV {
			t.Fatalf("%s v%d answered at v%d", name, reqV, respV)
		}
		body := resp.AppendTo(nil)
		dec := kmsg.ResponseForKey(resp.Key())
		dec.SetVersion(reqV)
		if err := dec.ReadFrom(body); err != nil {
			t.Fatalf("%s v%d: the answer does not decode at its version: %v", name, reqV, err)
		}
	}
	for v := int16(0); v <= kmsg.NewPtrMetadataRequest().MaxVersion(); v++ {
		req := kmsg.NewPtrMetadataRequest()
		req.Version = v
		resp, _ := r.Metadata(img, req, rq)
		check("Metadata", v, resp.Version, resp)
	}
	for v := int16(0); v <= kmsg.NewPtrDescribeClusterRequest().MaxVersion(); v++ {
		req := kmsg.NewPtrDescribeClusterRequest()
		req.Version = v
		resp := r.DescribeCluster(img, req, rq)
		check("DescribeCluster", v, resp.Version, resp)
	}
	for v := int16(0); v <= kmsg.NewPtrFindCoordinatorRequest().MaxVersion(); v++ {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.Version, req.CoordinatorKey, req.CoordinatorKeys = v, "g", []string{"g"}
		resp, _ := r.FindCoordinator(img, req, rq)
		check("FindCoordinator", v, resp.Version, resp)
	}
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	resp := r.DescribeTopicPartitions(img, req, rq)
	check("DescribeTopicPartitions", 0, resp.Version, resp)
}
