package record

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCordonedLogDirsNullAndEmpty: the CordonedLogDirs of RegisterBrokerRecord
// v4 (tag 1) and BrokerRegistrationChangeRecord v3 (tag 3), KIP-1066, are
// nullable tagged fields whose null and empty values differ, as Kafka's
// generated classes write them: null is not written, an empty list is
// written (compact array length 1), an explicit null on the wire (length 0)
// reads as null, and the JSON form carries "cordonedLogDirs":[] only for the
// empty list. Below the field's version a non-null list cannot be written
// ("Attempted to write a non-default cordonedLogDirs") and the tag cannot be
// read ("Tag N is not valid for version V").
func TestCordonedLogDirsNullAndEmpty(t *testing.T) {
	cases := []struct {
		name string
		rec  func(dirs []UUID) Record
		ver  int16
		tag  byte
	}{
		{"RegisterBrokerRecord", func(d []UUID) Record {
			r := NewRegisterBrokerRecord()
			r.BrokerID = 1
			r.CordonedLogDirs = d
			return r
		}, 4, 1},
		{"BrokerRegistrationChangeRecord", func(d []UUID) Record {
			r := NewBrokerRegistrationChangeRecord()
			r.BrokerID = 1
			r.CordonedLogDirs = d
			return r
		}, 3, 3},
	}
	cordoned := func(r Record) []UUID {
		switch r := r.(type) {
		case *RegisterBrokerRecord:
			return r.CordonedLogDirs
		case *BrokerRegistrationChangeRecord:
			return r.CordonedLogDirs
		}
		panic("unexpected record")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			null, err := Append(nil, c.rec(nil), c.ver)
			require.NoError(t, err)
			empty, err := Append(nil, c.rec([]UUID{}), c.ver)
			require.NoError(t, err)
			require.Len(t, empty, len(null)+3, "the empty list adds tag, size and length 1 (and one to the tag count)")
			require.Equal(t, []byte{c.tag, 1, 1}, empty[len(empty)-3:])

			got, _, err := Decode(null)
			require.NoError(t, err)
			require.Nil(t, cordoned(got))
			got, _, err = Decode(empty)
			require.NoError(t, err)
			require.NotNil(t, cordoned(got))
			require.Empty(t, cordoned(got))
			again, err := Append(nil, got, c.ver)
			require.NoError(t, err)
			require.Equal(t, empty, again)

			// An explicit null (compact length 0) reads as null.
			explicitNull := append([]byte(nil), empty...)
			explicitNull[len(explicitNull)-1] = 0
			got, _, err = Decode(explicitNull)
			require.NoError(t, err)
			require.Nil(t, cordoned(got))

			j, err := c.rec([]UUID{}).AppendJSON(nil, c.ver)
			require.NoError(t, err)
			require.Contains(t, string(j), `"cordonedLogDirs":[]`)
			j, err = c.rec(nil).AppendJSON(nil, c.ver)
			require.NoError(t, err)
			require.NotContains(t, string(j), "cordonedLogDirs")

			_, err = Append(nil, c.rec([]UUID{}), c.ver-1)
			require.ErrorIs(t, err, ErrUnsupportedVersion)
			require.ErrorContains(t, err, "CordonedLogDirs")
			old, err := Append(nil, c.rec(nil), c.ver-1)
			require.NoError(t, err)
			// The same tag at the older version: not valid there.
			require.Equal(t, byte(0), old[len(old)-1], "no tagged fields in the older body")
			bad := append(old[:len(old)-1:len(old)-1], 1, c.tag, 1, 1)
			_, _, err = Decode(bad)
			require.ErrorIs(t, err, ErrCorrupt)
			require.ErrorContains(t, err, "is not valid for version")
		})
	}
}

// TestDecoderKeepsEmptyCordonedList: a record.Decoder, which reuses records
// and their slices, still tells an empty CordonedLogDirs from a null one.
func TestDecoderKeepsEmptyCordonedList(t *testing.T) {
	r := NewRegisterBrokerRecord()
	r.CordonedLogDirs = []UUID{}
	empty, err := Append(nil, r, 4)
	require.NoError(t, err)
	r.CordonedLogDirs = nil
	null, err := Append(nil, r, 4)
	require.NoError(t, err)
	var dec Decoder
	for i, value := range [][]byte{empty, null, empty, empty} {
		got, _, err := dec.Decode(value)
		require.NoError(t, err)
		dirs := got.(*RegisterBrokerRecord).CordonedLogDirs
		require.Equal(t, i != 1, dirs != nil, "value %d", i)
		require.Empty(t, dirs)
	}
}
