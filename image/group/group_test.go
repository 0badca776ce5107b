package group_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/group"
	"github.com/kmeta-go/kmeta/image/imagetest"
	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
	"github.com/kmeta-go/kmeta/record"
)

type hashVector struct {
	Image          imagetest.Spec       `json:"image"`
	TopicHashes    map[string]int64     `json:"topicHashes"`
	GroupHashes    [][2]json.RawMessage `json:"groupHashes"`
	PartitionRacks [][3]any             `json:"partitionRacks"`
}

// TestKafkaTopicAndGroupHashes: Utils.computeTopicHash of every topic of
// Kafka's seeded images (racks with non-ASCII and astral characters,
// duplicates, spaces, commas; fenced and unregistered replicas; a missing
// topic) and computeGroupHash of subsets of them equal Kafka 4.4's values
// bit for bit (broker-images vectors).
func TestKafkaTopicAndGroupHashes(t *testing.T) {
	topics, groups := 0, 0
	kafkaoracle.Decode(t, "broker-images", func(n int, v *hashVector) {
		img := v.Image.Image(t)
		for name, want := range v.TopicHashes {
			topics++
			if got := group.TopicHash(img, name); got != want {
				t.Errorf("line %d: TopicHash(%q) = %d, Kafka %d", n, name, got, want)
			}
		}
		for _, g := range v.GroupHashes {
			groups++
			var names []string
			var want int64
			if err := json.Unmarshal(g[0], &names); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(g[1], &want); err != nil {
				t.Fatal(err)
			}
			sub := map[string]int64{}
			for _, name := range names {
				sub[name] = v.TopicHashes[name]
			}
			if got := group.GroupHash(sub); got != want {
				t.Errorf("line %d: GroupHash(%v) = %d, Kafka %d", n, names, got, want)
			}
		}
		for _, r := range v.PartitionRacks {
			tp, _ := img.Topic(r[0].(string))
			want := []string{}
			for _, s := range r[2].([]any) {
				want = append(want, s.(string))
			}
			slices.SortFunc(want, group.CompareJava)
			want = slices.Compact(want)
			got := group.RacksForPartition(img, tp.ID(), int32(r[1].(float64)))
			if len(got) != len(want) || (len(got) > 0 && !slices.Equal(got, want)) {
				t.Errorf("line %d: RacksForPartition(%v, %v) = %q, Kafka's racks as a set %q", n, r[0], r[1], got, want)
			}
		}
	})
	if topics == 0 || groups == 0 {
		t.Fatal("no hash vector")
	}
}

// TestCompareJava: Java's String.compareTo orders by UTF-16 code units, so
// an astral character (a surrogate pair, U+D83D first) sorts before
// U+FF21, where UTF-8 byte order puts it after.
func TestCompareJava(t *testing.T) {
	for _, c := range []struct {
		a, b string
		sign int
	}{{"a", "b", -1}, {"ab", "a", 1}, {"", "", 0}, {"\U0001F600", "\uFF21", -1}, {"\u00e9", "z", 1}, {"\U0001F600", "\U0001F601", -1}} {
		if got := group.CompareJava(c.a, c.b); (got > 0) != (c.sign > 0) || (got < 0) != (c.sign < 0) {
			t.Errorf("CompareJava(%q, %q) = %d, want sign %d", c.a, c.b, got, c.sign)
		}
	}
}

func ExampleTopicHash() {
	r := record.NewRegisterBrokerRecord()
	rack := "az-1"
	r.BrokerID, r.Rack = 1, &rack
	br, _ := image.NewBroker(r)
	tb := image.NewTopicBuilder("orders", record.UUIDFromBits(1, 2))
	pr := record.NewPartitionRecord()
	pr.PartitionID, pr.TopicID, pr.Replicas, pr.ISR, pr.Leader = 0, tb.ID(), []int32{1}, []int32{1}, 1
	p, _ := image.NewPartition(pr)
	tb.Put(p)
	b := image.NewBuilder(nil)
	b.PutCluster(map[int32]*image.Broker{1: br}, nil)
	_ = b.PutTopics(nil, []image.Topic{tb.Topic()})
	img := b.Image(image.EmptyProvenance)

	h := group.TopicHash(img, "orders")
	fmt.Println(h != 0, group.TopicHash(img, "missing"))
	fmt.Println(group.GroupHash(map[string]int64{"orders": h}) != 0, group.GroupHash(nil))
	fmt.Println(group.RacksForPartition(img, record.UUIDFromBits(1, 2), 0))
	// Output:
	// true 0
	// true 0
	// [az-1]
}
