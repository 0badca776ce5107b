package metalog

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// agreeOnRecord checks that commonDataRecord accepts p only where parseRecord
// does, with the same value and rest.
func agreeOnRecord(t *testing.T, p []byte, i int32) {
	t.Helper()
	v, rest, ok := commonDataRecord(p, i)
	if !ok {
		return
	}
	e, wrest, err := parseRecord(p, i, false)
	if err != nil {
		t.Fatalf("commonDataRecord accepted record %d %x that parseRecord refuses: %v", i, p, err)
	}
	if !bytes.Equal(v, e.Value) || len(rest) != len(wrest) || e.Key != nil || cap(v) != len(v) {
		t.Fatalf("commonDataRecord gave value %x rest %d, parseRecord %x rest %d (record %d %x)", v, len(rest), e.Value, len(wrest), i, p)
	}
}

// TestCommonDataRecordSeed1: the common-shape path of parseRecords accepts
// exactly what parseRecord accepts (or leaves it to parseRecord), with the
// same value, for records of offset deltas and value lengths around each
// varint length, and for every truncation and many one-byte changes of each.
func TestCommonDataRecordSeed1(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 4))
	hit := 0
	for _, i := range []int32{0, 1, 63, 64, 8191, 8192, 1<<20 - 1, 1 << 20, 1<<21 + 5} {
		for _, n := range []int{1, 2, 63, 64, 100, 8191, 8192, 1<<20 - 1, 1 << 20} {
			value := make([]byte, n)
			for k := range value {
				value[k] = byte(rng.Uint32())
			}
			p := appendRecord(nil, i, value)
			trailer := []byte{9, 9, 9}
			p = append(p, trailer...)
			if v, rest, ok := commonDataRecord(p, i); ok {
				hit++
				if !bytes.Equal(v, value) || !bytes.Equal(rest, trailer) {
					t.Fatalf("record %d of %d bytes: value %d bytes, rest %x", i, n, len(v), rest)
				}
			} else if i < 1<<20 && n < 1<<20-16 { // the record length is a varint of three bytes too
				t.Errorf("record %d with a value of %d bytes not read by the common path", i, n)
			}
			agreeOnRecord(t, p, i)
			agreeOnRecord(t, p, i+1)
			if n > 200 {
				continue
			}
			for k := 0; k < len(p); k++ {
				agreeOnRecord(t, p[:k], i)
			}
			for k := 0; k < 200; k++ {
				bad := append([]byte(nil), p...)
				bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
				agreeOnRecord(t, bad, i)
			}
		}
	}
	if hit == 0 {
		t.Fatal("the common path read no record")
	}
}

// appendRecord appends a KRaft data record (DefaultRecord: null key, no
// headers) with offset delta i and value, as BatchBuilder writes it.
func appendRecord(b []byte, i int32, value []byte) []byte {
	var body []byte
	body = append(body, 0, 0) // attributes, timestampDelta
	body = appendZigzag(body, int64(i))
	body = appendZigzag(body, -1)
	body = appendZigzag(body, int64(len(value)))
	body = append(body, value...)
	body = append(body, 0)
	b = appendZigzag(b, int64(len(body)))
	return append(b, body...)
}

func appendZigzag(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// FuzzCommonDataRecord: the common-shape path of parseRecords never accepts
// a record parseRecord refuses, nor reads it differently.
func FuzzCommonDataRecord(f *testing.F) {
	for _, i := range []int32{0, 64, 8192} {
		f.Add(appendRecord(nil, i, []byte("value")), i)
	}
	f.Fuzz(func(t *testing.T, p []byte, i int32) { agreeOnRecord(t, p, i) })
}
