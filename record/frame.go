package record

import (
	"encoding/binary"
	"fmt"
	"math"
)

// FrameVersion is the frame version of every metadata record value. Kafka's
// AbstractApiMessageSerde writes 1 and refuses anything else (0 was the 2.8
// preview, which Kafka refuses with its own message).
const FrameVersion = 1

// FrameHeader is the start of a metadata record value:
// uvarint frame version, uvarint apiKey, uvarint version.
type FrameHeader struct {
	Type    Type
	Version int16
}

// ReadFrameHeader parses the frame of a metadata record value and returns it
// with the body that follows. It applies the rejections of Kafka's
// AbstractApiMessageSerde.read: a frame version other than 1, a varint that
// does not fit in int16, an unknown apiKey, a version outside the type's range.
func ReadFrameHeader(value []byte) (FrameHeader, []byte, error) {
	var h FrameHeader
	frame, n, err := readInt16Uvarint(value, "frame version")
	if err != nil {
		return h, nil, err
	}
	value = value[n:]
	if frame == 0 {
		return h, nil, fmt.Errorf("%w: frame version 0: upgrades from the 2.8 preview are not supported", ErrUnsupportedVersion)
	}
	if frame != FrameVersion {
		return h, nil, fmt.Errorf("%w: frame version %d, want %d", ErrUnsupportedVersion, frame, FrameVersion)
	}
	key, n, err := readInt16Uvarint(value, "apiKey")
	if err != nil {
		return h, nil, err
	}
	value = value[n:]
	ver, n, err := readInt16Uvarint(value, "version")
	if err != nil {
		return h, nil, err
	}
	value = value[n:]
	h.Type, h.Version = Type(key), ver
	if !h.Type.Known() {
		return h, nil, fmt.Errorf("%w: unknown metadata id %d", ErrUnknownType, key)
	}
	lo, hi := recordVersionRanges[h.Type][0], recordVersionRanges[h.Type][1]
	if ver < lo || ver > hi {
		return h, nil, fmt.Errorf("%w: %s version %d, valid versions are %d-%d", ErrUnsupportedVersion, h.Type, ver, lo, hi)
	}
	return h, value, nil
}

func readInt16Uvarint(b []byte, what string) (int16, int, error) {
	v, n := binary.Uvarint(b)
	if n == 0 {
		return 0, 0, fmt.Errorf("%w: truncated frame reading %s", ErrCorrupt, what)
	}
	if n < 0 || v > math.MaxInt16 {
		return 0, 0, fmt.Errorf("%w: %s does not fit in int16", ErrCorrupt, what)
	}
	return int16(v), n, nil
}

// Decode decodes a framed metadata record value (the value of a data record in
// the metadata log) and returns the record and the version it was written at.
// Bytes left after the body are an error, as in Kafka.
func Decode(value []byte) (Record, int16, error) {
	h, body, err := ReadFrameHeader(value)
	if err != nil {
		return nil, 0, err
	}
	r := recordFactories[h.Type]()
	if err := r.DecodeBody(body, h.Version); err != nil {
		return nil, h.Version, fmt.Errorf("decode %s v%d: %w", h.Type, h.Version, err)
	}
	return r, h.Version, nil
}

// Append appends the framed value of r at version to dst.
func Append(dst []byte, r Record, version int16) ([]byte, error) {
	lo, hi := r.LowestVersion(), r.HighestVersion()
	if version < lo || version > hi {
		return dst, fmt.Errorf("%w: %s version %d, valid versions are %d-%d", ErrUnsupportedVersion, r.Type(), version, lo, hi)
	}
	dst = binary.AppendUvarint(dst, FrameVersion)
	dst = binary.AppendUvarint(dst, uint64(r.Type()))
	dst = binary.AppendUvarint(dst, uint64(version))
	return r.AppendBody(dst, version)
}

// Size returns the framed size of r at version.
func Size(r Record, version int16) (int, error) {
	n, err := r.BodySize(version)
	if err != nil {
		return 0, err
	}
	return 1 + uvarintLen(uint64(r.Type())) + uvarintLen(uint64(version)) + n, nil
}

// DecodeControl decodes a control record from its 4-byte key and its value.
// The key is int16 key version (0; Kafka accepts any non-negative one) and
// int16 type. The value carries no version: Kafka's reader decodes it at its
// current version constant for the type, which is 0 for every type today
// (ControlRecordUtils); pass version -1 for that, or the version to use.
func DecodeControl(key, value []byte, version int16) (ControlRecord, error) {
	t, err := ControlKeyType(key)
	if err != nil {
		return nil, err
	}
	r, err := NewControl(t)
	if err != nil {
		return nil, err
	}
	if version < 0 {
		version = controlReadVersion
	}
	if version < r.LowestVersion() || version > r.HighestVersion() {
		return nil, fmt.Errorf("%w: %s version %d", ErrUnsupportedVersion, t, version)
	}
	if err := r.DecodeBody(value, version); err != nil {
		return nil, fmt.Errorf("decode control %s v%d: %w", t, version, err)
	}
	return r, nil
}

// controlReadVersion is the version Kafka's ControlRecordUtils reads and
// writes every KRaft control record at (its *_CURRENT_VERSION constants).
const controlReadVersion = 0

// ControlKeyType parses a control record key (ControlRecordType.parseTypeId):
// at least 4 bytes, a non-negative key version, then the type.
func ControlKeyType(key []byte) (ControlType, error) {
	if len(key) < 4 {
		return 0, fmt.Errorf("%w: control record key of %d bytes, want at least 4", ErrCorrupt, len(key))
	}
	if v := int16(binary.BigEndian.Uint16(key)); v < 0 {
		return 0, fmt.Errorf("%w: negative control key version %d", ErrCorrupt, v)
	}
	return ControlType(int16(binary.BigEndian.Uint16(key[2:]))), nil
}

// AppendControlKey appends the 4-byte key Kafka writes for a control record of
// type t (key version 0).
func AppendControlKey(dst []byte, t ControlType) []byte {
	return binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(dst, 0), uint16(t))
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
