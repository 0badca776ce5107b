package answer_test

import (
	"bytes"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image/answer"
)

// A Memo answers a storm of identical Metadata requests against one image
// with the bytes of the first answer: the second request below costs a map
// lookup and a copy. The bytes are the response body a broker writes after
// the response header.
func ExampleMemo() {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 6, 3)
	img := sim.Image()

	var memo answer.Memo
	opts := &answer.Options{Listener: "PLAINTEXT", ClusterID: "demo"}
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 12
	name := "orders"
	req.Topics = []kmsg.MetadataRequestTopic{{Topic: &name}}

	first, _ := memo.AppendMetadata(nil, img, req, opts)
	second, _ := memo.AppendMetadata(nil, img, req, opts)
	fmt.Println("same bytes:", bytes.Equal(first, second))

	resp := kmsg.NewPtrMetadataResponse()
	resp.Version = req.Version
	if err := resp.ReadFrom(first); err != nil {
		panic(err)
	}
	fmt.Println("brokers:", len(resp.Brokers), "topic:", *resp.Topics[0].Topic, "partitions:", len(resp.Topics[0].Partitions))
	// Output:
	// same bytes: true
	// brokers: 3 topic: orders partitions: 6
}
