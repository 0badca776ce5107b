package record

import "fmt"

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
// does, into the Decoder's record for its type.
func (d *Decoder) Decode(value []byte) (Record, int16, error) {
	h, body, err := ReadFrameHeader(value)
	if err != nil {
		return nil, 0, err
	}
	rec := d.recs[h.Type]
	if rec == nil {
		rec = recordFactories[h.Type]()
		d.recs[h.Type] = rec
	}
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
