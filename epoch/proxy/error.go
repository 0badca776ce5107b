package proxy

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The causes an *Error wraps; test them with errors.Is.
var (
	// ErrTruncated: a field, length or count needs more bytes than the
	// frame has left.
	ErrTruncated = errors.New("not enough bytes")
	// ErrInvalid: a value no Kafka reader accepts (a null where the field
	// is not nullable, a varint longer than five bytes, a negative size).
	ErrInvalid = errors.New("invalid value")
	// ErrUnknownAPIKey: an API key kmsg does not define (Kafka closes the
	// connection on a key ApiKeys.forId does not know).
	ErrUnknownAPIKey = errors.New("unknown api key")
	// ErrUnsupportedVersion: an API key this package does not decode, or a
	// version outside Supported's range for it.
	ErrUnsupportedVersion = errors.New("unsupported api key or version")
	// ErrFrameSize: a frame size below zero or above the maximum
	// (socket.request.max.bytes).
	ErrFrameSize = errors.New("invalid frame size")
	// ErrIdle: no byte of a next request arrived within the idle timeout
	// (connections.max.idle.ms).
	ErrIdle = errors.New("connection idle")
	// ErrSlow: a request that had begun did not arrive whole within the
	// request read timeout.
	ErrSlow = errors.New("request read timed out")
)

// Error is a request that cannot be decoded: where, in which request, and
// why.
type Error struct {
	APIKey     int16  // -1 before the header's key is read
	APIVersion int16  // -1 before the header's version is read
	Offset     int    // byte position in the frame (after its 4-byte size) where decoding failed
	Field      string // the field being read, as Kafka's schema names it
	Err        error  // one of the Err* causes above
	Detail     string // e.g. "size 100, 0 bytes left"
}

// Error names the request (its API and version when read), the byte
// position, the field and the cause, then the detail: "Metadata (key 3)
// v12: byte 14: <field>: <cause> (<detail>)".
func (e *Error) Error() string {
	api := "request"
	if e.APIKey >= 0 {
		name := kmsg.NameForKey(e.APIKey)
		if name == "" {
			name = "api key"
		}
		api = fmt.Sprintf("%s (key %d)", name, e.APIKey)
		if e.APIVersion >= 0 {
			api += fmt.Sprintf(" v%d", e.APIVersion)
		}
	}
	s := fmt.Sprintf("%s: byte %d", api, e.Offset)
	if e.Field != "" {
		s += ": " + e.Field
	}
	s += ": " + e.Err.Error()
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

// Unwrap returns Err, for errors.Is.
func (e *Error) Unwrap() error { return e.Err }
