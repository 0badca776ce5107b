package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/record"
)

// sensitiveFields names the JSON fields of r's data that crit hides, following
// what Kafka's image printers hide for the same data
// (ConfigurationImageNode, ScramCredentialDataNode, DelegationTokenDataNode).
// The names that identify a record (config name, SCRAM user and mechanism,
// token id) stay visible.
//
// A record dump is JSON, so a hidden value keeps its JSON type (see
// redactMembers), and the numbers stay: a SCRAM credential's iterations are
// printed as Kafka's own record redaction prints them (RecordRedactor
// hides the salt and keys of a UserScramCredentialRecord and prints its
// iterations, which SCRAM sends in the clear: RFC 5802's server-first
// message), and so are a token's timestamps. kmeta's dump used to print
// "iterations":"[redacted]", a string in a number field.
func sensitiveFields(r record.Record, crit redact.Criteria) []string {
	switch r := r.(type) {
	case *record.ConfigRecord:
		if r.Value != nil && crit.ShouldRedactConfig(image.ConfigTypeForID(r.ResourceType), r.Name) {
			return []string{"value"}
		}
	case *record.UserScramCredentialRecord:
		if crit.ShouldRedactScram() {
			return []string{"salt", "storedKey", "serverKey"}
		}
	case *record.DelegationTokenRecord:
		if crit.ShouldRedactDelegationToken() {
			return []string{"owner", "requester", "renewers"}
		}
	}
	return nil
}

// redactEnvelope replaces the values of the named members of the envelope's
// "data" object with "[redacted]", keeping every member in its place.
func redactEnvelope(env []byte, fields []string) ([]byte, error) {
	var e struct {
		Type    string          `json:"type"`
		Version int16           `json:"version"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(env, &e); err != nil {
		return nil, err
	}
	data, err := redactMembers(e.Data, fields)
	if err != nil {
		return nil, err
	}
	out := fmt.Appendf(nil, `{"type":%q,"version":%d,"data":`, e.Type, e.Version)
	out = append(out, data...)
	return append(out, '}'), nil
}

// redactMembers rewrites a JSON object, replacing the values of the named
// members, in member order, each by a value of its own JSON type: a string
// by "[redacted]", an array by the same number of redacted elements, null
// and any other value left as it is.
func redactMembers(obj []byte, fields []string) ([]byte, error) {
	hide := map[string]bool{}
	for _, f := range fields {
		hide[f] = true
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("redact: not a JSON object")
	}
	out := []byte{'{'}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(key)
		out = append(out, k...)
		out = append(out, ':')
		if hide[key] {
			out = append(out, redactValue(val)...)
		} else {
			out = append(out, val...)
		}
	}
	return append(out, '}'), nil
}

// redactValue is a JSON value of the same type as v with its strings
// replaced by "[redacted]".
func redactValue(v json.RawMessage) []byte {
	red := `"` + redact.Redacted + `"`
	switch {
	case len(v) > 0 && v[0] == '"':
		return []byte(red)
	case len(v) > 0 && v[0] == '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(v, &elems); err != nil {
			return []byte(red)
		}
		out := []byte{'['}
		for i, e := range elems {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, redactValue(e)...)
		}
		return append(out, ']')
	}
	return v
}
