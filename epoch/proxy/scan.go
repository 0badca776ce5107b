package proxy

import (
	"encoding/binary"
	"fmt"
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

type scanner struct {
	b   []byte
	off int
	bad bool
}

func (s *scanner) need(n int) bool {
	if s.bad || n < 0 || len(s.b)-s.off < n {
		s.bad = true
		return false
	}
	return true
}

func (s *scanner) skip(n int) {
	if s.need(n) {
		s.off += n
	}
}

func (s *scanner) i16() int16 {
	if !s.need(2) {
		return 0
	}
	v := int16(binary.BigEndian.Uint16(s.b[s.off:]))
	s.off += 2
	return v
}

func (s *scanner) i32() int32 {
	if !s.need(4) {
		return 0
	}
	v := int32(binary.BigEndian.Uint32(s.b[s.off:]))
	s.off += 4
	return v
}

func (s *scanner) uvarint() uint64 {
	if s.bad {
		return 0
	}
	v, n := binary.Uvarint(s.b[s.off:])
	if n <= 0 {
		s.bad = true
		return 0
	}
	s.off += n
	return v
}

// length reads an array, string or bytes length: compact (uvarint, minus
// one) when flexible, else int16 (strings) or int32; -1 is null.
func (s *scanner) length(flexible, short bool) int {
	if flexible {
		v := s.uvarint()
		if v > uint64(len(s.b)) {
			s.bad = true
			return 0
		}
		return int(v) - 1
	}
	if short {
		return int(s.i16())
	}
	return int(s.i32())
}

func (s *scanner) str(flexible bool) {
	if n := s.length(flexible, true); n > 0 {
		s.skip(n)
	}
}

func (s *scanner) bytes(flexible bool) {
	if n := s.length(flexible, false); n > 0 {
		s.skip(n)
	}
}

// array returns an array's length (0 for null) and checks it against the
// bytes left (each element takes at least min bytes).
func (s *scanner) array(flexible bool, min int) int {
	n := s.length(flexible, false)
	if n < 0 {
		return 0
	}
	if !s.need(n * min) {
		return 0
	}
	return n
}

// tags skips a tagged-field section, calling f (if not nil) with each tag
// and its bytes.
func (s *scanner) tags(f func(tag uint64, b []byte)) {
	n := s.uvarint()
	for i := uint64(0); i < n && !s.bad; i++ {
		tag := s.uvarint()
		size := s.uvarint()
		if size > uint64(len(s.b)) {
			s.bad = true
			return
		}
		if !s.need(int(size)) {
			return
		}
		if f != nil {
			f(tag, s.b[s.off:s.off+int(size)])
		}
		s.off += int(size)
	}
}

func (s *scanner) done(api string, version int16) error {
	if s.bad {
		return fmt.Errorf("proxy: %s v%d answer: %w near byte %d of %d", api, version, ErrTruncated, s.off, len(s.b))
	}
	if s.off != len(s.b) {
		return fmt.Errorf("proxy: %s v%d answer: %d bytes left over at byte %d", api, version, len(s.b)-s.off, s.off)
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
	s := scanner{b: body}
	flex := version >= 9
	for range s.array(flex, 2) {
		if version <= 12 {
			s.str(flex)
		} else {
			s.skip(16)
		}
		for range s.array(flex, 14) {
			s.skip(4)
			if s.i16() != 0 {
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
				for range s.array(flex, 5) {
					s.skip(4)
					s.str(flex)
					if flex {
						s.tags(nil)
					}
				}
				s.str(flex)
			}
			if flex {
				s.tags(nil)
			}
		}
		if flex {
			s.tags(nil)
		}
	}
	if version >= 1 {
		s.skip(4)
	}
	if flex {
		s.tags(func(tag uint64, b []byte) {
			if tag == 0 && nodeEndpoints(b) {
				sum.NodeEndpoints = true
			}
		})
	}
	return sum, s.done("Produce", version)
}

// ScanFetch is ScanProduce for a Fetch answer (Kafka's FetchResponse.json).
func ScanFetch(version int16, body []byte) (Summary, error) {
	var sum Summary
	s := scanner{b: body}
	flex := version >= 12
	if version >= 1 {
		s.skip(4)
	}
	if version >= 7 {
		if s.i16() != 0 {
			sum.Errors++
		}
		s.skip(4)
	}
	for range s.array(flex, 2) {
		if version <= 12 {
			s.str(flex)
		} else {
			s.skip(16)
		}
		for range s.array(flex, 16) {
			s.skip(4)
			if s.i16() != 0 {
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
				for range s.array(flex, 16) {
					s.skip(16)
					if flex {
						s.tags(nil)
					}
				}
			}
			if version >= 11 {
				s.skip(4)
			}
			s.bytes(flex)
			if flex {
				s.tags(nil)
			}
		}
		if flex {
			s.tags(nil)
		}
	}
	if flex {
		s.tags(func(tag uint64, b []byte) {
			if tag == 0 && nodeEndpoints(b) {
				sum.NodeEndpoints = true
			}
		})
	}
	return sum, s.done("Fetch", version)
}
