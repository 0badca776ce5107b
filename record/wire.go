package record

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"
)

// TaggedField is a tagged field this package does not know: its tag and the
// raw bytes of its value. Decoding keeps unknown tagged fields, in the order
// read, and encoding writes them back among the known ones in ascending tag
// order, as Kafka's RawTaggedFieldWriter does.
//
// Tags must strictly ascend within a struct. Kafka's readers do not check
// this, but its writer refuses a raw tag list that does not ascend, so such
// a record could not be written back; kmeta refuses it when decoding, as
// corrupt, rather than hand out a record it cannot encode.
type TaggedField struct {
	Tag  uint32
	Data []byte
}

// maxStringLen is the longest string Kafka's generated readers accept
// (they reject a string "had invalid length" above 0x7fff).
const maxStringLen = 0x7fff

// reader reads the flexible message encoding. The first error sticks; every
// read after it returns a zero value, so generated code checks r.err once at
// the end of each struct.
//
// Strings share one allocation per record: the first string read copies the
// rest of the body once (owned), and every string after it is a view of that
// copy. The input buffer can therefore be reused by the caller, and a record
// with several strings costs one allocation for all of them.
type reader struct {
	b     []byte
	err   error
	owned bool // b is our own copy, which strings may alias
	reuse bool // decode into the slices the struct already holds (Decoder)
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
	}
	r.b = nil
}

func (r *reader) need(n int, what string) bool {
	if r.err != nil {
		return false
	}
	if len(r.b) < n {
		r.fail("truncated reading %s: need %d bytes, have %d", what, n, len(r.b))
		return false
	}
	return true
}

func (r *reader) int8() int8 {
	if !r.need(1, "int8") {
		return 0
	}
	v := int8(r.b[0])
	r.b = r.b[1:]
	return v
}

func (r *reader) bool() bool { return r.int8() != 0 }

func (r *reader) int16() int16 {
	if !r.need(2, "int16") {
		return 0
	}
	v := int16(binary.BigEndian.Uint16(r.b))
	r.b = r.b[2:]
	return v
}

func (r *reader) uint16() uint16 { return uint16(r.int16()) }

func (r *reader) int32() int32 {
	if !r.need(4, "int32") {
		return 0
	}
	v := int32(binary.BigEndian.Uint32(r.b))
	r.b = r.b[4:]
	return v
}

