package image

import (
	"fmt"
	"slices"
	"sort"
	"unsafe"

	"github.com/kmeta-go/kmeta/record"
)

// Builder builds one image from a base image, the way Kafka's
// MetadataDelta.apply assembles a MetadataImage: each part the builder is
// given replaces the base's, every other part is the base's own object.
// Package delta holds a Builder while it applies replayed records; it is
// exported so that tests and tools can make an image from its parts.
//
// A Builder copies what it is given (the caller keeps its maps and slices)
// and is single-use, like
// immutable.MapBuilder: Image freezes what was built into an *Image, and
// every later call on the Builder panics. Nothing a Builder does changes
// its base or any image already returned. A Builder is not safe for
// concurrent use.
type Builder struct {
	img       Image            // the image being built
	topics    topicIndexes     // its topic indexes, when putTopics
	x         *imageWithTopics // the image Image returns, once PutTopics ran
	putTopics bool
	done      bool // Image has returned the image
}

// NewBuilder returns a builder of an image equal to base (nil means
// Empty()) until its methods change parts of it.
func NewBuilder(base *Image) *Builder {
	if base == nil {
		base = empty
	}
	return &Builder{img: *base}
}

func (b *Builder) live() *Image {
	if b.done {
		panic("image: Builder used after Image")
	}
	return &b.img
}

// SetFeatures sets the finalized features (FeaturesDelta.apply): mv is the
// metadata.version (0 = absent) and levels the other finalized features
// (levels of 0 are dropped). levels is copied.
func (b *Builder) SetFeatures(mv MetadataVersion, levels []FeatureLevel) {
	b.live().features = newFeatures(mv, levels)
}

// PutCluster puts registrations into the cluster (ClusterDelta.apply): a
// non-nil *Broker or *Controller is put under its id, a nil one removes
// the registration.
func (b *Builder) PutCluster(brokers map[int32]*Broker, controllers map[int32]*Controller) {
	img := b.live()
	img.cluster = img.cluster.updateCluster(brokers, controllers)
}

// PutTopics deletes the topics with the ids in deleted and puts every topic
// in changed under its id and name (TopicsDelta.apply): deletes first, so
// that "delete X (id A), create X (id B)" in one step is right. A deleted id
// absent from the image being built is an error, and the builder is then
// unchanged. So is a name given to two live topics (TopicsImage maps each
// name to one id).
func (b *Builder) PutTopics(deleted []record.UUID, changed []Topic) error {
	img := b.live()
	if len(deleted) == 0 && len(changed) == 0 {
		return nil
	}
	cur := &img.topics.topicIndexes
	if b.x == nil {
		b.x = new(imageWithTopics)
	}
	// The first update's roots go into the image's own allocation; a later
	// one's are allocated (it reads the first's), and then the first's are
	// cleared, once the update cannot fail.
	roots := &b.x.roots
	if b.putTopics {
		cur, roots = &b.topics, nil
	}
	t, err := cur.update(deleted, topicPointers(changed), roots)
	if err != nil {
		return err
	}
	if t.byID.Len() != t.byName.Len() {
		// TopicsImage keeps one name per id and one id per name; a
		// changed topic took a live topic's name, or two took one.
		return fmt.Errorf("put topics: %d topic ids but %d names: a name is given to two topics", t.byID.Len(), t.byName.Len())
	}
	if roots == nil {
		b.x.roots = [2]dirNode{}
	}
	b.topics, b.putTopics = t, true
	return nil
}

// PutConfigs replaces the entries of each resource in changes
// (ConfigurationsDelta.apply); an empty list removes the resource, as Kafka
// drops resources whose configuration becomes empty. Entry lists must be
// sorted by name.
func (b *Builder) PutConfigs(changes map[ConfigResource][]ConfigEntry) {
	img := b.live()
	own := make(map[ConfigResource][]ConfigEntry, len(changes))
	for res, es := range changes {
		own[res] = slices.Clone(es)
	}
	img.configs = img.configs.updateConfigs(own)
}

