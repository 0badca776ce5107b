package record

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// AppendEnvelopeJSON appends the JSON line Kafka's tools print for a metadata
// record (kafka-dump-log --cluster-metadata-decoder, MetadataJsonConverters):
//
//	{"type":"PARTITION_RECORD","version":2,"data":{...}}
func AppendEnvelopeJSON(dst []byte, r Record, version int16) ([]byte, error) {
	return appendEnvelope(dst, r.Type().String(), r, version)
}

// AppendControlEnvelopeJSON appends the same envelope for a control record,
// with Kafka's ControlRecordType name ("LEADER_CHANGE", "SNAPSHOT_HEADER", ...).
func AppendControlEnvelopeJSON(dst []byte, r ControlRecord, version int16) ([]byte, error) {
	return appendEnvelope(dst, r.ControlType().String(), r, version)
}

func appendEnvelope(dst []byte, name string, m Message, version int16) ([]byte, error) {
	start := len(dst)
	dst = append(dst, `{"type":"`...)
	dst = append(dst, name...)
	dst = append(dst, `","version":`...)
	dst = strconv.AppendInt(dst, int64(version), 10)
	dst = append(dst, `,"data":`...)
	dst, err := m.AppendJSON(dst, version)
	if err != nil {
		return dst[:start], err
	}
	return append(dst, '}'), nil
}

type envelope struct {
	Type    string          `json:"type"`
	Version *int16          `json:"version"`
	Data    json.RawMessage `json:"data"`
}

func parseEnvelope(data []byte) (envelope, error) {
	var e envelope
	if err := json.Unmarshal(data, &e); err != nil {
		return e, fmt.Errorf("record envelope: %w", err)
	}
	if e.Type == "" || e.Version == nil || e.Data == nil {
		return e, fmt.Errorf("record envelope: want {\"type\":...,\"version\":...,\"data\":{...}}")
	}
	return e, nil
}

// ParseEnvelopeJSON parses one envelope line of a metadata record and
// returns the record and its version.
func ParseEnvelopeJSON(data []byte) (Record, int16, error) {
	e, err := parseEnvelope(data)
	if err != nil {
		return nil, 0, err
	}
	t, ok := TypeByName(e.Type)
	if !ok {
		return nil, 0, fmt.Errorf("%w: %q", ErrUnknownType, e.Type)
	}
	r, err := New(t)
	if err != nil {
		return nil, 0, err
	}
	if err := r.UnmarshalJSONVersion(e.Data, *e.Version); err != nil {
		return nil, 0, err
	}
	return r, *e.Version, nil
}

// ParseControlEnvelopeJSON parses one envelope line of a control record.
func ParseControlEnvelopeJSON(data []byte) (ControlRecord, int16, error) {
	e, err := parseEnvelope(data)
	if err != nil {
		return nil, 0, err
	}
	t, ok := ControlTypeByName(e.Type)
	if !ok {
		return nil, 0, fmt.Errorf("%w: control type %q", ErrUnknownType, e.Type)
	}
	r, err := NewControl(t)
	if err != nil {
		return nil, 0, err
	}
	if err := r.UnmarshalJSONVersion(e.Data, *e.Version); err != nil {
		return nil, 0, err
	}
	return r, *e.Version, nil
}
