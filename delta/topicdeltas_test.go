package delta

import (
	"testing"

	"github.com/kmeta-go/kmeta/record"
)

// TestTopicDeltasKeepOrderAndPointers: the topicDeltas a delta makes
// (Kafka's TopicsDelta.changedTopics, in the order met) stay where add put
// them while thousands more are added, and iterate in the order added.
func TestTopicDeltasKeepOrderAndPointers(t *testing.T) {
	var o topicDeltas
	const n = 5000
	ptrs := make([]*topicDelta, n)
	for i := range n {
		ptrs[i] = o.add(topicDelta{id: record.UUID{byte(i), byte(i >> 8)}})
		ptrs[i].dropped = i%3 == 0
	}
	i := 0
	for _, c := range o.chunks {
		if cap(c) > maxTopicDeltaChunk {
			t.Fatalf("chunk of %d", cap(c))
		}
		for k := range c {
			if &c[k] != ptrs[i] || c[k].id != (record.UUID{byte(i), byte(i >> 8)}) || c[k].dropped != (i%3 == 0) {
				t.Fatalf("topic delta %d moved or changed", i)
			}
			i++
		}
	}
	if i != n {
		t.Fatalf("%d topic deltas, want %d", i, n)
	}
	if len(o.chunks) > 2+n/maxTopicDeltaChunk+8 {
		t.Fatalf("%d chunks for %d topic deltas", len(o.chunks), n)
	}
}
