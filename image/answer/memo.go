package answer

import (
	"encoding/binary"
	"sync"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
)

// memo remembers, per image, the encoded answer to each distinct Metadata
// request. An answer depends on nothing but the image, the Responder's
// Config and the request's (listener, version, flags, topic list, principal
// and host); the memo keys on exactly the request-side part, and drops
// everything when it is handed a different image. With a nil Authorizer the
// principal and host are not part of the key.
type memo struct {
	maxBytes int

	mu      sync.RWMutex
	img     *image.Image
	entries map[string]memoEntry
	size    int
}

type memoEntry struct {
	body   []byte // read-only once stored
	create []CreateTopic
}

// AppendMetadata appends the encoded Metadata response body for req (no
// response header: the embedder writes the correlation id and, from v9, the
// header's empty tagged fields) to dst and returns it with the topics to
// create, as Metadata would. The bytes appended are a copy; dst is the
// caller's. The ThrottleMillis field (the first four bytes from v3) is 0.
//
// The Responder remembers, per image, the answer to each distinct request
// (Config.MetadataCacheBytes bounds it), so that a storm of identical
// requests against an unchanged image costs a map lookup and a copy; it
// drops them all when it is handed a different image.
func (r *Responder) AppendMetadata(dst []byte, img *image.Image, req *kmsg.MetadataRequest, rq Request) ([]byte, []CreateTopic) {
	o := r.call(rq)
	m := &r.memo
	var kb [256]byte
	key := metadataKey(kb[:0], req, &o)

	m.mu.RLock()
	if m.img == img {
		if e, ok := m.entries[string(key)]; ok {
			m.mu.RUnlock()
			return append(dst, e.body...), e.create
		}
	}
	m.mu.RUnlock()

	resp, create := metadata(img, req, &o)
	body := resp.AppendTo(nil)

	m.mu.Lock()
	if m.img != img {
		m.img, m.entries, m.size = img, make(map[string]memoEntry), 0
	}
	limit := m.maxBytes
	if limit == 0 {
		limit = 64 << 20
	}
	if cost := memoCost(key, body, create); m.size+cost <= limit {
		if cap(body)-len(body) > len(body)/8 {
			body = append(make([]byte, 0, len(body)), body...) // keep no spare capacity
		}
		m.entries[string(key)] = memoEntry{body: body, create: create}
		m.size += cost
	}
	m.mu.Unlock()
	return append(dst, body...), create
}

// memoEntryOverhead is what a Memo entry costs beyond its key's bytes, its
// answer's bytes and its topics to create: the map slot (a string header and
// a memoEntry, 64 bytes on 64-bit platforms, at up to twice that after the
// map grows) and the allocation headers of the key and answer. Measured by
// TestMemoMemoryBound.
const memoEntryOverhead = 192

// memoCost is the memory an entry holds (see memoEntryOverhead).
func memoCost(key, body []byte, create []CreateTopic) int {
	n := memoEntryOverhead + allocSize(len(key)) + allocSize(len(body)) + allocSize(cap(create)*int(unsafe.Sizeof(CreateTopic{})))
	for i := range create {
		n += allocSize(len(create[i].Name))
	}
	return n
}

// allocSize is about what the Go allocator takes for n bytes: small objects
// round up to a size class (multiples of 16 bytes up to 256), large ones to
// 8 KiB pages.
func allocSize(n int) int {
	switch {
	case n == 0:
		return 0
	case n <= 32<<10:
		return (n + 15) &^ 15
	default:
		return (n + 8191) &^ 8191
	}
}

// metadataKey is the request-side part of a Metadata answer's inputs.
func metadataKey(k []byte, req *kmsg.MetadataRequest, o *call) []byte {
	k = binary.BigEndian.AppendUint16(k, uint16(req.Version))
	flags := byte(0)
	if allowAutoTopicCreation(req) {
		flags |= 1
	}
	if req.IncludeClusterAuthorizedOperations {
		flags |= 2
	}
	if req.IncludeTopicAuthorizedOperations {
		flags |= 4
	}
	if IsAllTopics(req) {
		flags |= 8
	}
	k = append(k, flags)
	k = appendKeyString(k, o.Listener)
	if o.Authorizer != nil {
		k = appendKeyString(k, o.Principal)
		k = appendKeyString(k, o.Host)
	}
	if !IsAllTopics(req) {
		for i := range req.Topics {
			t := &req.Topics[i]
			k = append(k, t.TopicID[:]...)
			if t.Topic == nil {
				k = append(k, 0xff)
			} else {
				k = appendKeyString(k, *t.Topic)
			}
		}
	}
	return k
}

func appendKeyString(k []byte, s string) []byte {
	k = binary.AppendUvarint(k, uint64(len(s)))
	return append(k, s...)
}