// PutClientQuotas puts each entity in changes under its canonical key
// (ClientQuotasDelta.apply); a nil or empty entity is removed.
func (b *Builder) PutClientQuotas(changes map[string]*QuotaEntity) {
	img := b.live()
	img.quotas = img.quotas.updateQuotas(changes)
}

// SetNextProducerID sets the first producer id of the next block
// (ProducerIdsDelta.apply); -1 means none was ever issued.
func (b *Builder) SetNextProducerID(id int64) { b.live().producerID = id }

// PutACLs adds the ACLs in put and drops those with the ids in removed
// (AclsDelta.apply).
func (b *Builder) PutACLs(put []ACL, removed []record.UUID) {
	img := b.live()
	img.acls = img.acls.updateACLs(put, removed)
}

// PutScram puts each credential in changes; a nil one removes the key
// (ScramDelta.apply).
func (b *Builder) PutScram(changes map[ScramKey]*ScramCredential) {
	img := b.live()
	own := make(map[ScramKey]*ScramCredential, len(changes))
	for k, c := range changes {
		if c != nil {
			cp := c.clone()
			c = &cp
		}
		own[k] = c
	}
	img.scram = img.scram.updateScram(own)
}

// PutTokens puts each delegation token in changes under its id; a nil one
// removes it (DelegationTokenDelta.apply).
func (b *Builder) PutTokens(changes map[string]*Token) {
	img := b.live()
	own := make(map[string]*Token, len(changes))
	for id, t := range changes {
		if t != nil {
			cp := t.clone()
			t = &cp
		}
		own[id] = t
	}
	img.tokens = img.tokens.updateTokens(own)
}

// Image returns the image built, with provenance p, and invalidates the
// builder: any later call on it panics.
//
// The image is one allocation, with its Topics value and the roots of its
// topic indexes when the topics changed (so that a one-topic change
// allocates one object here, not three).
func (b *Builder) Image(p Provenance) *Image {
	b.live()
	b.done = true
	b.img.provenance = p
	if !b.putTopics {
		img := new(Image)
		*img = b.img
		return img
	}
	x := b.x
	x.img = b.img
	x.topics.topicIndexes = b.topics
	x.img.topics = &x.topics
	return &x.img
}

// imageWithTopics is an image and its Topics value, allocated together,
// with the roots of the two topic indexes (a root is never shared: every
// change copies it).
type imageWithTopics struct {
	img    Image
	topics Topics
	roots  [2]dirNode
}

// TopicBuilder builds one topic's partition list, Kafka's TopicDelta: the
// partitions are kept sorted by id as they are put, each id at most once.
// Package delta holds one for every topic it changes.
//
// A TopicBuilder owns its partitions and is single-use, like
// immutable.MapBuilder: Topic freezes them into a Topic, and every later
// call on the builder panics. Nothing it does changes the topic it started
// from. A TopicBuilder is not safe for concurrent use.
//
// While every partition put holds its lists inline (no pointer), the
// partitions are kept in the pointer-free block that Topic then returns
// (topicblock.go), so that freezing copies nothing; a partition with a
// long list moves them to ordinary memory, and Topic copies them into an
// exact block.
type TopicBuilder struct {
	name     string
	id       record.UUID
	nameHash uint32
	parts    []PartitionRegistration // in blk.parts' memory unless onHeap
	blk      block                   // the block being filled, while !onHeap
	onHeap   bool                    // parts is ordinary memory
	done     bool
}

// NewTopicBuilder returns a builder of an empty topic named name with id.
func NewTopicBuilder(name string, id record.UUID) *TopicBuilder {
	return &TopicBuilder{name: name, id: id, nameHash: hashString(name)}
}

// NewTopicBuilderFrom returns a builder of a topic holding t's name, id and
// a copy of its partitions.
func NewTopicBuilderFrom(topic Topic) *TopicBuilder {
	t := topic.t
	b := &TopicBuilder{name: t.name, id: t.id, nameHash: t.nameHash}
	for i := range t.parts {
		if t.parts[i].ids != nil {
			b.parts, b.onHeap = exactCopy(t.parts), true
			return b
		}
	}
	b.reserve(len(t.parts))
	b.parts = append(b.parts, t.parts...)
	return b
}

