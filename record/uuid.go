package record

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
)

// UUID is Kafka's 128-bit Uuid (topic ids, incarnation ids, directory ids,
// ACL ids): the most significant 64 bits then the least significant 64 bits,
// both big-endian, as on the wire.
type UUID [16]byte

// Well-known UUIDs (org.apache.kafka.common.Uuid and DirectoryId).
var (
	// ZeroUUID is Uuid.ZERO_UUID, the default of every uuid field.
	ZeroUUID = UUID{}
	// MetadataTopicID is Uuid.METADATA_TOPIC_ID (Uuid.ONE_UUID), the topic id
	// of __cluster_metadata.
	MetadataTopicID = UUID{15: 1}
	// DirectoryMigrating, DirectoryUnassigned and DirectoryLost are the
	// reserved directory ids of KIP-858 (DirectoryId.MIGRATING, UNASSIGNED,
	// LOST). Ids with a zero high half and a low half below 100 are reserved.
	DirectoryMigrating  = UUID{}
	DirectoryUnassigned = UUID{15: 1}
	DirectoryLost       = UUID{15: 2}
)

// String returns Kafka's text form: URL-safe base64 without padding, 22
// characters (Uuid.toString).
func (u UUID) String() string {
	var b [22]byte
	base64.RawURLEncoding.Encode(b[:], u[:])
	return string(b[:])
}

// AppendText appends the text form of u.
func (u UUID) AppendText(b []byte) ([]byte, error) {
	return base64.RawURLEncoding.AppendEncode(b, u[:]), nil
}

// MarshalText implements encoding.TextMarshaler with Kafka's text form.
func (u UUID) MarshalText() ([]byte, error) { return u.AppendText(nil) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (u *UUID) UnmarshalText(b []byte) error {
	v, err := ParseUUID(string(b))
	if err != nil {
		return err
	}
	*u = v
	return nil
}

// ParseUUID parses Kafka's text form of a Uuid (Uuid.fromString): 22
// characters of URL-safe base64 without padding decoding to 16 bytes.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	if len(s) != 22 {
		return u, fmt.Errorf("uuid %q: want 22 characters of URL-safe base64, got %d", s, len(s))
	}
	n, err := base64.RawURLEncoding.Decode(u[:], []byte(s))
	if err != nil || n != 16 {
		return UUID{}, fmt.Errorf("uuid %q: not URL-safe base64 of 16 bytes", s)
	}
	return u, nil
}

// MostSignificantBits and LeastSignificantBits are the two halves, as Java's
// Uuid exposes them.
func (u UUID) MostSignificantBits() int64 { return int64(binary.BigEndian.Uint64(u[:8])) }

// LeastSignificantBits is the low half of u.
func (u UUID) LeastSignificantBits() int64 { return int64(binary.BigEndian.Uint64(u[8:])) }

// UUIDFromBits builds a UUID from Java's two halves.
func UUIDFromBits(msb, lsb int64) UUID {
	var u UUID
	binary.BigEndian.PutUint64(u[:8], uint64(msb))
	binary.BigEndian.PutUint64(u[8:], uint64(lsb))
	return u
}
