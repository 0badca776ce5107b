package proxy

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// appendHeader appends a request header for key at version (header v2 where
// the version is flexible, with no tagged fields) with the client id.
func appendHeader(dst []byte, key, version int16, corr int32, clientID *string) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(key))
	dst = binary.BigEndian.AppendUint16(dst, uint16(version))
	dst = binary.BigEndian.AppendUint32(dst, uint32(corr))
	if clientID == nil {
		dst = binary.BigEndian.AppendUint16(dst, 0xffff)
	} else {
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(*clientID)))
		dst = append(dst, *clientID...)
	}
	if hv, _ := headerVersion(key, version); hv == 2 {
		dst = append(dst, 0)
	}
	return dst
}

func str(s string) *string { return &s }

// randomRequest is a request of every field kind the served APIs have, with
// values drawn from rng, at version v.
func randomRequest(rng *rand.Rand, key, v int16) kmsg.Request {
	name := func() string {
		b := make([]byte, rng.Intn(20))
		for i := range b {
			b[i] = byte('a' + rng.Intn(26))
		}
		return string(b)
	}
	switch key {
	case 3:
		return randomMetadataRequest(rng, v, name)
	case 10:
		r := kmsg.NewPtrFindCoordinatorRequest()
		r.Version = v
		if v <= 3 {
			r.CoordinatorKey = name()
		}
		if v >= 1 {
			r.CoordinatorType = int8(rng.Intn(3))
		}
		if v >= 4 {
			r.CoordinatorKeys = []string{}
			for i := rng.Intn(4); i > 0; i-- {
				r.CoordinatorKeys = append(r.CoordinatorKeys, name())
			}
		}
		return r
	case 18:
		r := kmsg.NewPtrApiVersionsRequest()
		r.Version = v
		if v >= 3 {
			r.ClientSoftwareName, r.ClientSoftwareVersion = name(), name()
		}
		if v >= 5 && rng.Intn(2) == 0 {
			r.ClusterID, r.NodeID = str(name()), rng.Int31()
		}
		return r
	case 60:
		r := kmsg.NewPtrDescribeClusterRequest()
		r.Version = v
		r.IncludeClusterAuthorizedOperations = rng.Intn(2) == 0
		if v >= 1 {
			r.EndpointType = int8(1 + rng.Intn(2))
		}
		r.IncludeFencedBrokers = v >= 2 && rng.Intn(2) == 0
		return r
	case 75:
		r := kmsg.NewPtrDescribeTopicPartitionsRequest()
		r.Version = v
		r.Topics = []kmsg.DescribeTopicPartitionsRequestTopic{}
		for i := rng.Intn(4); i > 0; i-- {
			t := kmsg.NewDescribeTopicPartitionsRequestTopic()
			t.Topic = name()
			r.Topics = append(r.Topics, t)
		}
		r.ResponsePartitionLimit = rng.Int31()
		if rng.Intn(2) == 0 {
			r.Cursor = &kmsg.DescribeTopicPartitionsRequestCursor{Topic: name(), Partition: rng.Int31()}
		}
		return r
	}
	panic(key)
}

// randomMetadataRequest is randomRequest's Metadata request of version v,
// its topic names made by name.
func randomMetadataRequest(rng *rand.Rand, v int16, name func() string) kmsg.Request {
	r := kmsg.NewPtrMetadataRequest()
	r.Version = v
	if v == 0 || rng.Intn(4) > 0 {
		r.Topics = []kmsg.MetadataRequestTopic{}
		for i := rng.Intn(5); i > 0; i-- {
			t := kmsg.NewMetadataRequestTopic()
			t.Topic = str(name())
			if v >= 10 {
				rng.Read(t.TopicID[:])
				if rng.Intn(2) == 0 {
					t.Topic = nil
				}
			}
			r.Topics = append(r.Topics, t)
		}
	}
	r.AllowAutoTopicCreation = v < 4 || rng.Intn(2) == 0
	r.IncludeClusterAuthorizedOperations = v >= 8 && v <= 10 && rng.Intn(2) == 0
	r.IncludeTopicAuthorizedOperations = v >= 8 && rng.Intn(2) == 0
	return r
}

