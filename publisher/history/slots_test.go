package history

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/record"
)

// TestByPartitionIDs: the index keeps dense ids in a slice and ids far
// past them (a hostile log's 2^31-1, a negative id) in a map, so that one
// record cannot make the slice large; get, remove, each and dropTopic see
// both, and the last-topic cache forgets a dropped topic.
func TestByPartitionIDs(t *testing.T) {
	var s byPartition[int]
	a, b := record.UUID{1}, record.UUID{2}
	vals := map[TopicPartition]*int{}
	for i, tp := range []TopicPartition{{a, 0}, {a, 1}, {a, 5}, {a, math.MaxInt32}, {a, -1}, {b, 0}, {b, 3}} {
		v := i
		vals[tp] = &v
		s.put(tp, &v)
	}
	require.Equal(t, 7, s.len())
	assert.Less(t, len(s.topics[a].dense), 100, "a huge id is not a slice index")
	assert.Len(t, s.topics[a].sparse, 2)
	for tp, v := range vals {
		assert.Same(t, v, s.get(tp), "%v", tp)
	}
	assert.Nil(t, s.get(TopicPartition{a, 2}))
	assert.Nil(t, s.get(TopicPartition{record.UUID{3}, 0}))

	s.remove(TopicPartition{a, math.MaxInt32})
	s.remove(TopicPartition{a, 1})
	s.remove(TopicPartition{a, 1}) // twice: no count lost
	assert.Equal(t, 5, s.len())
	assert.Nil(t, s.get(TopicPartition{a, math.MaxInt32}))

	seen := 0
	s.each(func(tp TopicPartition, v *int) bool {
		seen++
		return tp.Partition != 5 // drop a-5
	})
	assert.Equal(t, 5, seen)
	assert.Equal(t, 4, s.len())
	assert.Nil(t, s.get(TopicPartition{a, 5}))

	require.NotNil(t, s.get(TopicPartition{b, 3})) // b is the cached topic
	s.dropTopic(b)
	assert.Nil(t, s.get(TopicPartition{b, 3}))
	assert.Equal(t, 2, s.len())
}
