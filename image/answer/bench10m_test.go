package answer

import (
	"os"
	"strconv"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/benchtest"
	"github.com/kmeta-go/kmeta/record"
)

// BenchmarkScaleMetadataAllTopics is BenchmarkMetadataRequestAllTopics's
// build and encode (KRaftMetadataRequestBenchmark's cluster: 5 brokers,
// replicas = ISR = [0, 1, 3]) at 100 000 topics × 10 partitions (1 M) and
// 1 000 000 topics × 10 partitions (10 M), to read the all-topics answer's
// growth from 1 M to 10 M partitions off one run. The 10 M size holds a
// ~1 GB image and allocates several GB per answer; it runs only when the
// environment sets KMETA_BENCH10M=1:
//
//	KMETA_BENCH10M=1 go test ./image/answer -run '^$' -bench ScaleMetadataAllTopics -benchtime 1x -count 5 -timeout 1h
func BenchmarkScaleMetadataAllTopics(b *testing.B) {
	for _, s := range []struct {
		name   string
		topics int
	}{{"partitions=1M", 100000}, {"partitions=10M", 1000000}} {
		b.Run(s.name, func(b *testing.B) {
			if s.topics > 100000 && os.Getenv("KMETA_BENCH10M") != "1" {
				b.Skip("10 M partitions allocate several GB: set KMETA_BENCH10M=1 to run")
			}
			img := scaleAnswerImage(b, s.topics, 10)
			req := kmsg.NewPtrMetadataRequest()
			req.Version = 12
			r, rq := New(Config{ClusterID: "bench"}), Request{Listener: "PLAINTEXT"}
			b.Run("build", func(b *testing.B) {
				b.ReportAllocs()
				defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
				for b.Loop() {
					if resp, _ := r.Metadata(img, req, rq); len(resp.Topics) != s.topics {
						b.Fatalf("%d topics, want %d", len(resp.Topics), s.topics)
					}
				}
			})
			b.Run("encode", func(b *testing.B) {
				b.ReportAllocs()
				var buf []byte
				defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
				for b.Loop() {
					resp, _ := r.Metadata(img, req, rq)
					buf = resp.AppendTo(buf[:0])
				}
				b.SetBytes(int64(len(buf)))
			})
		})
	}
}

// scaleAnswerImage is benchImage's cluster with topic ids unique beyond
// 65 536 topics (benchImage's ids repeat there): topic-<n> has id
// 0x5a, n as 4 bytes, 0x5a.
func scaleAnswerImage(tb testing.TB, topics, partitions int) *image.Image {
	tb.Helper()
	brokers := benchBrokers(tb)
	ts := make([]image.Topic, 0, topics)
	parts := make([]image.PartitionRegistration, partitions)
	for n := 0; n < topics; n++ {
		id := record.UUID{0: 0x5a, 1: byte(n >> 24), 2: byte(n >> 16), 3: byte(n >> 8), 4: byte(n), 15: 0x5a}
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

// TestScaleAnswerImage: the scale image's topics all have distinct ids and
// answer an all-topics request in full.
func TestScaleAnswerImage(t *testing.T) {
	const topics = 70000 // beyond benchImage's 65 536 distinct ids
	img := scaleAnswerImage(t, topics, 2)
	if img.Topics().Len() != topics {
		t.Fatalf("%d topics in the image, want %d", img.Topics().Len(), topics)
	}
	resp, _ := New(Config{}).Metadata(img, mdReq(12), Request{Listener: "PLAINTEXT"})
	if len(resp.Topics) != topics {
		t.Fatalf("%d topics answered, want %d", len(resp.Topics), topics)
	}
	for _, rt := range resp.Topics[:10] {
		if len(rt.Partitions) != 2 || rt.ErrorCode != 0 {
			t.Fatalf("%v: %d partitions, error %d", rt.Topic, len(rt.Partitions), rt.ErrorCode)
		}
	}
}
