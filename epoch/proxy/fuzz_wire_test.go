package proxy

import (
	"bytes"
	"errors"
	"math/rand"
	"testing"
)

// FuzzDecode: ParseHeader and DecodeBody on any bytes never panic; a failure
// is an *Error placed inside the frame, naming the key and version once the
// header has them; a decoded request encoded again (kmsg's encoder) decodes
// to the same bytes. Seeded with every served request at every version
// (seed 1) and the report's two frames; `go test` runs the seeds.
func FuzzDecode(f *testing.F) {
	rng := rand.New(rand.NewSource(1))
	for _, a := range Supported {
		for v := a.Min; v <= a.Max; v++ {
			f.Add(randomRequest(rng, a.Key, v).AppendTo(appendHeader(nil, a.Key, v, 1, str("c"))))
		}
	}
	f.Add([]byte{0x00, 0x03, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x78, 0x01, 0x00, 0x64})
	f.Add([]byte{0x00, 0x03, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x01, 0xff, 0xff, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01})
	f.Fuzz(func(t *testing.T, frame []byte) {
		h, req, err := Decode(frame)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset > len(frame) {
				t.Fatalf("%v: not an *Error inside the %d-byte frame", err, len(frame))
			}
			if len(frame) >= 4 && (e.APIKey != h.APIKey || e.APIVersion != h.APIVersion) {
				t.Fatalf("%v: names key %d v%d, header has %d v%d", err, e.APIKey, e.APIVersion, h.APIKey, h.APIVersion)
			}
			return
		}
		id := h.ClientID
		enc := req.AppendTo(appendHeader(nil, h.APIKey, h.APIVersion, h.CorrelationID, &id))
		h2, req2, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-encoded request does not decode: %v", err)
		}
		if h2.APIKey != h.APIKey || h2.APIVersion != h.APIVersion || h2.CorrelationID != h.CorrelationID || h2.ClientID != h.ClientID {
			t.Fatalf("header %+v re-decoded as %+v", h, h2)
		}
		if !bytes.Equal(req2.AppendTo(nil), enc[h2.Size:]) {
			t.Fatal("not a fixed point")
		}
	})
}
