package proxytest

import (
	"encoding/binary"
	"math/rand"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// IssueFrames are the two frames of the report that ended the proxy once: a
// Metadata v12 header claiming one 100-byte tagged field and carrying none
// (a panic), and a header tagged-field count of 2^63 (a spin).
func IssueFrames() [][]byte {
	return [][]byte{
		{0x00, 0x00, 0x00, 0x0e, 0x00, 0x03, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x78, 0x01, 0x00, 0x64},
		{0x00, 0x00, 0x00, 0x14, 0x00, 0x03, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x01, 0xff, 0xff, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
	}
}

// ValidFrames is one request of every kind the proxy serves, at every
// version it serves, with topics, keys and cursors where the version has
// them (whole frames, size included).
func ValidFrames() [][]byte {
	var out [][]byte
	name := func(s string) *string { return &s }
	for v := int16(0); v <= 13; v++ {
		r := kmsg.NewPtrMetadataRequest()
		r.Version = v
		out = append(out, RequestFrame(r, int32(v))) // all topics (none at v0)
		t := kmsg.NewMetadataRequestTopic()
		t.Topic = name("orders")
		u := kmsg.NewMetadataRequestTopic()
		u.Topic = name("no-such-topic")
		r.Topics = []kmsg.MetadataRequestTopic{t, u}
		r.IncludeTopicAuthorizedOperations = v >= 8
		out = append(out, RequestFrame(r, int32(v)))
	}
	for v := int16(0); v <= 6; v++ {
		r := kmsg.NewPtrFindCoordinatorRequest()
		r.Version = v
		r.CoordinatorKey = "group-a"
		if v >= 4 {
			r.CoordinatorKeys = []string{"group-a", "group-b"}
		}
		out = append(out, RequestFrame(r, 100+int32(v)))
	}
	for v := int16(0); v <= 6; v++ {
		r := kmsg.NewPtrApiVersionsRequest()
		r.Version = v
		r.ClientSoftwareName, r.ClientSoftwareVersion = "kmeta", "1.0"
		out = append(out, RequestFrame(r, 200+int32(v)))
		if v == 5 {
			r.ClusterID, r.NodeID = name("demo-cluster"), 1
			out = append(out, RequestFrame(r, 200+int32(v)))
		}
	}
	for v := int16(0); v <= 2; v++ {
		r := kmsg.NewPtrDescribeClusterRequest()
		r.Version = v
		r.IncludeFencedBrokers = v >= 2
		out = append(out, RequestFrame(r, 300+int32(v)))
	}
	r := kmsg.NewPtrDescribeTopicPartitionsRequest()
	t := kmsg.NewDescribeTopicPartitionsRequestTopic()
	t.Topic = "orders"
	r.Topics = append(r.Topics, t)
	r.Cursor = &kmsg.DescribeTopicPartitionsRequestCursor{Topic: "orders", Partition: 2}
	out = append(out, RequestFrame(r, 400))
	return out
}

// WithSize prefixes a frame body with its size.
func WithSize(b []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// Hdr is a request header for key at v with correlation id 1 and a null
// client id (v2, with its empty tags, where the version is flexible).
func Hdr(key, v int16) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(v))
	b = append(b, 0, 0, 0, 1, 0xff, 0xff)
	if v >= 9 || key == 60 || key == 75 || (key == 18 && v >= 3) {
		b = append(b, 0)
	}
	return b
}

// MutateFrame is a copy of a valid frame with one to four bytes flipped,
// set to an edge value, dropped or inserted, and half the time its size
// fixed to match.
func MutateFrame(rng *rand.Rand, valid []byte) []byte {
	b := append([]byte(nil), valid...)
	for m := 1 + rng.Intn(4); m > 0 && len(b) > 4; m-- {
		i := 4 + rng.Intn(len(b)-4)
		switch rng.Intn(4) {
		case 0:
			b[i] ^= byte(1 << rng.Intn(8))
		case 1:
			b[i] = []byte{0x00, 0x7f, 0x80, 0xff}[rng.Intn(4)]
		case 2:
			b = append(b[:i], b[i+1:]...)
		case 3:
			b = append(b[:i], append([]byte{byte(rng.Intn(256))}, b[i:]...)...)
		}
	}
	if rng.Intn(2) == 0 {
		binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	}
	return b
}

// HostileFrames are n frames drawn from rng: random bytes, valid requests
// mutated (bytes flipped, inserted, removed, a size rewritten), truncated
// frames, huge declared sizes, huge array counts, negative string lengths,
// 2^63 tag counts, and the report's two frames.
func HostileFrames(rng *rand.Rand, n int) [][]byte {
	valid := ValidFrames()
	var out [][]byte
	out = append(out, IssueFrames()...)
	for len(out) < n {
		switch k := rng.Intn(10); k {
		case 0: // random bytes
			b := make([]byte, rng.Intn(64))
			rng.Read(b)
			out = append(out, WithSize(b))
		case 1, 2, 3: // a valid request, mutated
			out = append(out, MutateFrame(rng, valid[rng.Intn(len(valid))]))
		case 4: // truncated: the size says more than is sent
			b := valid[rng.Intn(len(valid))]
			out = append(out, b[:rng.Intn(len(b))])
		case 5: // huge declared sizes
			size := []uint32{100 << 20, 100<<20 + 1, 0x7fffffff, 0x80000000, 0xffffffff, 1 << 30}[rng.Intn(6)]
			b := binary.BigEndian.AppendUint32(nil, size)
			out = append(out, append(b, Hdr(3, 12)...))
		case 6: // huge array counts
			switch rng.Intn(3) {
			case 0:
				out = append(out, WithSize(append(Hdr(3, 1), 0x7f, 0xff, 0xff, 0xff)))
			case 1:
				out = append(out, WithSize(append(Hdr(3, 12), 0xff, 0xff, 0xff, 0xff, 0x0f)))
			case 2:
				out = append(out, WithSize(append(Hdr(10, 5), 0, 0xfe, 0xff, 0xff, 0xff, 0x07)))
			}
		case 7: // negative string lengths
			switch rng.Intn(3) {
			case 0:
				out = append(out, WithSize(append(Hdr(3, 4), 0, 0, 0, 1, 0x80, 0x00, 1)))
			case 1:
				b := append(binary.BigEndian.AppendUint16(nil, 3), 0, 4, 0, 0, 0, 1, 0x80, 0x01)
				out = append(out, WithSize(b)) // client id length -32767
			case 2:
				out = append(out, WithSize(append(Hdr(10, 0), 0xff, 0xfe)))
			}
		case 8: // 2^63 tag counts, in the header and in bodies
			tag := []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}
			b := append(binary.BigEndian.AppendUint16(nil, 60), 0, 0, 0, 0, 0, 1, 0xff, 0xff)
			if rng.Intn(2) == 0 {
				b = append(b, tag...)
			} else {
				b = append(append(b, 0, 1), tag...)
			}
			out = append(out, WithSize(b))
		case 9: // a valid request, whole
			out = append(out, valid[rng.Intn(len(valid))])
		}
	}
	return out
}
