package image_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/imagetest"
	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
)

// kafkaNode is a Kafka Node as the harness prints it.
type kafkaNode struct {
	ID   int32   `json:"id"`
	Host string  `json:"host"`
	Port int32   `json:"port"`
	Rack *string `json:"rack"`
}

func (k kafkaNode) node() image.Node {
	n := image.Node{ID: k.ID, Host: k.Host, Port: k.Port}
	if k.Rack != nil {
		n.Rack, n.HasRack = *k.Rack, true
	}
	return n
}

type endpointVector struct {
	Image           imagetest.Spec `json:"image"`
	AliveBrokerNode [][3]any       `json:"aliveBrokerNode"`
	Partitions      []struct {
		Topic            string                          `json:"topic"`
		Partition        int32                           `json:"partition"`
		ReplicaEndpoints map[string]map[string]kafkaNode `json:"replicaEndpoints"`
		LeaderEndpoint   map[string]any                  `json:"leaderEndpoint"`
	} `json:"partitions"`
	PartitionRacks [][3]any `json:"partitionRacks"`
}

// TestKafkaEndpointLookups replays Kafka 4.4's KRaftMetadataCache over
// seeded images (broker-images vectors: brokers with missing listeners,
// empty hosts, port 0, fencing and no rack; partitions with unregistered
// replicas and no leader): getAliveBrokerNode (Cluster.AliveBrokerNode and
// BrokerEndpoint), getPartitionLeaderEndpoint (Image.LeaderEndpoint: no
// leader, Node.noNode() for a leader without the listener, the node),
// getPartitionReplicaEndpoints (AppendReplicaEndpoints) and
// KRaftCoordinatorMetadataImage's partitionRacks (AppendPartitionRacks).
func TestKafkaEndpointLookups(t *testing.T) {
	var leaders [3]int
	kafkaoracle.Decode(t, "broker-images", func(n int, v *endpointVector) {
		img := v.Image.Image(t)
		for _, a := range v.AliveBrokerNode {
			id, listener := int32(a[0].(float64)), a[1].(string)
			got, ok := img.Cluster().AliveBrokerNode(id, listener)
			ep, epOK := img.Cluster().BrokerEndpoint(id, listener)
			if want, isNode := a[2].(map[string]any); isNode {
				w := kafkaNode{ID: int32(want["id"].(float64)), Host: want["host"].(string), Port: int32(want["port"].(float64))}
				if r, has := want["rack"].(string); has {
					w.Rack = &r
				}
				if !ok || got != w.node() || !epOK || ep.Host != w.Host || int32(ep.Port) != w.Port {
					t.Errorf("line %d: broker %d %s: got %+v %v (endpoint %+v %v), Kafka %+v", n, id, listener, got, ok, ep, epOK, w)
				}
			} else if ok || epOK {
				t.Errorf("line %d: broker %d %s: got %+v, Kafka has no alive node", n, id, listener, got)
			}
		}
		for _, p := range v.Partitions {
			tp, _ := img.Topic(p.Topic)
			for listener, want := range p.ReplicaEndpoints {
				got := img.AppendReplicaEndpoints(nil, tp, p.Partition, listener)
				if len(got) != len(want) {
					t.Errorf("line %d: %s-%d %s: replica endpoints %+v, Kafka %+v", n, p.Topic, p.Partition, listener, got, want)
					continue
				}
				for _, g := range got {
					if w, ok := want[strconv.Itoa(int(g.ID))]; !ok || w.node() != g {
						t.Errorf("line %d: %s-%d %s: replica %d %+v, Kafka %+v", n, p.Topic, p.Partition, listener, g.ID, g, w)
					}
				}
			}
			for listener, want := range p.LeaderEndpoint {
				got, lk := img.LeaderEndpoint(p.Topic, p.Partition, listener)
				leaders[lk]++
				switch w := want.(type) {
				case string:
					if (w == "none" && lk != image.LeaderUnknown) || (w == "noNode" && (lk != image.LeaderListenerMissing || got != image.NoNode)) {
						t.Errorf("line %d: %s-%d %s: leader endpoint %+v %v, Kafka %s", n, p.Topic, p.Partition, listener, got, lk, w)
					}
				case map[string]any:
					k := kafkaNode{ID: int32(w["id"].(float64)), Host: w["host"].(string), Port: int32(w["port"].(float64))}
					if r, has := w["rack"].(string); has {
						k.Rack = &r
					}
					if lk != image.LeaderFound || got != k.node() {
						t.Errorf("line %d: %s-%d %s: leader endpoint %+v %v, Kafka %+v", n, p.Topic, p.Partition, listener, got, lk, k)
					}
				}
			}
		}
		for _, r := range v.PartitionRacks {
			tp, _ := img.Topic(r[0].(string))
			got := img.AppendPartitionRacks(nil, tp, int32(r[1].(float64)))
			if fmt.Sprint(got) != fmt.Sprint(r[2]) {
				t.Errorf("line %d: racks of %v-%v: %q, Kafka %q", n, r[0], r[1], got, r[2])
			}
		}
	})
	for lk, c := range leaders {
		if c == 0 {
			t.Errorf("no vector answers %v", image.LeaderLookup(lk))
		}
	}
}