func (r *reader) int64() int64 {
	if !r.need(8, "int64") {
		return 0
	}
	v := int64(binary.BigEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

func (r *reader) float64() float64 { return math.Float64frombits(uint64(r.int64())) }

func (r *reader) uuid() UUID {
	var u UUID
	if !r.need(16, "uuid") {
		return u
	}
	copy(u[:], r.b)
	r.b = r.b[16:]
	return u
}

// uvarint reads Kafka's unsigned varint: at most 5 bytes, a 32-bit value
// (ByteUtils.readUnsignedVarint).
func (r *reader) uvarint() uint32 {
	if r.err != nil {
		return 0
	}
	var v uint32
	for i := 0; i < 5; i++ {
		if i >= len(r.b) {
			r.fail("truncated varint")
			return 0
		}
		c := r.b[i]
		if i == 4 && c > 0x0f {
			r.fail("varint is too long")
			return 0
		}
		v |= uint32(c&0x7f) << (7 * i)
		if c < 0x80 {
			r.b = r.b[i+1:]
			return v
		}
	}
	r.fail("varint is too long")
	return 0
}

// compactLen reads a compact length (N+1, 0 for null) and returns N, or -1
// for null.
func (r *reader) compactLen() int {
	return int(r.uvarint()) - 1
}

func (r *reader) string(field string) string {
	n := r.compactLen()
	if r.err != nil {
		return ""
	}
	if n < 0 {
		r.fail("non-nullable field %s was serialized as null", field)
		return ""
	}
	return r.stringBody(n, field)
}

func (r *reader) stringBody(n int, field string) string {
	if n > maxStringLen {
		r.fail("string field %s had invalid length %d", field, n)
		return ""
	}
	if !r.need(n, field) || n == 0 {
		return ""
	}
	if !r.owned {
		own := make([]byte, len(r.b))
		copy(own, r.b)
		r.b, r.owned = own, true
	}
	// The bytes are never written again: the copy is private to this record.
	s := unsafe.String(&r.b[0], n)
	r.b = r.b[n:]
	return s
}

func (r *reader) nullableString(field string) *string {
	n := r.compactLen()
	if r.err != nil || n < 0 {
		return nil
	}
	s := r.stringBody(n, field)
	if r.err != nil {
		return nil
	}
	return &s
}

func (r *reader) bytes(field string, nullable bool) []byte {
	n := r.compactLen()
	if r.err != nil {
		return nil
	}
	if n < 0 {
		if !nullable {
			r.fail("non-nullable field %s was serialized as null", field)
		}
		return nil
	}
	if !r.need(n, field) {
		return nil
	}
	b := make([]byte, n)
	copy(b, r.b)
	r.b = r.b[n:]
	return b
}

// arrayLen reads a compact array length, -1 for null, and checks that the
// remaining bytes can hold that many elements of at least minSize bytes each,
// so damaged input cannot ask for a huge allocation (Kafka checks the count
// against the bytes remaining too).
func (r *reader) arrayLen(field string, nullable bool, minSize int) int {
	n := r.compactLen()
	if r.err != nil {
		return -1
	}
	if n < 0 {
		if !nullable {
			r.fail("non-nullable field %s was serialized as null", field)
		}
		return -1
	}
	if n*minSize > len(r.b) {
		r.fail("field %s: %d elements cannot fit in the %d bytes remaining", field, n, len(r.b))
		return -1
	}
	return n
}

func (r *reader) int32s(old []int32, field string, nullable bool) []int32 {
	n := r.arrayLen(field, nullable, 4)
	if n < 0 {
		return nil
	}
	s := reuseOrMake(r.reuse, old, n)
	for i := range s {
		s[i] = int32(binary.BigEndian.Uint32(r.b[4*i:]))
	}
	r.b = r.b[4*n:]
	return s
}

func (r *reader) uuids(old []UUID, field string, nullable bool) []UUID {
	n := r.arrayLen(field, nullable, 16)
	if n < 0 {
		return nil
	}
	s := reuseOrMake(r.reuse, old, n)
	for i := range s {
		copy(s[i][:], r.b[16*i:])
	}
	r.b = r.b[16*n:]
	return s
}

func (r *reader) strings(old []string, field string, nullable bool) []string {
	n := r.arrayLen(field, nullable, 1)
	if n < 0 {
		return nil
	}
	s := reuseOrMake(r.reuse, old, n)
	for i := range s {
		s[i] = r.string(field)
	}
	return s
}

// reuseOrMake returns old[:n] when reusing and old has the room, else a new
// slice of n elements. The result is never nil: an empty array is not a null
// one (a nil old slice is not reused, and make of 0 elements allocates
// nothing).
func reuseOrMake[T any](reuse bool, old []T, n int) []T {
	if reuse && old != nil && cap(old) >= n {
		return old[:n]
	}
	return make([]T, n)
}

// tag reads one tagged field header and returns the tag and a reader over its
// value, advancing r past the value.
func (r *reader) tag() (uint32, reader) {
	tag := r.uvarint()
	size := int(r.uvarint())
	if !r.need(size, "tagged field") {
		return 0, reader{err: r.err}
	}
	sub := reader{b: r.b[:size:size], owned: r.owned, reuse: r.reuse}
	r.b = r.b[size:]
	return tag, sub
}

// end checks that a tagged field's value was read whole.
func (r *reader) end(outer *reader, tag uint32) {
	if r.err != nil {
		if outer.err == nil {
			outer.err = fmt.Errorf("tagged field %d: %w", tag, r.err)
			outer.b = nil
		}
		return
	}
	if len(r.b) != 0 {
		outer.fail("tagged field %d has %d bytes left after its value", tag, len(r.b))
	}
}

func (r *reader) unknownTag(tag uint32, sub reader) TaggedField {
	d := make([]byte, len(sub.b))
	copy(d, sub.b)
	return TaggedField{Tag: tag, Data: d}
}

// Encoding helpers.

func appendUvarint(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func sizeUvarint(v uint32) int {
	switch {
	case v < 1<<7:
		return 1
	case v < 1<<14:
		return 2
	case v < 1<<21:
		return 3
	case v < 1<<28:
		return 4
	}
	return 5
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendString(b []byte, s string) []byte {
	b = appendUvarint(b, uint32(len(s)+1))
	return append(b, s...)
}

func sizeString(s string) int { return sizeUvarint(uint32(len(s)+1)) + len(s) }

func appendNullableString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, 0)
	}
	return appendString(b, *s)
}

func sizeNullableString(s *string) int {
	if s == nil {
		return 1
	}
	return sizeString(*s)
}

func appendBytes(b []byte, v []byte, nullable bool) []byte {
	if v == nil && nullable {
		return append(b, 0)
	}
	b = appendUvarint(b, uint32(len(v)+1))
	return append(b, v...)
}

func sizeBytes(v []byte, nullable bool) int {
	if v == nil && nullable {
		return 1
	}
	return sizeUvarint(uint32(len(v)+1)) + len(v)
}

// appendArrayLen writes a compact array length; a nil slice of a nullable
// field is null.
func appendArrayLen(b []byte, n int, isNil, nullable bool) []byte {
	if isNil && nullable {
		return append(b, 0)
	}
	return appendUvarint(b, uint32(n+1))
}

func sizeArrayLen(n int, isNil, nullable bool) int {
	if isNil && nullable {
		return 1
	}
	return sizeUvarint(uint32(n + 1))
}

func appendInt32s(b []byte, s []int32, nullable bool) []byte {
	b = appendArrayLen(b, len(s), s == nil, nullable)
	for _, v := range s {
		b = binary.BigEndian.AppendUint32(b, uint32(v))
	}
	return b
}

func sizeInt32s(s []int32, nullable bool) int {
	if s == nil && nullable {
		return 1
	}
	return sizeUvarint(uint32(len(s)+1)) + 4*len(s)
}

func appendUUIDs(b []byte, s []UUID, nullable bool) []byte {
	b = appendArrayLen(b, len(s), s == nil, nullable)
	for i := range s {
		b = append(b, s[i][:]...)
	}
	return b
}

func sizeUUIDs(s []UUID, nullable bool) int {
	if s == nil && nullable {
		return 1
	}
	return sizeUvarint(uint32(len(s)+1)) + 16*len(s)
}

func appendStrings(b []byte, s []string, nullable bool) []byte {
	b = appendArrayLen(b, len(s), s == nil, nullable)
	for _, v := range s {
		b = appendString(b, v)
	}
	return b
}

func sizeStrings(s []string, nullable bool) int {
	if s == nil && nullable {
		return 1
	}
	n := sizeUvarint(uint32(len(s) + 1))
	for _, v := range s {
		n += sizeString(v)
	}
	return n
}

// appendUnknownTags writes the unknown tagged fields whose tag is below limit
// that have not been written yet; *next indexes the first unwritten one.
func appendUnknownTags(b []byte, tags []TaggedField, next *int, limit uint64) []byte {
	for *next < len(tags) && uint64(tags[*next].Tag) < limit {
		t := tags[*next]
		b = appendUvarint(b, t.Tag)
		b = appendUvarint(b, uint32(len(t.Data)))
		b = append(b, t.Data...)
		*next++
	}
	return b
}

func sizeUnknownTags(tags []TaggedField) int {
	n := 0
	for _, t := range tags {
		n += sizeUvarint(t.Tag) + sizeUvarint(uint32(len(t.Data))) + len(t.Data)
	}
	return n
}

// checkUnknownTags verifies that unknown tags ascend and do not collide with
// the known tags of the version (Kafka's RawTaggedFieldWriter refuses both).
func checkUnknownTags(tags []TaggedField, known func(uint32) bool) error {
	for i, t := range tags {
		if i > 0 && t.Tag <= tags[i-1].Tag {
			return fmt.Errorf("%w: unknown tagged fields out of order: tag %d after %d", ErrUnsupportedVersion, t.Tag, tags[i-1].Tag)
		}
		if known(t.Tag) {
			return fmt.Errorf("%w: unknown tagged field %d collides with a known tag", ErrUnsupportedVersion, t.Tag)
		}
	}
	return nil
}

func versionError(msg string, field string, version int16) error {
	return fmt.Errorf("%w: attempted to write a non-default %s at version %d of %s", ErrUnsupportedVersion, field, version, msg)
}

// nullError is the error of a null in a field the version cannot carry
// null. internal/recordgen emits calls to it for nullable fields whose
// nullable versions start after the field's first version; no current
// record has one.
//
//lint:ignore U1000 called by generated code when a schema needs it
func nullError(msg, field string, version int16) error {
	return fmt.Errorf("%w: %s.%s is null, which version %d cannot carry", ErrUnsupportedVersion, msg, field, version)
}

func versionRangeError(msg string, v, lo, hi int16) error {
	return fmt.Errorf("%w: %s version %d, valid versions are %d-%d", ErrUnsupportedVersion, msg, v, lo, hi)
}
