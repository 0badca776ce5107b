package proxy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/internal/proxytest"
	"github.com/kmeta-go/kmeta/publisher"
)

// FuzzServe drives the whole request path over a byte stream as a client
// would send it: frames (FrameReader, 1 MiB maximum) → header → body →
// answer from the demo image → encoded response frame. Whatever the bytes,
// nothing panics or loops; every frame either closes the connection with an
// *Error placed inside the frame, or is answered with a response frame
// whose size, correlation id and body decode at the request's version (v0
// for an ApiVersions version the proxy does not know); a decoded request
// encodes back (kmsg's encoder) to a frame that decodes to the same request.
// Seeded with one request of every kind and version the proxy serves and the
// report's two frames; `go test` runs the seeds, FUZZING.md has longer runs.
func FuzzServe(f *testing.F) {
	for _, fr := range validFrames() {
		f.Add(fr)
	}
	for _, fr := range proxytest.IssueFrames() {
		f.Add(fr)
	}
	all := bytes.Join(validFrames(), nil)
	f.Add(all)
	f.Add(append(append([]byte(nil), validFrames()[0]...), proxytest.IssueFrames()[0]...))

	loader := publisher.NewLoader(publisher.Config{})
	defer loader.Close()
	if err := loadDemo(loader); err != nil {
		f.Fatal(err)
	}
	s := NewServer(DefaultListener(loader.Image()), "demo-cluster", "127.0.0.1:9092")
	if err := loader.Install(s); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		fr := NewFrameReader(bytes.NewReader(stream))
		fr.MaxBytes = 1 << 20
		for {
			frame, err := fr.Next()
			if err != nil {
				var we *Error
				if err != io.EOF && err != io.ErrUnexpectedEOF && !(errors.As(err, &we) && errors.Is(err, ErrFrameSize)) {
					t.Fatalf("frame reader: %v", err)
				}
				return
			}
			checkServed(t, s, frame)
		}
	})
}

func checkServed(t *testing.T, s *Server, frame []byte) {
	h, req, derr := Decode(frame)
	out, err := s.handle(nil, frame)
	if err != nil {
		var we *Error
		if !errors.As(err, &we) || we.Offset < 0 || we.Offset > len(frame) {
			t.Fatalf("error %v does not place itself in the %d-byte frame", err, len(frame))
		}
		if derr == nil {
			t.Fatalf("decoded, yet not served: %v", err)
		}
		return
	}
	if derr != nil && !IsUnsupportedApiVersions(h) {
		t.Fatalf("served a frame that does not decode (%v)", derr)
	}
	if len(out) < 8 || int(binary.BigEndian.Uint32(out)) != len(out)-4 {
		t.Fatalf("response frame size %x for %d bytes", out[:min(4, len(out))], len(out))
	}
	if int32(binary.BigEndian.Uint32(out[4:])) != h.CorrelationID {
		t.Fatal("correlation id")
	}
	body := out[8:]
	if ResponseHeaderVersion(h) == 1 {
		if len(body) == 0 || body[0] != 0 {
			t.Fatal("response header tagged fields")
		}
		body = body[1:]
	}
	resp := kmsg.ResponseForKey(h.APIKey)
	v := h.APIVersion
	if IsUnsupportedApiVersions(h) {
		v = 0
	}
	resp.SetVersion(v)
	if err := resp.ReadFrom(body); err != nil {
		t.Fatalf("%s v%d response does not decode: %v", kmsg.NameForKey(h.APIKey), v, err)
	}
	if req == nil {
		return
	}
	// kmsg's encoding of what was decoded decodes to the same request.
	re := binary.BigEndian.AppendUint16(nil, uint16(h.APIKey))
	re = binary.BigEndian.AppendUint16(re, uint16(h.APIVersion))
	re = binary.BigEndian.AppendUint32(re, uint32(h.CorrelationID))
	re = binary.BigEndian.AppendUint16(re, uint16(len(h.ClientID)))
	re = append(re, h.ClientID...)
	if h.Version == 2 {
		re = append(re, 0)
	}
	enc := req.AppendTo(re)
	h2, req2, err := Decode(enc)
	if err != nil {
		t.Fatalf("re-encoded request does not decode: %v", err)
	}
	if h2 != (Header{APIKey: h.APIKey, APIVersion: h.APIVersion, CorrelationID: h.CorrelationID, ClientID: h.ClientID, Version: h.Version, Size: len(re)}) {
		t.Fatalf("header %+v re-decoded as %+v", h, h2)
	}
	if !bytes.Equal(req2.AppendTo(nil), enc[len(re):]) {
		t.Fatal("re-encoded request decodes differently")
	}
}
