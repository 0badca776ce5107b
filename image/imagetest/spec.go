package imagetest

import (
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// Spec describes a small image in the JSON the oracle harness's seeded
// images carry (internal/kafkaoracle, BrokerCommon.Spec): a
// metadata.version level, brokers and topics. Image builds the same image
// kmeta-side from records, as Kafka's MetadataDelta replayed them.
type Spec struct {
	MV      int16        `json:"mv"`
	Brokers []BrokerSpec `json:"brokers"`
	Topics  []TopicSpec  `json:"topics"`
}

// BrokerSpec is one registered broker of a Spec. Listeners are
// [name, host, port] triples (security protocol PLAINTEXT).
type BrokerSpec struct {
	ID        int32    `json:"id"`
	Fenced    bool     `json:"fenced"`
	Rack      *string  `json:"rack"`
	Listeners [][3]any `json:"listeners"`
	Dirs      []string `json:"dirs"`
}

// TopicSpec is one topic of a Spec; partitions are numbered from 0.
type TopicSpec struct {
	Name       string          `json:"name"`
	ID         string          `json:"id"`
	Partitions []PartitionSpec `json:"partitions"`
}

// PartitionSpec is one partition of a TopicSpec, at leader epoch and
// partition epoch 1.
type PartitionSpec struct {
	Replicas []int32 `json:"replicas"`
	ISR      []int32 `json:"isr"`
	Leader   int32   `json:"leader"`
}

// Broker returns the RegisterBrokerRecord of b the harness replays: epoch
// 100+id, incarnation (7, id).
func (b BrokerSpec) Broker(tb testing.TB) *record.RegisterBrokerRecord {
	tb.Helper()
	r := record.NewRegisterBrokerRecord()
	r.BrokerID, r.BrokerEpoch, r.Fenced, r.Rack = b.ID, 100+int64(b.ID), b.Fenced, b.Rack
	r.IncarnationID = record.UUIDFromBits(7, int64(b.ID))
	for _, l := range b.Listeners {
		name, _ := l[0].(string)
		host, _ := l[1].(string)
		port, _ := l[2].(float64)
		r.EndPoints = append(r.EndPoints, record.BrokerEndpoint{Name: name, Host: host, Port: uint16(port)})
	}
	for _, d := range b.Dirs {
		r.LogDirs = append(r.LogDirs, ParseID(tb, d))
	}
	return r
}

// ParseID parses a Kafka base64 Uuid, failing tb on a bad one.
func ParseID(tb testing.TB, s string) record.UUID {
	tb.Helper()
	id, err := record.ParseUUID(s)
	if err != nil {
		tb.Fatalf("uuid %q: %v", s, err)
	}
	return id
}

// Image builds the image s describes.
func (s *Spec) Image(tb testing.TB) *image.Image {
	tb.Helper()
	b := image.NewBuilder(nil)
	mv, err := image.ParseMetadataVersionLevel(s.MV)
	if err != nil {
		tb.Fatal(err)
	}
	b.SetFeatures(mv, nil)
	brokers := map[int32]*image.Broker{}
	for _, bs := range s.Brokers {
		br, err := image.NewBroker(bs.Broker(tb))
		if err != nil {
			tb.Fatal(err)
		}
		brokers[bs.ID] = br
	}
	b.PutCluster(brokers, nil)
	var topics []image.Topic
	for _, ts := range s.Topics {
		tbd := image.NewTopicBuilder(ts.Name, ParseID(tb, ts.ID))
		for i, ps := range ts.Partitions {
			r := record.NewPartitionRecord()
			r.PartitionID, r.TopicID = int32(i), tbd.ID()
			r.Replicas, r.ISR, r.Leader, r.LeaderEpoch, r.PartitionEpoch = ps.Replicas, ps.ISR, ps.Leader, 1, 1
			p, err := image.NewPartition(r)
			if err != nil {
				tb.Fatal(err)
			}
			tbd.Put(p)
		}
		topics = append(topics, tbd.Topic())
	}
	if err := b.PutTopics(nil, topics); err != nil {
		tb.Fatal(err)
	}
	return b.Image(image.EmptyProvenance)
}
