package record

import (
	"errors"
	"fmt"
)

// Type is a metadata record type: the apiKey that Kafka's MetadataRecordSerde
// writes in every record's frame (org.apache.kafka.common.metadata.MetadataRecordType).
type Type int16

// ControlType is a KRaft control record type: the type in a control record's
// 4-byte key (org.apache.kafka.common.record.ControlRecordType).
type ControlType int16

// KRaft control record types (ControlRecordType). ABORT and COMMIT are the
// transaction markers of data partitions; the metadata log never holds them.
const (
	ControlAbort          ControlType = 0
	ControlCommit         ControlType = 1
	ControlLeaderChange   ControlType = 2
	ControlSnapshotHeader ControlType = 3
	ControlSnapshotFooter ControlType = 4
	ControlKRaftVersion   ControlType = 5
	ControlKRaftVoters    ControlType = 6
)

// Message is what every generated record type implements: the body codec at
// a chosen version, and Kafka's JSON form (the generated *JsonConverter classes).
//
// A Message owns its slices and strings: decoding copies out of the input, so
// the caller may reuse the input buffer afterwards.
type Message interface {
	// LowestVersion and HighestVersion bound the versions the message has.
	LowestVersion() int16
	HighestVersion() int16
	// AppendBody appends the body encoded at version to dst. It fails when
	// the version is out of range or a field holds a non-default value the
	// version cannot carry (Kafka's UnsupportedVersionException).
	AppendBody(dst []byte, version int16) ([]byte, error)
	// DecodeBody decodes a body encoded at version, which must use every byte
	// of b. Fields absent at that version take their declared defaults.
	DecodeBody(b []byte, version int16) error
	// BodySize is the size AppendBody would add, or an error where
	// AppendBody would fail.
	BodySize(version int16) (int, error)
	// AppendJSON appends Kafka's JsonConverter form of the message at version.
	AppendJSON(dst []byte, version int16) ([]byte, error)
	// Default sets every field to Kafka's declared default.
	Default()
	// UnmarshalJSONVersion sets the message from Kafka's JsonConverter form at
	// version. Fields the JSON omits that are mandatory at that version are an
	// error, as in Kafka's converters; missing tagged fields take defaults.
	UnmarshalJSONVersion(data []byte, version int16) error
}

// Record is a metadata record: the value of a data record in the metadata log,
// a snapshot or a bootstrap file, framed by MetadataRecordSerde.
type Record interface {
	Message
	// Type is the record's apiKey.
	Type() Type
}

// ControlRecord is a KRaft control record value (LeaderChangeMessage,
// SnapshotHeaderRecord, SnapshotFooterRecord, KRaftVersionRecord,
// VotersRecord). Control values carry no frame.
type ControlRecord interface {
	Message
	// ControlType is the type written in the control record's key.
	ControlType() ControlType
}

// Errors that wrap every decoding failure, for errors.Is.
var (
	// ErrCorrupt: the bytes do not follow the format (truncated, bad CRC,
	// trailing bytes, varint overflow, ...).
	ErrCorrupt = errors.New("corrupt")
	// ErrUnknownType: an apiKey or control type this package does not know.
	ErrUnknownType = errors.New("unknown record type")
	// ErrUnsupportedVersion: a version outside a type's valid range, or a
	// value that the chosen version cannot carry.
	ErrUnsupportedVersion = errors.New("unsupported version")
)

// New returns a new record of type t with every field at its declared
// default, or an error wrapping ErrUnknownType.
func New(t Type) (Record, error) {
	if int(t) >= 0 && int(t) < len(recordFactories) {
		if f := recordFactories[t]; f != nil {
			r := f()
			r.Default()
			return r, nil
		}
	}
	return nil, fmt.Errorf("%w: apiKey %d", ErrUnknownType, t)
}

// NewControl returns a new control record of type t with every field at its
// declared default, or an error wrapping ErrUnknownType (ABORT and COMMIT
// are transaction markers of data partitions and have no KRaft value).
func NewControl(t ControlType) (ControlRecord, error) {
	if int(t) >= 0 && int(t) < len(controlFactories) {
		if f := controlFactories[t]; f != nil {
			r := f()
			r.Default()
			return r, nil
		}
	}
	return nil, fmt.Errorf("%w: control type %d", ErrUnknownType, t)
}

// Known reports whether t is a metadata record type this package knows.
func (t Type) Known() bool {
	return int(t) >= 0 && int(t) < len(recordFactories) && recordFactories[t] != nil
}

// String returns Kafka's MetadataRecordType name, as in the JSON envelope
// ("PARTITION_RECORD"), or "UNKNOWN_RECORD_<n>".
func (t Type) String() string {
	if int(t) >= 0 && int(t) < len(recordTypeNames) && recordTypeNames[t] != "" {
		return recordTypeNames[t]
	}
	return fmt.Sprintf("UNKNOWN_RECORD_%d", int16(t))
}

// Known reports whether t is a control record type with a KRaft value.
func (t ControlType) Known() bool {
	return int(t) >= 0 && int(t) < len(controlFactories) && controlFactories[t] != nil
}

// String returns Kafka's ControlRecordType name ("LEADER_CHANGE"), or
// "UNKNOWN" as Kafka's ControlRecordType.fromTypeId does.
func (t ControlType) String() string {
	if int(t) >= 0 && int(t) < len(controlTypeNames) && controlTypeNames[t] != "" {
		return controlTypeNames[t]
	}
	return "UNKNOWN"
}

// TypeByName returns the metadata record type with Kafka's name n
// ("PARTITION_RECORD").
func TypeByName(n string) (Type, bool) {
	for i, s := range recordTypeNames {
		if s == n && s != "" {
			return Type(i), true
		}
	}
	return 0, false
}

// ControlTypeByName returns the control type with Kafka's name n
// ("LEADER_CHANGE").
func ControlTypeByName(n string) (ControlType, bool) {
	for i, s := range controlTypeNames {
		if s == n && s != "" {
			return ControlType(i), true
		}
	}
	return 0, false
}
