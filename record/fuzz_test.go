package record

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
)

// addVectorSeeds adds every record vector Kafka wrote as a fuzz seed, where
// ../shared is present (plain go test then runs them as regression cases).
func addVectorSeeds(f *testing.F, kind string, add func(row vectorRow, bin, key []byte)) {
	dir := filepath.Join(sharedtest.Find(), "vectors", "records")
	idx, err := os.ReadFile(filepath.Join(dir, "INDEX-4.4.tsv"))
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(idx), "\n")[1:] {
		c := strings.Split(line, "\t")
		if len(c) != 7 || c[2] != kind {
			continue
		}
		bin, err := os.ReadFile(filepath.Join(dir, c[0]))
		if err != nil {
			continue
		}
		key, _ := os.ReadFile(filepath.Join(dir, filepath.Dir(c[0]), "key.bin"))
		var row vectorRow
		row.file, row.record = c[0], c[1]
		k, _ := strconv.Atoi(c[3])
		v, _ := strconv.Atoi(c[4])
		row.key, row.version = int16(k), int16(v)
		add(row, bin, key)
	}
}

// fixedPoint checks that decode -> encode -> decode -> encode is stable.
func fixedPoint(t *testing.T, m Message, v int16, decode func([]byte) (Message, error)) {
	e1, err := m.AppendBody(nil, v)
	if err != nil {
		t.Fatalf("a decoded message must re-encode at its version: %v", err)
	}
	m2, err := decode(e1)
	if err != nil {
		t.Fatalf("re-encoded bytes must decode: %v", err)
	}
	e2, err := m2.AppendBody(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(e1, e2) {
		t.Fatalf("not a fixed point:\n%x\n%x", e1, e2)
	}
	j, err := m.AppendJSON(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	// JSON: printing, parsing and printing again is a fixed point too (the
	// bytes may differ where a string held invalid UTF-8, which JSON carries
	// as U+FFFD, as Java's decoder would have made it).
	m2.Default()
	if err := m2.UnmarshalJSONVersion(j, v); err != nil {
		t.Fatalf("our JSON must parse back: %v\n%s", err, j)
	}
	j2, err := m2.AppendJSON(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(j, j2) {
		t.Fatalf("JSON round trip changed the record:\n%s\n%s", j, j2)
	}
}

// FuzzDecode fuzzes the frame and every metadata record type through it:
// never panic; what decodes re-encodes to a fixed point and survives JSON.
func FuzzDecode(f *testing.F) {
	for t := Type(0); t < Type(len(recordFactories)); t++ {
		if !t.Known() {
			continue
		}
		r, _ := New(t)
		for v := r.LowestVersion(); v <= r.HighestVersion(); v++ {
			b, err := Append(nil, r, v)
			if err == nil {
				f.Add(b)
			}
		}
	}
	addVectorSeeds(f, "metadata", func(_ vectorRow, bin, _ []byte) { f.Add(bin) })
	f.Fuzz(func(t *testing.T, value []byte) {
		r, v, err := Decode(value)
		if err != nil {
			return
		}
		fixedPoint(t, r, v, func(b []byte) (Message, error) {
			m, _ := New(r.Type())
			return m, m.DecodeBody(b, v)
		})
	})
}

// FuzzRecordBody fuzzes the body decoder of every record type at every
// version directly, without the frame.
func FuzzRecordBody(f *testing.F) {
	addVectorSeeds(f, "metadata", func(row vectorRow, bin, _ []byte) {
		if _, body, err := ReadFrameHeader(bin); err == nil {
			f.Add(uint8(row.key), uint8(row.version), body)
		}
	})
	f.Add(uint8(5), uint8(2), []byte{0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, key, version uint8, body []byte) {
		r, err := New(Type(key % 29))
		if err != nil {
			return
		}
		v := int16(version % 4)
		if v > r.HighestVersion() {
			return
		}
		if r.DecodeBody(body, v) != nil {
			return
		}
		fixedPoint(t, r, v, func(b []byte) (Message, error) {
			m, _ := New(Type(key % 29))
			return m, m.DecodeBody(b, v)
		})
	})
}

// FuzzControl fuzzes control record keys and values.
func FuzzControl(f *testing.F) {
	addVectorSeeds(f, "control-value", func(row vectorRow, bin, key []byte) { f.Add(key, bin, uint8(row.version)) })
	f.Add([]byte{0, 0, 0, 3}, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, uint8(0))
	f.Fuzz(func(t *testing.T, key, value []byte, version uint8) {
		v := int16(version % 3)
		r, err := DecodeControl(key, value, v)
		if err != nil {
			return
		}
		fixedPoint(t, r, v, func(b []byte) (Message, error) {
			m, _ := NewControl(r.ControlType())
			return m, m.DecodeBody(b, v)
		})
	})
}

// FuzzEnvelopeJSON fuzzes the JSON reader: never panic, and what parses
// prints back to JSON that parses to the same record.
func FuzzEnvelopeJSON(f *testing.F) {
	f.Add([]byte(`{"type":"PARTITION_CHANGE_RECORD","version":2,"data":{"partitionId":1,"topicId":"AAAAAAAAAAAAAAAAAAAAAA","isr":[1,2],"leader":-1}}`))
	f.Add([]byte(`{"type":"CLIENT_QUOTA_RECORD","version":0,"data":{"entity":[{"entityType":"user","entityName":null}],"key":"k","value":1.0E10,"remove":false}}`))
	f.Add([]byte(`{"type":"USER_SCRAM_CREDENTIAL_RECORD","version":0,"data":{"name":"a","mechanism":1,"salt":"AAE=","storedKey":"","serverKey":"","iterations":4096}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, v, err := ParseEnvelopeJSON(line)
		if err != nil {
			return
		}
		b1, err := Append(nil, r, v)
		if err != nil {
			return // JSON may set a field the version cannot carry; encoding refuses it
		}
		out, err := AppendEnvelopeJSON(nil, r, v)
		if err != nil {
			t.Fatal(err)
		}
		r2, v2, err := ParseEnvelopeJSON(out)
		if err != nil {
			t.Fatalf("our output must parse: %v\n%s", err, out)
		}
		b2, err := Append(nil, r2, v2)
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("JSON round trip changed the record: %v\n%s", err, out)
		}
	})
}