// TestDecodeEveryVersion_seed1 decodes every served request at every
// version as kmsg encodes it (kmsg's encoder follows Kafka's schemas) and
// gets the same request back, with the header's fields.
func TestDecodeEveryVersion_seed1(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, a := range Supported {
		for v := a.Min; v <= a.Max; v++ {
			for i := 0; i < 50; i++ {
				want := randomRequest(rng, a.Key, v)
				id := str("client-" + fmt.Sprint(i))
				if i%3 == 0 {
					id = nil
				}
				frame := want.AppendTo(appendHeader(nil, a.Key, v, int32(i), id))
				h, got, err := Decode(frame)
				if err != nil {
					t.Fatalf("key %d v%d: %v", a.Key, v, err)
				}
				if h.APIKey != a.Key || h.APIVersion != v || h.CorrelationID != int32(i) || (id != nil && h.ClientID != *id) || (id == nil && h.ClientID != "") {
					t.Fatalf("key %d v%d: header %+v", a.Key, v, h)
				}
				if !reflect.DeepEqual(normalize(got), normalize(want)) {
					t.Fatalf("key %d v%d:\n got %+v\nwant %+v", a.Key, v, got, want)
				}
				// Trailing bytes are ignored, as AbstractRequest.parseRequest ignores them.
				if _, got2, err := Decode(append(frame, 1, 2, 3)); err != nil || !reflect.DeepEqual(normalize(got2), normalize(want)) {
					t.Fatalf("key %d v%d with trailing bytes: %v", a.Key, v, err)
				}
				// Every proper prefix of the body fails with ErrTruncated
				// (or, where the prefix ends a valid body early, decodes).
				for cut := h.Size; cut < len(frame); cut++ {
					if _, _, err := Decode(frame[:cut]); err != nil && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrInvalid) {
						t.Fatalf("key %d v%d cut at %d: %v", a.Key, v, cut, err)
					}
				}
			}
		}
	}
}

// normalize re-encodes a request, so that nil and empty slices compare equal
// exactly where the wire does not tell them apart.
func normalize(r kmsg.Request) []byte { return r.AppendTo(nil) }

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHostileHeaders are the frames that ended the proxy before this
// package: each is an *Error with its API key, version and byte position.
func TestHostileHeaders(t *testing.T) {
	for _, c := range []struct {
		name, frame string
		cause       error
		offset      int
		field       string
	}{
		// Metadata v12 whose header claims one 100-byte tagged field and carries none.
		{"tag size beyond frame", "0003 000c 00000001 0001 78 01 00 64", ErrTruncated, 14, "HeaderTaggedFields"},
		// A header tagged-field count of 2^63: a ten-byte varint.
		{"2^63 tag count", "0003 000c 00000001 ffff 80808080808080808001", ErrInvalid, 14, "HeaderTaggedFields"},
		{"negative client id length", "0003 000c 00000001 fff0 00", nil, 0, ""}, // null (any negative length): Kafka reads it as ""
		{"client id beyond frame", "0003 000c 00000001 7fff", ErrTruncated, 10, "ClientId"},
		{"unknown api key", "7fff 0000 00000001 ffff", ErrUnknownAPIKey, 0, "RequestApiKey"},
		{"short", "0003 00", ErrTruncated, 2, "RequestApiVersion"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseHeader(mustHex(t, c.frame))
			if c.cause == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, c.cause) || e.Offset != c.offset || e.Field != c.field {
				t.Fatalf("got %v (%+v), want %v at byte %d in %s", err, e, c.cause, c.offset, c.field)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("byte %d", c.offset)) {
				t.Fatalf("message %q does not name the byte", err)
			}
		})
	}
}

