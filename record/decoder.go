package record

import (
	"encoding/binary"
	"fmt"
)

// Decoder decodes framed metadata records into one reused record value per
// type, reusing the capacity of the slices that value holds. It is for
// pipelines that copy each record somewhere else at once, such as replaying a
// large snapshot into an image: decoding then allocates little beyond the
// record's strings.
//
// The record Decode returns, and every slice it holds, are valid only until
// the next call of Decode for a record of the same type; strings stay valid.
// Use the package-level Decode for records that must outlive that. A Decoder
// is not safe for concurrent use; its zero value is ready.
type Decoder struct {
	recs [len(recordFactories)]Record
	r    reader // kept here so that passing it to decode does not allocate
}

// Decode decodes a framed metadata record value as the package-level Decode
// does, into the Decoder's record for its type. A PartitionRecord of the
// shape Kafka's controllers write (lists shorter than 127 ids, no tagged
// field) is read in one pass; every other value goes through the generated
// decoder, with the same result and the same errors.
func (d *Decoder) Decode(value []byte) (Record, int16, error) { return d.decode(value, true) }

// decode is Decode, taking the one-pass paths only when common.
func (d *Decoder) decode(value []byte, common bool) (Record, int16, error) {
	var h FrameHeader
	var body []byte
	var err error
	if common {
		h, body, err = readFrameHeaderFast(value)
	} else {
		h, body, err = ReadFrameHeader(value)
	}
	if err != nil {
		return nil, 0, err
	}
	rec := d.recs[h.Type]
	if rec == nil {
		rec = recordFactories[h.Type]()
		d.recs[h.Type] = rec
	}
	if common && h.Type == TypePartitionRecord && rec.(*PartitionRecord).decodeCommon(body, h.Version) {
		return rec, h.Version, nil
	}
	return d.decodeBody(rec, h, body)
}

// decodeBody decodes body into rec with the generated decoder.
func (d *Decoder) decodeBody(rec Record, h FrameHeader, body []byte) (Record, int16, error) {
	d.r = reader{b: body, reuse: true}
	r := &d.r
	rec.(bodyDecoder).decode(r, h.Version)
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%w: %d byte(s) of garbage after %s", ErrCorrupt, len(r.b), h.Type)
	}
	if err := r.err; err != nil {
		d.r = reader{}
		return nil, h.Version, fmt.Errorf("decode %s v%d: %w", h.Type, h.Version, err)
	}
	d.r = reader{}
	return rec, h.Version, nil
}

// bodyDecoder is the generated decoder every record type has.
type bodyDecoder interface {
	decode(r *reader, v int16)
}

// readFrameHeaderFast is ReadFrameHeader for the frame every record Kafka
// writes has (frame version, apiKey and version one byte each), checked as
// ReadFrameHeader checks it; any other frame goes to ReadFrameHeader.
func readFrameHeaderFast(value []byte) (FrameHeader, []byte, error) {
	if len(value) < 3 || value[0] != FrameVersion || value[1] >= 0x80 || value[2] >= 0x80 {
		return ReadFrameHeader(value)
	}
	h := FrameHeader{Type: Type(value[1]), Version: int16(value[2])}
	if !h.Type.Known() {
		return ReadFrameHeader(value) // for its error
	}
	if r := recordVersionRanges[h.Type]; h.Version < r[0] || h.Version > r[1] {
		return ReadFrameHeader(value)
	}
	return h, value[3:], nil
}

// decodeCommon decodes the body b of a PartitionRecord of version v when it
// has the shape nearly every one has (lists of fewer than 127 ids, none null,
// no tagged field), into m's slices as the generated decode does with reuse,
// and reports whether it did. It returns false, having perhaps overwritten
// some of m's fields, for anything else, valid or not: the generated decode
// then reads the record again (and names what is wrong), setting every
// field. The result is the one the generated decode gives.
func (m *PartitionRecord) decodeCommon(b []byte, v int16) bool {
	if len(b) < 4+16 {
		return false
	}
	partitionID := int32(binary.BigEndian.Uint32(b))
	copy(m.TopicID[:], b[4:20])
	b = b[20:]
	var ok bool
	if m.Replicas, b, ok = commonInt32s(m.Replicas, b); !ok {
		return false
	}
	if m.ISR, b, ok = commonInt32s(m.ISR, b); !ok {
		return false
	}
	if m.RemovingReplicas, b, ok = commonInt32s(m.RemovingReplicas, b); !ok {
		return false
	}
	if m.AddingReplicas, b, ok = commonInt32s(m.AddingReplicas, b); !ok {
		return false
	}
	if len(b) < 12 {
		return false
	}
	leader := int32(binary.BigEndian.Uint32(b))
	leaderEpoch := int32(binary.BigEndian.Uint32(b[4:]))
	partitionEpoch := int32(binary.BigEndian.Uint32(b[8:]))
	b = b[12:]
	if v >= 1 {
		if len(b) == 0 || b[0] == 0 || b[0] >= 0x80 {
			return false
		}
		n := int(b[0]) - 1
		b = b[1:]
		if len(b) < 16*n {
			return false
		}
		dirs := reuseOrMake(true, m.Directories, n)
		for i := range dirs {
			copy(dirs[i][:], b[16*i:])
		}
		m.Directories = dirs
		b = b[16*n:]
	} else {
		m.Directories = nil
	}
	if len(b) != 1 || b[0] != 0 { // no tagged fields, and nothing after them
		return false
	}
	m.PartitionID = partitionID
	m.Leader = leader
	m.LeaderRecoveryState = 0
	m.LeaderEpoch = leaderEpoch
	m.PartitionEpoch = partitionEpoch
	m.EligibleLeaderReplicas = nil
	m.LastKnownELR = nil
	m.UnknownTags = nil
	return true
}

// commonInt32s reads a non-null compact int32 array of fewer than 127
// elements from the start of b into old's memory when it has room, as
// reader.int32s does with reuse, and returns it with the rest of b; false for
// any other array or too few bytes.
func commonInt32s(old []int32, b []byte) ([]int32, []byte, bool) {
	if len(b) == 0 || b[0] == 0 || b[0] >= 0x80 {
		return old, b, false
	}
	n := int(b[0]) - 1
	b = b[1:]
	if len(b) < 4*n {
		return old, b, false
	}
	s := reuseOrMake(true, old, n)
	for i := range s {
		s[i] = int32(binary.BigEndian.Uint32(b[4*i:]))
	}
	return s, b[4*n:], true
}
