package proxy

import (
	"encoding/binary"
	"fmt"
)

// reader reads Kafka's primitive types from a frame. The first failure is
// kept in err (with the byte position) and every later read returns zero
// values, so decoders read straight through and check err once; no read can
// index past the frame or loop on input it did not consume.
type reader struct {
	b      []byte // the whole frame
	off    int    // next byte to read
	key    int16
	ver    int16
	field  string
	err    *Error
	failed bool
}

func (r *reader) left() int { return len(r.b) - r.off }

func (r *reader) fail(cause error, format string, args ...any) {
	if r.failed {
		return
	}
	r.failed = true
	r.err = &Error{APIKey: r.key, APIVersion: r.ver, Offset: r.off, Field: r.field, Err: cause, Detail: fmt.Sprintf(format, args...)}
}

func (r *reader) need(n int) bool {
	if r.failed {
		return false
	}
	if n > r.left() {
		r.fail(ErrTruncated, "%d bytes needed, %d left", n, r.left())
		return false
	}
	return true
}

func (r *reader) int8() int8 {
	if !r.need(1) {
		return 0
	}
	v := int8(r.b[r.off])
	r.off++
	return v
}

// bool is Kafka's readByte() != 0.
func (r *reader) bool() bool { return r.int8() != 0 }

func (r *reader) int16() int16 {
	if !r.need(2) {
		return 0
	}
	v := int16(binary.BigEndian.Uint16(r.b[r.off:]))
	r.off += 2
	return v
}

func (r *reader) int32() int32 {
	if !r.need(4) {
		return 0
	}
	v := int32(binary.BigEndian.Uint32(r.b[r.off:]))
	r.off += 4
	return v
}

func (r *reader) uuid() (u [16]byte) {
	if !r.need(16) {
		return u
	}
	copy(u[:], r.b[r.off:])
	r.off += 16
	return u
}

// uvarint is ByteUtils.readUnsignedVarint: at most five bytes, the fifth's
// high bit clear, the value taken as a 32-bit int (so 2^31 and above are
// negative, as in Java).
func (r *reader) uvarint() int32 {
	var v uint32
	for i := 0; i < 5; i++ {
		if !r.need(1) {
			return 0
		}
		c := r.b[r.off]
		r.off++
		v |= uint32(c&0x7f) << (7 * i)
		if c < 0x80 {
			return int32(v)
		}
	}
	r.off--
	r.fail(ErrInvalid, "varint longer than 5 bytes")
	return 0
}

// span returns the next n bytes (n checked against what is left).
func (r *reader) span(n int32) []byte {
	if n < 0 {
		r.fail(ErrInvalid, "negative size %d", n)
		return nil
	}
	if !r.need(int(n)) {
		return nil
	}
	s := r.b[r.off : r.off+int(n) : r.off+int(n)]
	r.off += int(n)
	return s
}

// strLen reads a string's length: int16, or from flexible versions an
// unsigned varint minus one; -1 (any negative) is null. A compact length
// above 0x7fff is invalid, as in Kafka's generated readers.
func (r *reader) strLen(flexible bool) int32 {
	if !flexible {
		return int32(r.int16())
	}
	n := r.uvarint() - 1
	if n > 0x7fff {
		r.fail(ErrInvalid, "string length %d", n)
		return 0
	}
	return n
}

func (r *reader) string(flexible bool) string {
	start := r.off
	n := r.strLen(flexible)
	if n < 0 && !r.failed {
		r.off = start
		r.fail(ErrInvalid, "non-nullable string serialized as null")
		return ""
	}
	return string(r.span(n))
}

func (r *reader) nullableString(flexible bool) *string {
	s, ok := r.nullableStringValue(flexible)
	if !ok {
		return nil
	}
	return &s
}

// nullableStringValue is nullableString as a value; ok is false for null
// (and after a failure).
func (r *reader) nullableStringValue(flexible bool) (string, bool) {
	n := r.strLen(flexible)
	if n < 0 || r.failed {
		return "", false
	}
	s := string(r.span(n))
	return s, !r.failed
}

// arrayLen reads an array count (int32, or compact: uvarint minus one, in
// 32-bit arithmetic as Java's). A negative count is null; a count above the
// bytes left is an error before anything is allocated (every element takes
// at least one byte).
func (r *reader) arrayLen(flexible, nullable bool) (n int32, null bool) {
	start := r.off
	if flexible {
		n = r.uvarint() - 1
	} else {
		n = r.int32()
	}
	if r.failed {
		return 0, false
	}
	if n < 0 {
		if !nullable {
			r.off = start
			r.fail(ErrInvalid, "non-nullable array serialized as null")
		}
		return 0, true
	}
	if int(n) > r.left() {
		r.off = start
		r.fail(ErrTruncated, "array of %d elements, %d bytes left", n, r.left())
		return 0, false
	}
	return n, false
}

// tags skips a tagged-field section, field naming it in errors. None of
// the requests decoded here defines a tagged field, so every one is unknown:
// its size is checked and its bytes skipped. A count that is negative as a
// 32-bit int reads no field, as Kafka's loop over it does; any other count
// is bounded by the bytes left, since each field takes at least two.
func (r *reader) tags(field string) { r.tagsFunc(field, nil) }

// tagsFunc is tags calling f (if not nil) with each tag and its bytes.
func (r *reader) tagsFunc(field string, f func(tag int32, b []byte)) {
	r.field = field
	n := r.uvarint()
	for i := int32(0); i < n && !r.failed; i++ {
		tag := r.uvarint()
		b := r.span(r.uvarint())
		if f != nil && !r.failed {
			f(tag, b)
		}
	}
}
