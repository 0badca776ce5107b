package proxy

import (
	"encoding/binary"
)

// Header is a request header (RequestHeaderData, versions 1 and 2).
type Header struct {
	APIKey        int16
	APIVersion    int16
	CorrelationID int32
	// ClientID is the client id; Kafka reads a null one as "" (RequestHeader.parse).
	ClientID string
	// Version is the header version: 2 (tagged fields after the client
	// id) for a flexible version of the API, else 1.
	Version int8
	// Size is the header's length in the frame; the body starts there.
	Size int
}

// headerVersion is ApiKeys.requestHeaderVersion: 2 at the API's flexible
// versions, else 1. ApiVersions is flexible from v3 at every version above,
// supported or not, so a client's newer ApiVersions header is read whole.
// ok is false for an API key Kafka does not define.
func headerVersion(key, version int16) (v int8, ok bool) {
	flexible, known := IsFlexible(key, version)
	switch {
	case !known:
		return 0, false
	case flexible:
		return 2, true
	}
	return 1, true
}

// ParseHeader decodes the request header at the start of frame (the bytes
// after the 4-byte size), as RequestHeader.parse does: the API key and
// version decide the header version, the client id is an int16-length
// nullable string in every version, and header v2 ends with tagged fields
// (RequestHeaderData defines none; each is skipped after its size is
// checked). An API key unknown to Kafka is ErrUnknownAPIKey; the frame is
// not otherwise interpreted, so any API's header can be read (a forwarding
// proxy passes the rest on).
func ParseHeader(frame []byte) (Header, error) { return parseHeader(frame, "") }

// parseHeader is ParseHeader whose ClientID is last itself, not a copy,
// when the frame's client id has last's bytes: a client sends the same
// id on every request of a connection, and the connection's reader passes
// the previous one, so that a forwarded request costs no allocation for it.
func parseHeader(frame []byte, last string) (Header, error) {
	r := reader{b: frame, key: -1, ver: -1, field: "RequestApiKey"}
	var h Header
	h.APIKey = r.int16()
	r.field = "RequestApiVersion"
	h.APIVersion = r.int16()
	if r.failed {
		return h, r.err
	}
	r.key, r.ver = h.APIKey, h.APIVersion
	hv, ok := headerVersion(h.APIKey, h.APIVersion)
	if !ok {
		r.off = 0
		r.field = "RequestApiKey"
		r.fail(ErrUnknownAPIKey, "")
		return h, r.err
	}
	h.Version = hv
	r.field = "CorrelationId"
	h.CorrelationID = r.int32()
	r.field = "ClientId"
	if n := r.strLen(false); n >= 0 && !r.failed {
		if id := r.span(n); !r.failed {
			h.ClientID = last
			if string(id) != last {
				h.ClientID = string(id)
			}
		}
	}
	if hv >= 2 {
		r.tags("HeaderTaggedFields")
	}
	if r.failed {
		return h, r.err
	}
	h.Size = r.off
	return h, nil
}

// ResponseHeaderVersion is ApiKeys.responseHeaderVersion: 1 (an empty
// tagged-field section after the correlation id) at the API's flexible
// versions, else 0; ApiVersions responses always use version 0, so that a
// client that does not yet know the broker's versions can read them.
func ResponseHeaderVersion(h Header) int8 {
	if h.APIKey == 18 || h.Version < 2 {
		return 0
	}
	return 1
}

// AppendResponseHeader begins a response frame for h at the end of dst: a
// size to be filled in and the response header. Append the encoded body to
// the result, then call FinishResponse with it and len(dst); the body is
// encoded in place, with no copy.
func AppendResponseHeader(dst []byte, h Header) []byte {
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint32(dst, uint32(h.CorrelationID))
	if ResponseHeaderVersion(h) == 1 {
		dst = append(dst, 0)
	}
	return dst
}

// FinishResponse sets the size of the response frame that begins at
// out[start:] (begun by AppendResponseHeader) to what follows it.
func FinishResponse(out []byte, start int) {
	binary.BigEndian.PutUint32(out[start:], uint32(len(out)-start-4))
}

// AppendResponse appends a whole response frame to dst: the 4-byte size,
// the response header for h (the correlation id, and from header v1 an empty
// tagged-field section) and body, an encoded response body.
func AppendResponse(dst []byte, h Header, body []byte) []byte {
	flexible := ResponseHeaderVersion(h) == 1
	size := 4 + len(body)
	if flexible {
		size++
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(size))
	dst = binary.BigEndian.AppendUint32(dst, uint32(h.CorrelationID))
	if flexible {
		dst = append(dst, 0)
	}
	return append(dst, body...)
}
