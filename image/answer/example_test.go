package answer_test

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/answer"
	"github.com/kmeta-go/kmeta/record"
)

// exampleImage is a one-broker image with one topic.
func exampleImage() *image.Image {
	dl := delta.New(image.Empty())
	b := record.NewRegisterBrokerRecord()
	b.BrokerID, b.Fenced, b.Rack = 1, false, nil
	b.EndPoints = []record.BrokerEndpoint{{Name: "PLAINTEXT", Host: "kafka-1", Port: 9092}}
	t := record.NewTopicRecord()
	t.Name, t.TopicID = "orders", record.UUID{15: 1}
	p := record.NewPartitionRecord()
	p.TopicID, p.PartitionID, p.Leader, p.Replicas, p.ISR = t.TopicID, 0, 1, []int32{1}, []int32{1}
	for _, r := range []record.Record{b, t, p} {
		if err := dl.Replay(r); err != nil {
			panic(err)
		}
	}
	img, _ := dl.Apply(image.EmptyProvenance)
	return img
}

// A Responder built once from the broker's configuration answers each
// request with the request's own identity: here on the broker's listener.
func Example() {
	img := exampleImage()
	r := answer.New(answer.Config{ClusterID: "demo"})
	rq := answer.Request{Listener: "PLAINTEXT", Principal: "User:alice", Host: "10.0.0.7"}

	req := kmsg.NewPtrMetadataRequest()
	req.Version = 12
	name := "orders"
	missing := "payments"
	req.Topics = []kmsg.MetadataRequestTopic{{Topic: &name}, {Topic: &missing}}
	req.AllowAutoTopicCreation = true
	resp, create := r.Metadata(img, req, rq)
	for _, br := range resp.Brokers {
		fmt.Printf("broker %d %s:%d\n", br.NodeID, br.Host, br.Port)
	}
	for _, tp := range resp.Topics {
		fmt.Printf("topic %s error %d partitions %d\n", *tp.Topic, tp.ErrorCode, len(tp.Partitions))
	}
	fmt.Println("create:", create)

	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.Version, fc.CoordinatorKeys = 4, []string{"my-group"}
	fr, create := r.FindCoordinator(img, fc, rq)
	fmt.Println("coordinator error", fr.Coordinators[0].ErrorCode, "create:", create)
	// Output:
	// broker 1 kafka-1:9092
	// topic orders error 0 partitions 1
	// topic payments error 3 partitions 0
	// create: [{payments 1 1}]
	// coordinator error 15 create: [{__consumer_offsets 50 3}]
}

// AppendMetadata hands out the encoded answer, built once per image and
// distinct request and then copied.
func ExampleResponder_AppendMetadata() {
	img := exampleImage()
	r := answer.New(answer.Config{ClusterID: "demo"})
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 12
	body, _ := r.AppendMetadata(nil, img, req, answer.Request{Listener: "PLAINTEXT"})

	resp := kmsg.NewPtrMetadataResponse()
	resp.Version = 12
	if err := resp.ReadFrom(body); err != nil {
		panic(err)
	}
	fmt.Println(*resp.ClusterID, len(resp.Brokers), *resp.Topics[0].Topic)
	// Output:
	// demo 1 orders
}

// A DescribeCluster that arrives on a controller's listener says so in its
// Request; this image has no metadata.version, so a controller answers
// UNSUPPORTED_VERSION.
func ExampleResponder_DescribeCluster() {
	img := exampleImage()
	r := answer.New(answer.Config{ClusterID: "demo"})
	req := kmsg.NewPtrDescribeClusterRequest()
	req.Version = 1
	resp := r.DescribeCluster(img, req, answer.Request{Listener: "PLAINTEXT"})
	fmt.Println(resp.ErrorCode, resp.ClusterID, len(resp.Brokers))
	resp = r.DescribeCluster(img, req, answer.Request{Listener: "CONTROLLER", Controller: &answer.ViaController{LeaderID: 3000}})
	fmt.Println(resp.ErrorCode)
	// Output:
	// 0 demo 1
	// 35
}

// Share coordinator keys are read and printed back as Kafka's
// SharePartitionKey does before they are hashed.
func ExampleShareCoordinatorKey() {
	for _, k := range []string{"my-group:LBZ5mSidlfqWYaQyRjAs2Q:+07", "my-group:LBZ5mSidlfqWYaQyRjAs2Q"} {
		key, ok := answer.ShareCoordinatorKey(k)
		fmt.Printf("%q %t\n", key, ok)
	}
	// Output:
	// "my-group:LBZ5mSidlfqWYaQyRjAs2Q:7" true
	// "" false
}

// The listener to answer on when the embedder is not one of the brokers:
// inter.broker.listener.name when the broker configuration sets it, else
// Kafka's default.
func ExampleInterBrokerListener() {
	img := exampleImage()
	ln, err := answer.InterBrokerListener(img.Cluster(), "")
	fmt.Println(ln, err)
	_, err = answer.InterBrokerListener(img.Cluster(), "replication")
	fmt.Println(err)
	// Output:
	// PLAINTEXT <nil>
	// listener REPLICATION is not registered by any broker; registered: PLAINTEXT
}