// TestHostileBodies: huge array counts, negative string lengths and
// lengths beyond the frame are errors naming the field, never allocations.
func TestHostileBodies(t *testing.T) {
	hdr := func(key, v int16) []byte { return appendHeader(nil, key, v, 1, nil) }
	cases := []struct {
		name  string
		frame []byte
		cause error
		field string
	}{
		{"metadata v1 2^31-1 topics", append(hdr(3, 1), 0x7f, 0xff, 0xff, 0xff), ErrTruncated, "Topics"},
		{"metadata v0 null topics", append(hdr(3, 0), 0xff, 0xff, 0xff, 0xff), ErrInvalid, "Topics"},
		{"metadata v12 huge compact count", append(hdr(3, 12), 0xfe, 0xff, 0xff, 0xff, 0x07), ErrTruncated, "Topics"},
		{"metadata v4 negative name length", append(hdr(3, 4), 0, 0, 0, 1, 0xff, 0xfe), ErrInvalid, "Topics.Name"},
		{"metadata v12 topic id cut", append(hdr(3, 12), 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), ErrTruncated, "Topics.TopicId"},
		{"find coordinator v4 keys count", append(hdr(10, 4), 0, 0x10), ErrTruncated, "CoordinatorKeys"},
		{"api versions v3 name beyond", append(hdr(18, 3), 0x7f), ErrTruncated, "ClientSoftwareName"},
		{"describe cluster empty", hdr(60, 0), ErrTruncated, "IncludeClusterAuthorizedOperations"},
		{"dtp body tags 2^63", append(hdr(75, 0), 1, 0, 0, 0, 0, 0xff, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01), ErrInvalid, "TaggedFields"},
		{"metadata v13 unsupported", hdr(3, 14), ErrUnsupportedVersion, ""},
		{"produce not decoded", hdr(0, 9), ErrUnsupportedVersion, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, req, err := Decode(c.frame)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, c.cause) || e.Field != c.field || req != nil {
				t.Fatalf("got %v (%+v), want %v in %q", err, e, c.cause, c.field)
			}
			if e.APIKey != h.APIKey || e.APIVersion != h.APIVersion || e.Offset < h.Size || e.Offset > len(c.frame) {
				t.Fatalf("error %+v does not place itself in %+v of %d bytes", e, h, len(c.frame))
			}
		})
	}
}

// TestUnsupportedApiVersions: an ApiVersions header at a version above 5
// is read whole (header v2) and marked for Kafka's v0 UNSUPPORTED_VERSION
// answer; the response header of ApiVersions is always v0.
func TestUnsupportedApiVersions(t *testing.T) {
	frame := append(appendHeader(nil, 18, 9, 5, str("c")), 0xde, 0xad)
	h, err := ParseHeader(frame)
	if err != nil || h.Version != 2 || !IsUnsupportedApiVersions(h) {
		t.Fatalf("%+v %v", h, err)
	}
	if _, err := DecodeBody(h, frame); !errors.Is(err, ErrUnsupportedVersion) {
		t.Fatal(err)
	}
	if ResponseHeaderVersion(h) != 0 {
		t.Fatal("ApiVersions response header must be v0")
	}
	out := AppendResponse(nil, h, []byte{9})
	if !bytes.Equal(out, []byte{0, 0, 0, 5, 0, 0, 0, 5, 9}) {
		t.Fatalf("%x", out)
	}
	mh, _ := ParseHeader(appendHeader(nil, 3, 12, 6, nil))
	if out := AppendResponse(nil, mh, []byte{9}); !bytes.Equal(out, []byte{0, 0, 0, 6, 0, 0, 0, 6, 0, 9}) {
		t.Fatalf("flexible response header: %x", out)
	}
	// Encoding in place gives the same frames, after what dst held.
	for _, hh := range []Header{h, mh} {
		dst := []byte{7, 7}
		out := AppendResponseHeader(dst, hh)
		out = append(out, 9)
		FinishResponse(out, len(dst))
		if want := AppendResponse([]byte{7, 7}, hh, []byte{9}); !bytes.Equal(out, want) {
			t.Fatalf("in place %x, want %x", out, want)
		}
	}
}

