package record

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file holds the JSON helpers behind the generated AppendJSON and
// UnmarshalJSONVersion methods. The form is that of Kafka's generated
// *JsonConverter classes printed by Jackson: field names in lower camel case
// in declaration order, uuids in Kafka's text form, bytes in standard base64,
// float64 as Java's Double.toString prints it.

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, escaping as Jackson does:
// quote, backslash and control characters; everything else is written as
// UTF-8. Invalid UTF-8 becomes U+FFFD, as Java's decoder makes it.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c >= 0x20:
				b = append(b, c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\ufffd"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

func appendJSONNullableString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, *s)
}

func appendJSONBytes(b []byte, v []byte, nullable bool) []byte {
	if v == nil && nullable {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, v)
	return append(b, '"')
}

func appendJSONUUID(b []byte, u UUID) []byte {
	b = append(b, '"')
	b, _ = u.AppendText(b)
	return append(b, '"')
}

func appendJSONBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

func appendJSONInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// appendJSONDouble appends v the way Java's Double.toString prints it
// (Jackson writes doubles with it): plain decimal with at least one digit after
// the point for 1e-3 <= |v| < 1e7, else computerized scientific notation such
// as 1.0E10 or 1.234E-5. NaN and the infinities, which JSON cannot carry,
// are written as the strings "NaN", "Infinity" and "-Infinity".
func appendJSONDouble(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(v, -1):
		return append(b, `"-Infinity"`...)
	}
	a := math.Abs(v)
	if v == 0 || (a >= 1e-3 && a < 1e7) {
		start := len(b)
		b = strconv.AppendFloat(b, v, 'f', -1, 64)
		if !bytes.ContainsRune(b[start:], '.') {
			b = append(b, '.', '0')
		}
		return b
	}
	s := strconv.FormatFloat(v, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	b = append(b, mant...)
	b = append(b, 'E')
	return strconv.AppendInt(b, int64(e), 10)
}

// appendJSONArray appends s as a JSON array of elements written by elem, or
// null for a nil slice of a nullable field.
func appendJSONArray[T any](b []byte, s []T, nullable bool, elem func([]byte, T) []byte) []byte {
	if s == nil && nullable {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, v)
	}
	return append(b, ']')
}

func appendJSONInt32(b []byte, v int32) []byte { return strconv.AppendInt(b, int64(v), 10) }

func appendJSONInt32s(b []byte, s []int32, nullable bool) []byte {
	return appendJSONArray(b, s, nullable, appendJSONInt32)
}

func appendJSONUUIDs(b []byte, s []UUID, nullable bool) []byte {
	return appendJSONArray(b, s, nullable, appendJSONUUID)
}

func appendJSONStrings(b []byte, s []string, nullable bool) []byte {
	return appendJSONArray(b, s, nullable, appendJSONString)
}

// jsonObject parses one JSON object into its raw members.
type jsonObject map[string]json.RawMessage

func parseJSONObject(data []byte, what string) (jsonObject, error) {
	var o jsonObject
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if o == nil {
		return nil, fmt.Errorf("%s: expected a JSON object, got null", what)
	}
	return o, nil
}

func isJSONNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// jsonIntField parses an integer in [lo, hi].
func jsonInt(raw json.RawMessage, field string, lo, hi int64) (int64, error) {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("field %s: expected an integer: %w", field, err)
	}
	v, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("field %s: expected an integer, got %s", field, n)
	}
	if v < lo || v > hi {
		return 0, fmt.Errorf("field %s: %d out of range [%d, %d]", field, v, lo, hi)
	}
	return v, nil
}

func jsonDouble(raw json.RawMessage, field string) (float64, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
		return 0, fmt.Errorf("field %s: expected a number, got %q", field, s)
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, fmt.Errorf("field %s: expected a number: %w", field, err)
	}
	return v, nil
}

func jsonBool(raw json.RawMessage, field string) (bool, error) {
	var v bool
	if err := json.Unmarshal(raw, &v); err != nil {
		return false, fmt.Errorf("field %s: expected a boolean: %w", field, err)
	}
	return v, nil
}

func jsonString(raw json.RawMessage, field string) (string, error) {
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("field %s: expected a string: %w", field, err)
	}
	return v, nil
}

func jsonNullableString(raw json.RawMessage, field string) (*string, error) {
	if isJSONNull(raw) {
		return nil, nil
	}
	v, err := jsonString(raw, field)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

func jsonUUID(raw json.RawMessage, field string) (UUID, error) {
	s, err := jsonString(raw, field)
	if err != nil {
		return UUID{}, err
	}
	u, err := ParseUUID(s)
	if err != nil {
		return UUID{}, fmt.Errorf("field %s: %w", field, err)
	}
	return u, nil
}

func jsonBytes(raw json.RawMessage, field string, nullable bool) ([]byte, error) {
	if isJSONNull(raw) {
		if nullable {
			return nil, nil
		}
		return nil, fmt.Errorf("field %s: null, but the field is not nullable", field)
	}
	s, err := jsonString(raw, field)
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("field %s: %w", field, err)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// jsonArray splits a JSON array into raw elements; nil (and no error) for a
// null array.
func jsonArray(raw json.RawMessage, field string, nullable bool) ([]json.RawMessage, bool, error) {
	if isJSONNull(raw) {
		if nullable {
			return nil, true, nil
		}
		return nil, false, fmt.Errorf("field %s: null, but the field is not nullable", field)
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, false, fmt.Errorf("field %s: expected an array: %w", field, err)
	}
	return elems, false, nil
}

// jsonSlice parses a JSON array with elem, or returns nil for a null array of
// a nullable field.
func jsonSlice[T any](raw json.RawMessage, field string, nullable bool, elem func(json.RawMessage, string) (T, error)) ([]T, error) {
	elems, isNull, err := jsonArray(raw, field, nullable)
	if err != nil || isNull {
		return nil, err
	}
	s := make([]T, len(elems))
	for i, e := range elems {
		if s[i], err = elem(e, field); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func jsonInt32(raw json.RawMessage, field string) (int32, error) {
	v, err := jsonInt(raw, field, math.MinInt32, math.MaxInt32)
	return int32(v), err
}

func jsonInt32s(raw json.RawMessage, field string, nullable bool) ([]int32, error) {
	return jsonSlice(raw, field, nullable, jsonInt32)
}

func jsonUUIDs(raw json.RawMessage, field string, nullable bool) ([]UUID, error) {
	return jsonSlice(raw, field, nullable, jsonUUID)
}

func jsonStrings(raw json.RawMessage, field string, nullable bool) ([]string, error) {
	return jsonSlice(raw, field, nullable, jsonString)
}

func missingFieldError(msg, field string, version int16) error {
	return fmt.Errorf("%s: unable to locate field '%s', which is mandatory in version %d", msg, field, version)
}
