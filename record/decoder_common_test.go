package record

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// partitionRecordShapes returns PartitionRecords of every version in the
// shapes the Decoder's common-shape path reads (short lists, empty lists,
// directories) and in the shapes it must leave to the generated decode
// (lists of 127 ids or more, ELR lists, a non-zero leader recovery state,
// unknown tagged fields), from a seeded generator.
func partitionRecordShapes(seed uint64) []struct {
	r *PartitionRecord
	v int16
} {
	rng := rand.New(rand.NewPCG(seed, 2))
	list := func() []int32 {
		var n int
		switch rng.IntN(6) {
		case 0:
			n = 0
		case 1:
			n = 126 + rng.IntN(3) // around the one-byte compact length limit
		default:
			n = 1 + rng.IntN(5)
		}
		l := make([]int32, n)
		for i := range l {
			l[i] = rng.Int32N(1<<20) - 1<<10
		}
		return l
	}
	var out []struct {
		r *PartitionRecord
		v int16
	}
	for i := 0; i < 300; i++ {
		r := NewPartitionRecord()
		r.PartitionID = rng.Int32()
		for k := range r.TopicID {
			r.TopicID[k] = byte(rng.Uint32())
		}
		r.Replicas, r.ISR, r.RemovingReplicas, r.AddingReplicas = list(), list(), list(), list()
		r.Leader, r.LeaderEpoch, r.PartitionEpoch = rng.Int32(), rng.Int32(), rng.Int32()
		v := int16(rng.IntN(3))
		if v >= 1 && rng.IntN(2) == 0 {
			r.Directories = make([]UUID, len(r.Replicas))
			for k := range r.Directories {
				r.Directories[k][0] = byte(k + 1)
			}
		}
		switch rng.IntN(8) {
		case 0:
			r.LeaderRecoveryState = 1
		case 1:
			if v >= 2 {
				r.EligibleLeaderReplicas, r.LastKnownELR = list(), list()
			}
		case 2:
			r.UnknownTags = []TaggedField{{Tag: 7, Data: []byte{1, 2, 3}}}
		}
		out = append(out, struct {
			r *PartitionRecord
			v int16
		}{r, v})
	}
	return out
}

// sameDecode checks that the reusing Decoder d decodes value exactly as the
// generated decoders alone do (oracle, a Decoder that never takes the
// common-shape path): the same error, or an equal record and version; and
// that a PartitionRecord decodes as the package-level Decode gives it.
func sameDecode(t *testing.T, d, oracle *Decoder, value []byte) {
	t.Helper()
	want, wv, werr := oracle.decodeGenerated(value)
	got, gv, gerr := d.Decode(value)
	if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
		t.Fatalf("Decoder error %v, generated decode error %v, value %x", gerr, werr, value)
	}
	if werr != nil {
		return
	}
	if gv != wv || !reflect.DeepEqual(got, want) {
		t.Fatalf("Decoder gave v%d %+v, generated decode v%d %+v, value %x", gv, got, wv, want, value)
	}
	if got.Type() != TypePartitionRecord {
		return // (the Decoder leaves some empty struct arrays nil where Decode gives empty ones)
	}
	if fresh, _, err := Decode(value); err != nil || !reflect.DeepEqual(got, fresh) {
		t.Fatalf("Decoder gave %+v, Decode %+v (%v), value %x", got, fresh, err, value)
	}
}

// decodeGenerated is Decode without the common-shape path.
func (d *Decoder) decodeGenerated(value []byte) (Record, int16, error) { return d.decode(value, false) }

// TestDecoderCommonPartitionRecordSeed1: the Decoder's path for the common
// PartitionRecord shape gives exactly what the generated decode gives, for
// records of every shape, one after another into the same reused record, and
// for every truncation and many one-byte changes of each (the same errors).
func TestDecoderCommonPartitionRecordSeed1(t *testing.T) {
	var d, oracle Decoder
	rng := rand.New(rand.NewPCG(1, 3))
	for i, c := range partitionRecordShapes(1) {
		value, err := Append(nil, c.r, c.v)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			sameDecode(t, &d, &oracle, value)
			got, _, err := d.Decode(value)
			if err != nil {
				t.Fatal(err)
			}
			if again, _ := Append(nil, got, c.v); string(again) != string(value) {
				t.Fatalf("re-encoded %x, want %x", again, value)
			}
			for n := 0; n < len(value); n++ {
				sameDecode(t, &d, &oracle, value[:n])
			}
			for k := 0; k < 40; k++ {
				bad := append([]byte(nil), value...)
				bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
				sameDecode(t, &d, &oracle, bad)
				sameDecode(t, &d, &oracle, append(append([]byte(nil), value...), byte(rng.Uint32())))
			}
		})
	}
}

// FuzzDecoderMatchesDecode: a Decoder reused across inputs decodes every
// input exactly as the package-level Decode does.
func FuzzDecoderMatchesDecode(f *testing.F) {
	for _, c := range partitionRecordShapes(2) {
		if b, err := Append(nil, c.r, c.v); err == nil {
			f.Add(b)
		}
	}
	addVectorSeeds(f, "metadata", func(_ vectorRow, bin, _ []byte) { f.Add(bin) })
	var d, oracle Decoder
	f.Fuzz(func(t *testing.T, value []byte) { sameDecode(t, &d, &oracle, value) })
}