// TestFrameReaderBounds: a size above the maximum or negative is refused
// before allocation; a large declared frame that sends few bytes allocates
// a chunk, not its size; frames follow each other.
func TestFrameReaderBounds(t *testing.T) {
	var in bytes.Buffer
	in.Write([]byte{0, 0, 0, 3, 1, 2, 3})
	in.Write([]byte{0, 0, 0, 0})
	f := NewFrameReader(&in)
	if b, err := f.Next(); err != nil || !bytes.Equal(b, []byte{1, 2, 3}) {
		t.Fatal(b, err)
	}
	if b, err := f.Next(); err != nil || len(b) != 0 {
		t.Fatal(b, err)
	}
	if _, err := f.Next(); err != io.EOF {
		t.Fatal(err)
	}
	for _, size := range []uint32{DefaultMaxRequestBytes + 1, 0x80000000, 0xffffffff} {
		f := NewFrameReader(bytes.NewReader(binary.BigEndian.AppendUint32(nil, size)))
		if _, err := f.Next(); !errors.Is(err, ErrFrameSize) {
			t.Fatalf("size %d: %v", size, err)
		}
	}
	// 100 MiB declared, 10 bytes sent.
	f = NewFrameReader(bytes.NewReader(append(binary.BigEndian.AppendUint32(nil, DefaultMaxRequestBytes), make([]byte, 10)...)))
	if _, err := f.Next(); err != io.ErrUnexpectedEOF {
		t.Fatal(err)
	}
	if cap(f.buf) > frameChunk {
		t.Fatalf("buffer of %d bytes for 10 received", cap(f.buf))
	}
}

// TestFrameReaderDeadlines: no first byte within IdleTimeout is ErrIdle; a
// frame trickled past ReadTimeout is ErrSlow.
func TestFrameReaderDeadlines(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				// A trickle: the size and then a byte every 20 ms.
				c.Write([]byte{0, 0, 0, 100})
				for i := 0; i < 100; i++ {
					time.Sleep(20 * time.Millisecond)
					if _, err := c.Write([]byte{0}); err != nil {
						return
					}
				}
			}()
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f := NewFrameReader(c)
	f.ReadTimeout = 200 * time.Millisecond
	start := time.Now()
	if _, err := f.Next(); err != ErrSlow {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("cut after %v", d)
	}

	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	f = NewFrameReader(a)
	f.IdleTimeout = 100 * time.Millisecond
	if _, err := f.Next(); err != ErrIdle {
		t.Fatal(err)
	}
}

// BenchmarkDecode decodes a Metadata v12 request for 100 topics and an
// ApiVersions v4 request, header and body, per iteration.
//
//	go test ./internal/wire -run '^$' -bench Decode -cpu 1
func BenchmarkDecode(b *testing.B) {
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 12
	for i := 0; i < 100; i++ {
		t := kmsg.NewMetadataRequestTopic()
		t.Topic = str(fmt.Sprintf("topic-%03d", i))
		md.Topics = append(md.Topics, t)
	}
	av := kmsg.NewPtrApiVersionsRequest()
	av.Version = 4
	av.ClientSoftwareName, av.ClientSoftwareVersion = "kmeta", "1.0"
	frames := [][]byte{
		md.AppendTo(appendHeader(nil, 3, 12, 1, str("client"))),
		av.AppendTo(appendHeader(nil, 18, 4, 2, str("client"))),
	}
	b.SetBytes(int64(len(frames[0]) + len(frames[1])))
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range frames {
			if _, _, err := Decode(f); err != nil {
				b.Fatal(err)
			}
		}
	}
}
