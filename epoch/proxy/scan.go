package proxy

import (
	"encoding/binary"
)

// Summary is what ScanProduce and ScanFetch found in an answer.
type Summary struct {
	// Errors counts partitions with a non-zero error code (plus one for a
	// top-level Fetch error).
	Errors int
	// NodeEndpoints reports a non-empty KIP-951 NodeEndpoints list (top-level
	// tag 0 of Produce v10+ and Fetch v16+): the answer carries broker
	// addresses and must go through Rewriter before a client sees it.
	NodeEndpoints bool
}

// The scans read answers with the request decoder's reader (reader.go):
// one bounds-checked byte reader for everything the proxy reads. The
// methods below only skip, so that a scan allocates nothing.

// skip skips n bytes.
func (r *reader) skip(n int) { r.span(int32(n)) }

// skipString skips a string or nullable string.
func (r *reader) skipString(flexible bool) {
	if n := r.strLen(flexible); n > 0 {
		r.span(n)
	}
}

// skipBytes skips a bytes or nullable bytes field (records): int32
// length, or compact (uvarint minus one) when flexible; negative is null.
func (r *reader) skipBytes(flexible bool) {
	var n int32
	if flexible {
		n = r.uvarint() - 1
	} else {
		n = r.int32()
	}
	if n > 0 {
		r.span(n)
	}
}

// elements reads an array count (0 for null) and checks it against the
// bytes left, each element taking at least min bytes.
func (r *reader) elements(flexible bool, min int) int {
	n, _ := r.arrayLen(flexible, true)
	if !r.need(int(n) * min) {
		return 0
	}
	return int(n)
}

// done is the scan's error: the reader's failure, or bytes left over after
// the body (an answer must end where its schema does).
func (r *reader) done() error {
	if r.failed {
		return r.err
	}
	if r.off != len(r.b) {
		r.fail(ErrInvalid, "%d bytes left over", len(r.b)-r.off)
		return r.err
	}
	return nil
}

// nodeEndpoints reports whether a NodeEndpoints tag's bytes hold a
// non-empty compact array.
func nodeEndpoints(b []byte) bool {
	n, k := binary.Uvarint(b)
	return k <= 0 || n > 1 // unreadable counts as present: the slow path decodes and fails
}

// ScanProduce walks the body of a Produce answer of the version (after the
// response header) without decoding it, in the layout of Kafka's
// ProduceResponse.json, and summarises its errors and NodeEndpoints. It does
// not allocate.
func ScanProduce(version int16, body []byte) (Summary, error) {
	var sum Summary
	s := reader{b: body, key: 0, ver: version}
	flex := version >= 9
	for range s.elements(flex, 2) {
		if version <= 12 {
			s.skipString(flex)
		} else {
			s.skip(16)
		}
		for range s.elements(flex, 14) {
			s.skip(4)
			if s.int16() != 0 {
				sum.Errors++
			}
			s.skip(8)
			if version >= 2 {
				s.skip(8)
			}
			if version >= 5 {
				s.skip(8)
			}
			if version >= 8 {
				for range s.elements(flex, 5) {
					s.skip(4)
					s.skipString(flex)
					if flex {
						s.tags("")
					}
				}
				s.skipString(flex)
			}
			if flex {
				s.tags("")
			}
		}
		if flex {
			s.tags("")
		}
	}
	if version >= 1 {
		s.skip(4)
	}
	if flex {
		s.tagsFunc("", func(tag int32, b []byte) {
			if tag == 0 && nodeEndpoints(b) {
				sum.NodeEndpoints = true
			}
		})
	}
	return sum, s.done()
}

// ScanFetch is ScanProduce for a Fetch answer (Kafka's FetchResponse.json).
func ScanFetch(version int16, body []byte) (Summary, error) {
	var sum Summary
	s := reader{b: body, key: 1, ver: version}
	flex := version >= 12
	if version >= 1 {
		s.skip(4)
	}
	if version >= 7 {
		if s.int16() != 0 {
			sum.Errors++
		}
		s.skip(4)
	}
	for range s.elements(flex, 2) {
		if version <= 12 {
			s.skipString(flex)
		} else {
			s.skip(16)
		}
		for range s.elements(flex, 16) {
			s.skip(4)
			if s.int16() != 0 {
				sum.Errors++
			}
			s.skip(8)
			if version >= 4 {
				s.skip(8)
			}
			if version >= 5 {
				s.skip(8)
			}
			if version >= 4 {
				for range s.elements(flex, 16) {
					s.skip(16)
					if flex {
						s.tags("")
					}
				}
			}
			if version >= 11 {
				s.skip(4)
			}
			s.skipBytes(flex)
			if flex {
				s.tags("")
			}
		}
		if flex {
			s.tags("")
		}
	}
	if flex {
		s.tagsFunc("", func(tag int32, b []byte) {
			if tag == 0 && nodeEndpoints(b) {
				sum.NodeEndpoints = true
			}
		})
	}
	return sum, s.done()
}
