package answer

import (
	"bytes"
	"fmt"
	"github.com/kmeta-go/kmeta/internal/benchtest"
	"strconv"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// benchBrokers are KRaftMetadataRequestBenchmark's brokers 0-4, each with
// one PLAINTEXT endpoint host_<id>:9092, epoch 100, unfenced.
func benchBrokers(tb testing.TB) map[int32]*image.Broker {
	tb.Helper()
	brokers := map[int32]*image.Broker{}
	for id := int32(0); id < 5; id++ {
		r := record.NewRegisterBrokerRecord()
		r.BrokerID, r.BrokerEpoch, r.Rack, r.Fenced = id, 100, nil, false
		r.EndPoints = []record.BrokerEndpoint{{Name: "PLAINTEXT", Host: "host_" + strconv.Itoa(int(id)), Port: 9092}}
		b, err := image.NewBroker(r)
		if err != nil {
			tb.Fatal(err)
		}
		brokers[id] = b
	}
	return brokers
}

// benchImage is KRaftMetadataRequestBenchmark's cluster: brokers
// 0-4 with one PLAINTEXT endpoint host_<id>:9092, epoch 100, unfenced;
// topics topic-<n> with random-like ids, every partition with replicas = ISR
// = [0, 1, 3], leader partitionCount % 5 (0 for every size), leader epoch 0.
func benchImage(tb testing.TB, topics, partitions int) *image.Image {
	tb.Helper()
	brokers := benchBrokers(tb)
	var ts []image.Topic
	for n := 0; n < topics; n++ {
		id := record.UUID{0: byte(n >> 8), 1: byte(n), 2: 0x5a, 15: byte(n * 7)}
		parts := make([]image.PartitionRegistration, partitions)
		for p := range parts {
			r := record.NewPartitionRecord()
			r.PartitionID, r.TopicID = int32(p), id
			r.Replicas, r.ISR, r.Leader, r.LeaderEpoch = []int32{0, 1, 3}, []int32{0, 1, 3}, int32(partitions%5), 0
			var err error
			if parts[p], err = image.NewPartition(r); err != nil {
				tb.Fatal(err)
			}
		}
		ts = append(ts, topicOf("topic-"+strconv.Itoa(n), id, parts))
	}
	return imageOf(tb, brokers, ts)
}

var benchSizes = []struct{ topics, partitions int }{
	{500, 10}, {500, 20}, {500, 50}, {1000, 10}, {1000, 20}, {1000, 50}, {5000, 10}, {5000, 20}, {5000, 50},
}

// BenchmarkMetadataRequestAllTopics mirrors KRaftMetadataRequestBenchmark
// .testMetadataRequestForAllTopics: an all-topics Metadata request at v12 on
// PLAINTEXT. build: the kmsg response; encode: build and serialise;
// memo: repeated identical requests on an unchanged image through
// Responder.AppendMetadata
// (bytes copied into a reused buffer; SetBytes = response size).
func BenchmarkMetadataRequestAllTopics(b *testing.B) {
	for _, s := range benchSizes {
		img := benchImage(b, s.topics, s.partitions)
		req := kmsg.NewPtrMetadataRequest()
		req.Version = 12
		r, rq := New(Config{ClusterID: "bench"}), Request{Listener: "PLAINTEXT"}
		name := fmt.Sprintf("topics=%d,partitions=%d", s.topics, s.partitions)
		b.Run(name+"/build", func(b *testing.B) {
			b.ReportAllocs()
			defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
			for b.Loop() {
				r.Metadata(img, req, rq)
			}
		})
		b.Run(name+"/encode", func(b *testing.B) {
			b.ReportAllocs()
			var buf []byte
			defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
			for b.Loop() {
				resp, _ := r.Metadata(img, req, rq)
				buf = resp.AppendTo(buf[:0])
			}
			b.SetBytes(int64(len(buf)))
		})
		b.Run(name+"/memo", func(b *testing.B) {
			b.ReportAllocs()
			m := New(Config{ClusterID: "bench"})
			buf, _ := m.AppendMetadata(nil, img, req, rq)
			b.SetBytes(int64(len(buf)))
			defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
			for b.Loop() {
				buf, _ = m.AppendMetadata(buf[:0], img, req, rq)
			}
		})
	}
}

// BenchmarkMetadataOneTopic: one named topic of 10 partitions in the 5000 x
// 10 image.
func BenchmarkMetadataOneTopic(b *testing.B) {
	img := benchImage(b, 5000, 10)
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 12
	n := "topic-4321"
	req.Topics = []kmsg.MetadataRequestTopic{{Topic: &n}}
	r, rq := New(Config{}), Request{Listener: "PLAINTEXT"}
	b.ReportAllocs()
	defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
	for b.Loop() {
		resp, _ := r.Metadata(img, req, rq)
		if len(resp.Topics[0].Partitions) != 10 {
			b.Fatal()
		}
	}
}

// BenchmarkFindCoordinator: one group key, __consumer_offsets of 50
// partitions in a 1000-topic image.
func BenchmarkFindCoordinator(b *testing.B) {
	img := benchImage(b, 1000, 10)
	// Add __consumer_offsets.
	parts := make([]image.PartitionRegistration, 50)
	for p := range parts {
		r := record.NewPartitionRecord()
		r.PartitionID, r.TopicID, r.Replicas, r.ISR, r.Leader = int32(p), record.UUID{15: 0xcc}, []int32{int32(p % 5)}, []int32{int32(p % 5)}, int32(p%5)
		parts[p], _ = image.NewPartition(r)
	}
	bld := image.NewBuilder(img)
	if err := bld.PutTopics(nil, []image.Topic{topicOf(GroupTopic, record.UUID{15: 0xcc}, parts)}); err != nil {
		b.Fatal(err)
	}
	img = bld.Image(image.EmptyProvenance)
	r, rq := New(Config{}), Request{Listener: "PLAINTEXT"}
	b.ReportAllocs()
	defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
	for b.Loop() {
		if c, _ := r.FindCoordinatorKey(img, 4, CoordinatorGroup, "orders-consumer-group", rq); c.ErrorCode != 0 {
			b.Fatal(c.ErrorCode)
		}
	}
}

// TestMemo: AppendMetadata's memoised bytes equal the built answer's encoding, are a
// copy, and are dropped when the image changes.
func TestMemo(t *testing.T) {
	img := edgeImage(t)
	m, rq := New(Config{ClusterID: "c"}), Request{Listener: "PLAINTEXT"}
	fresh := New(Config{ClusterID: "c"}) // caches nothing between calls below
	for _, req := range []*kmsg.MetadataRequest{mdReq(12), mdReq(12, "alpha", "nope"), mdReq(1), mdReq(9, "beta")} {
		want, wc := fresh.Metadata(img, req, rq)
		for i := 0; i < 3; i++ {
			got, gc := m.AppendMetadata(nil, img, req, rq)
			if !bytes.Equal(got, want.AppendTo(nil)) || len(gc) != len(wc) {
				t.Fatalf("v%d: memoised answer differs", req.Version)
			}
			for j := range got {
				got[j] = 0xff // the caller's copy
			}
		}
	}
	other := benchImage(t, 3, 2)
	got, _ := m.AppendMetadata(nil, other, mdReq(12), rq)
	want, _ := fresh.Metadata(other, mdReq(12), rq)
	if !bytes.Equal(got, want.AppendTo(nil)) {
		t.Fatal("answer for a new image is the old image's")
	}
}

// topicOf builds a topic of parts (sorted by partition id) with
// image.TopicBuilder.
func topicOf(name string, id record.UUID, parts []image.PartitionRegistration) image.Topic {
	b := image.NewTopicBuilder(name, id)
	for _, p := range parts {
		b.Put(p)
	}
	return b.Topic()
}

// imageOf builds an image of brokers and topics with image.Builder.
func imageOf(tb testing.TB, brokers map[int32]*image.Broker, topics []image.Topic) *image.Image {
	b := image.NewBuilder(nil)
	b.PutCluster(brokers, nil)
	if err := b.PutTopics(nil, topics); err != nil {
		tb.Fatal(err)
	}
	return b.Image(image.EmptyProvenance)
}