func exactCopy(parts []PartitionRegistration) []PartitionRegistration {
	out := make([]PartitionRegistration, len(parts))
	copy(out, parts)
	return out
}

// reserve makes room for n partitions in all, in a new block when the
// partitions are in one.
func (b *TopicBuilder) reserve(n int) {
	if n <= cap(b.parts) {
		return
	}
	if b.onHeap {
		b.parts = slices.Grow(b.parts, n-len(b.parts))
		return
	}
	bl := allocBlock(b.name, n, 0)
	b.parts = append(bl.parts, b.parts...)
	b.blk = bl
}

// toHeap moves the partitions to ordinary memory (before a partition with
// a long list is put: a block holds no pointer out of itself).
func (b *TopicBuilder) toHeap() {
	b.parts = slices.Grow(exactCopy(b.parts), 1)
	b.blk, b.onHeap = block{}, true
}

func (b *TopicBuilder) live() {
	if b.done {
		panic("image: TopicBuilder used after Topic")
	}
}

// Name is the topic's name.
func (b *TopicBuilder) Name() string { return b.name }

// ID is the topic's id.
func (b *TopicBuilder) ID() record.UUID { return b.id }

// Grow makes room for n more partitions, so that the next n Puts of
// partitions beyond the last one allocate nothing.
func (b *TopicBuilder) Grow(n int) {
	b.live()
	b.reserve(len(b.parts) + n)
}

// Len is the number of partitions put so far.
func (b *TopicBuilder) Len() int {
	b.live()
	return len(b.parts)
}

// At returns a copy of the i-th partition in ascending id order.
func (b *TopicBuilder) At(i int) PartitionRegistration {
	b.live()
	return b.parts[i]
}

// Partition returns a copy of partition id.
func (b *TopicBuilder) Partition(id int32) (PartitionRegistration, bool) {
	b.live()
	if i, ok := findPartition(b.parts, id); ok {
		return b.parts[i], true
	}
	return PartitionRegistration{}, false
}

func findPartition(parts []PartitionRegistration, id int32) (int, bool) {
	if id >= 0 && int(id) < len(parts) && parts[id].id == id {
		return int(id), true
	}
	i := sort.Search(len(parts), func(i int) bool { return parts[i].id >= id })
	return i, i < len(parts) && parts[i].id == id
}

// Put stores p, replacing the partition with its id.
func (b *TopicBuilder) Put(p PartitionRegistration) {
	b.live()
	if p.ids != nil && !b.onHeap {
		b.toHeap()
	}
	n := len(b.parts)
	i, ok := n, false
	if n > 0 && b.parts[n-1].id >= p.id {
		i, ok = findPartition(b.parts, p.id)
	}
	if ok {
		b.parts[i] = p
		return
	}
	if n == cap(b.parts) {
		b.reserve(max(2*n, 1))
	}
	b.parts = b.parts[:n+1]
	copy(b.parts[i+1:], b.parts[i:n])
	b.parts[i] = p
}

// Topic returns the topic built and invalidates the builder: any later call
// on it panics. The topic is one pointer-free block (topicblock.go), which
// the garbage collector does not scan: the block the partitions were put
// in, or an exact copy when they are in ordinary memory or the block has
// much spare room (so that images do not carry it).
func (b *TopicBuilder) Topic() Topic {
	b.live()
	b.done = true
	parts := b.parts
	b.parts = nil
	if !b.onHeap && b.blk.t != nil && cap(parts)-len(parts) <= len(parts)/8 {
		return Topic{b.blk.finish(b.id, b.nameHash, parts)}
	}
	return Topic{newTopicBlock(b.name, b.id, b.nameHash, parts)}
}

// topicPointers returns ts as the topics they designate, without copying:
// a Topic is a struct of one *topic, laid out as the pointer itself.
func topicPointers(ts []Topic) []*topic {
	if len(ts) == 0 {
		return nil
	}
	return unsafe.Slice((**topic)(unsafe.Pointer(unsafe.SliceData(ts))), len(ts))
}

// A Topic must be laid out as its *topic for topicPointers.
var _ = [1]struct{}{}[unsafe.Sizeof(Topic{})-unsafe.Sizeof((*topic)(nil))]
