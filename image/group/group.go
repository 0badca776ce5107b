package group

import (
	"encoding/binary"
	"slices"
	"unicode/utf8"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/xxh3"
	"github.com/kmeta-go/kmeta/record"
)

// topicHashMagic is Utils.TOPIC_HASH_MAGIC_BYTE: the version of the topic
// hash's format.
const topicHashMagic = 0x00

// TopicHash is Utils.computeTopicHash: 0 when the image has no topic name;
// otherwise XXH3 over the magic byte, the topic id's two halves, the name,
// the partition count, and for each partition its index and its replicas'
// racks (AppendRacks' view, sorted as Java sorts strings, each written as
// its length and then the string).
func TopicHash(img *image.Image, name string) int64 {
	t, ok := img.Topic(name)
	if !ok {
		return 0
	}
	return TopicHashOf(img, t)
}

// TopicHashOf is TopicHash of topic t of img.
func TopicHashOf(img *image.Image, t image.Topic) int64 {
	n := t.NumPartitions()
	var racks rackCache
	size := 1 + 16 + stringSize(t.Name()) + 4 + 4*n
	for p := range n {
		part := t.PartitionAt(p)
		for i := range part.NumReplicas() {
			if r, ok := racks.rack(img, part.Replica(i)); ok {
				size += 4 + stringSize(r)
			}
		}
	}
	b := make([]byte, 0, size)
	b = append(b, topicHashMagic)
	id := t.ID()
	b = binary.LittleEndian.AppendUint64(b, uint64(id.MostSignificantBits()))
	b = binary.LittleEndian.AppendUint64(b, uint64(id.LeastSignificantBits()))
	b = appendString(b, t.Name())
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	var small [8]string
	for p := range int32(n) {
		b = binary.LittleEndian.AppendUint32(b, uint32(p))
		part, ok := t.Partition(p)
		if !ok {
			continue // no such partition: no racks (partitionRacks is empty)
		}
		// KRaftCoordinatorMetadataImage.partitionRacks: the rack of each
		// registered replica, in replica order (Image.AppendPartitionRacks),
		// then sorted (Collections.sort).
		sorted := small[:0]
		for i := range part.NumReplicas() {
			if r, ok := racks.rack(img, part.Replica(i)); ok {
				sorted = append(sorted, r)
			}
		}
		for i := 1; i < len(sorted); i++ {
			for j := i; j > 0 && CompareJava(sorted[j], sorted[j-1]) < 0; j-- {
				sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
			}
		}
		for _, r := range sorted {
			b = binary.LittleEndian.AppendUint32(b, uint32(utf16Len(r))) // rack.length()
			b = appendString(b, r)
		}
	}
	return int64(xxh3.Hash(b))
}

// rackCache remembers the racks of the brokers with small ids during one
// topic hash, so that each is looked up in the image once.
type rackCache struct {
	small [64]struct {
		rack       string
		known, has bool
	}
}

func (c *rackCache) rack(img *image.Image, id int32) (string, bool) {
	if id < 0 || int(id) >= len(c.small) {
		return brokerRack(img, id)
	}
	e := &c.small[id]
	if !e.known {
		e.rack, e.has = brokerRack(img, id)
		e.known = true
	}
	return e.rack, e.has
}

func brokerRack(img *image.Image, id int32) (string, bool) {
	b, ok := img.Cluster().Broker(id)
	if !ok {
		return "", false
	}
	return b.Rack()
}

// GroupHash is Utils.computeGroupHash: 0 for no topic; otherwise XXH3 over
// the topic hashes in the order of their topic names (Java's String order).
func GroupHash(topicHashes map[string]int64) int64 {
	if len(topicHashes) == 0 {
		return 0
	}
	names := make([]string, 0, len(topicHashes))
	for n := range topicHashes {
		names = append(names, n)
	}
	slices.SortFunc(names, CompareJava)
	b := make([]byte, 0, 8*len(names))
	for _, n := range names {
		b = binary.LittleEndian.AppendUint64(b, uint64(topicHashes[n]))
	}
	return int64(xxh3.Hash(b))
}

// RacksForPartition is SubscribedTopicDescriberImpl.racksForPartition: the
// distinct racks of the replicas of partition p of the topic with id,
// sorted (Kafka returns them as a set); nil when the topic does not exist.
func RacksForPartition(img *image.Image, id record.UUID, p int32) []string {
	t, ok := img.TopicByID(id)
	if !ok {
		return nil
	}
	racks := img.AppendPartitionRacks(nil, t, p)
	slices.SortFunc(racks, CompareJava)
	return slices.Compact(racks)
}

// CompareJava is Java's String.compareTo on the strings' UTF-16 code units:
// byte order, except that characters above U+FFFF (surrogate pairs in
// UTF-16) sort before U+E000..U+FFFF.
func CompareJava(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) || i == len(b) {
		return len(a) - len(b)
	}
	if a[i] < 0x80 && b[i] < 0x80 {
		return int(a[i]) - int(b[i])
	}
	for i > 0 && !utf8.RuneStart(a[i]) {
		i-- // back to the start of the first rune that differs
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	if ua, ub := firstUnit(ra), firstUnit(rb); ua != ub {
		return int(ua) - int(ub)
	}
	return int(ra) - int(rb) // same high surrogate: the low ones order as the runes
}

func firstUnit(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

// utf16Len is Java's String.length of s.
func utf16Len(s string) int {
	n := 0
	for ; n < len(s) && s[n] < utf8.RuneSelf; n++ {
	}
	if n == len(s) {
		return n
	}
	for _, r := range s[n:] {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// stringSize is the bytes hash4j's putString writes for s: its UTF-16
// units, then their count.
func stringSize(s string) int { return 2*utf16Len(s) + 4 }

// appendString is hash4j's HashSink.putString: the UTF-16 code units of s,
// little-endian, then their number as an int.
func appendString(b []byte, s string) []byte {
	n := 0
	for ; n < len(s) && s[n] < utf8.RuneSelf; n++ {
		b = append(b, s[n], 0) // ASCII: one unit per byte
	}
	if n == len(s) {
		return binary.LittleEndian.AppendUint32(b, uint32(n))
	}
	for _, r := range s[n:] {
		if r >= 0x10000 {
			r -= 0x10000
			hi, lo := 0xD800+(r>>10), 0xDC00+(r&0x3FF)
			b = append(b, byte(hi), byte(hi>>8), byte(lo), byte(lo>>8))
			n += 2
			continue
		}
		b = append(b, byte(r), byte(r>>8))
		n++
	}
	return binary.LittleEndian.AppendUint32(b, uint32(n))
}
