package xxh3

import (
	"encoding/binary"
	"math/bits"
)

// defaultSecret is XXH3's kSecret (192 bytes), hash4j's SECRET_00..SECRET_23
// in little-endian order.
const defaultSecret = "" +
	"\xb8\xfe\x6c\x39\x23\xa4\x4b\xbe\x7c\x01\x81\x2c\xf7\x21\xad\x1c" +
	"\xde\xd4\x6d\xe9\x83\x90\x97\xdb\x72\x40\xa4\xa4\xb7\xb3\x67\x1f" +
	"\xcb\x79\xe6\x4e\xcc\xc0\xe5\x78\x82\x5a\xd0\x7d\xcc\xff\x72\x21" +
	"\xb8\x08\x46\x74\xf7\x43\x24\x8e\xe0\x35\x90\xe6\x81\x3a\x26\x4c" +
	"\x3c\x28\x52\xbb\x91\xc3\x00\xcb\x88\xd0\x65\x8b\x1b\x53\x2e\xa3" +
	"\x71\x64\x48\x97\xa2\x0d\xf9\x4e\x38\x19\xef\x46\xa9\xde\xac\xd8" +
	"\xa8\xfa\x76\x3f\xe3\x9c\x34\x3f\xf9\xdc\xbb\xc7\xc7\x0b\x4f\x1d" +
	"\x8a\x51\xe0\x4b\xcd\xb4\x59\x31\xc8\x9f\x7e\xc9\xd9\x78\x73\x64" +
	"\xea\xc5\xac\x83\x34\xd3\xeb\xc3\xc5\x81\xa0\xff\xfa\x13\x63\xeb" +
	"\x17\x0d\xdd\x51\xb7\xf0\xda\x49\xd3\x16\x55\x26\x29\xd4\x68\x9e" +
	"\x2b\x16\xbe\x58\x7d\x47\xa1\xfc\x8f\xf8\xb8\xd1\x7a\xd0\x31\xce" +
	"\x45\xcb\x3a\x8f\x95\x16\x04\x28\xaf\xd7\xfb\xca\xbb\x4b\x40\x7e"

const (
	secretSize   = 192
	stripeLen    = 64
	stripesPerBk = (secretSize - stripeLen) / 8 // 16
	blockLen     = stripeLen * stripesPerBk     // 1024

	prime32_1 = 0x9E3779B1
	prime32_2 = 0x85EBCA77
	prime32_3 = 0xC2B2AE3D
	prime64_1 = 0x9E3779B185EBCA87
	prime64_2 = 0xC2B2AE3D27D4EB4F
	prime64_3 = 0x165667B19E3779F9
	prime64_4 = 0x85EBCA77C2B2AE63
	prime64_5 = 0x27D4EB2F165667C5
	primeMX1  = 0x165667919E3779F9
	primeMX2  = 0x9FB21C651E98DF25
)

// Hash is XXH3_64bits: XXH3 with seed 0 (hash4j's Hashing.xxh3_64()).
func Hash(b []byte) uint64 { return HashSeed(b, 0) }

// HashSeed is XXH3_64bits_withSeed (hash4j's Hashing.xxh3_64(seed)).
func HashSeed(b []byte, seed uint64) uint64 {
	n := len(b)
	switch {
	case n <= 16:
		return hashUpTo16(b, seed)
	case n <= 128:
		return hash17to128(b, seed)
	case n <= 240:
		return hash129to240(b, seed)
	}
	var sec [secretSize]byte
	copy(sec[:], defaultSecret)
	if seed != 0 {
		// XXH3_initCustomSecret: the default secret's 64-bit words plus and
		// minus the seed, alternately.
		for i := 0; i < secretSize; i += 16 {
			binary.LittleEndian.PutUint64(sec[i:], binary.LittleEndian.Uint64(sec[i:])+seed)
			binary.LittleEndian.PutUint64(sec[i+8:], binary.LittleEndian.Uint64(sec[i+8:])-seed)
		}
	}
	return hashLong(b, sec[:])
}

func le64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }

func le32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }

func sec64(i int) uint64 {
	s := defaultSecret[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func sec32(i int) uint32 {
	s := defaultSecret[i : i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

func mulFold64(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// avalanche is XXH3_avalanche.
func avalanche(h uint64) uint64 {
	h ^= h >> 37
	h *= primeMX1
	return h ^ h>>32
}

// xxh64Avalanche is XXH64_avalanche.
func xxh64Avalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= prime64_2
	h ^= h >> 29
	h *= prime64_3
	return h ^ h>>32
}

// rrmxmx is XXH3_rrmxmx.
func rrmxmx(h uint64, n int) uint64 {
	h ^= bits.RotateLeft64(h, 49) ^ bits.RotateLeft64(h, 24)
	h *= primeMX2
	h ^= (h >> 35) + uint64(n)
	h *= primeMX2
	return h ^ h>>28
}

func hashUpTo16(b []byte, seed uint64) uint64 {
	n := len(b)
	switch {
	case n > 8: // XXH3_len_9to16_64b
		flip1 := (sec64(24) ^ sec64(32)) + seed
		flip2 := (sec64(40) ^ sec64(48)) - seed
		lo := le64(b, 0) ^ flip1
		hi := le64(b, n-8) ^ flip2
		acc := uint64(n) + bits.ReverseBytes64(lo) + hi + mulFold64(lo, hi)
		return avalanche(acc)
	case n >= 4: // XXH3_len_4to8_64b
		seed ^= uint64(bits.ReverseBytes32(uint32(seed))) << 32
		in1, in2 := le32(b, 0), le32(b, n-4)
		flip := (sec64(8) ^ sec64(16)) - seed
		return rrmxmx((uint64(in2)+uint64(in1)<<32)^flip, n)
	case n > 0: // XXH3_len_1to3_64b
		c := uint32(b[0])<<16 | uint32(b[n>>1])<<24 | uint32(b[n-1]) | uint32(n)<<8
		flip := uint64(sec32(0)^sec32(4)) + seed
		return xxh64Avalanche(uint64(c) ^ flip)
	}
	return xxh64Avalanche(seed ^ sec64(56) ^ sec64(64))
}

// mix16 is XXH3_mix16B over the default secret at s.
func mix16(b []byte, i, s int, seed uint64) uint64 {
	return mulFold64(le64(b, i)^(sec64(s)+seed), le64(b, i+8)^(sec64(s+8)-seed))
}

func hash17to128(b []byte, seed uint64) uint64 {
	n := len(b)
	acc := uint64(n) * prime64_1
	if n > 32 {
		if n > 64 {
			if n > 96 {
				acc += mix16(b, 48, 96, seed)
				acc += mix16(b, n-64, 112, seed)
			}
			acc += mix16(b, 32, 64, seed)
			acc += mix16(b, n-48, 80, seed)
		}
		acc += mix16(b, 16, 32, seed)
		acc += mix16(b, n-32, 48, seed)
	}
	acc += mix16(b, 0, 0, seed)
	acc += mix16(b, n-16, 16, seed)
	return avalanche(acc)
}

func hash129to240(b []byte, seed uint64) uint64 {
	n := len(b)
	acc := uint64(n) * prime64_1
	for i := 0; i < 8; i++ {
		acc += mix16(b, 16*i, 16*i, seed)
	}
	acc = avalanche(acc)
	for i := 8; i < n/16; i++ {
		acc += mix16(b, 16*i, 16*(i-8)+3, seed) // XXH3_MIDSIZE_STARTOFFSET
	}
	acc += mix16(b, n-16, 136-17, seed) // XXH3_SECRET_SIZE_MIN - XXH3_MIDSIZE_LASTOFFSET
	return avalanche(acc)
}

// accumulate512 is XXH3_accumulate_512 (scalar) over one 64-byte stripe
// and 64 bytes of secret.
func accumulate512(acc *[8]uint64, in, sec []byte) {
	d := (*[stripeLen]byte)(in[:stripeLen])
	k := (*[stripeLen]byte)(sec[:stripeLen])
	for i := 0; i < 8; i++ {
		v := binary.LittleEndian.Uint64(d[8*i:])
		x := v ^ binary.LittleEndian.Uint64(k[8*i:])
		acc[i^1] += v
		acc[i] += uint64(uint32(x)) * (x >> 32)
	}
}

// scramble is XXH3_scrambleAcc (scalar).
func scramble(acc *[8]uint64, sec []byte) {
	k := (*[stripeLen]byte)(sec[:stripeLen])
	for i := 0; i < 8; i++ {
		a := acc[i]
		a ^= a >> 47
		a ^= binary.LittleEndian.Uint64(k[8*i:])
		acc[i] = a * prime32_1
	}
}

// hashLong is XXH3_hashLong_64b_internal over a 192-byte secret.
func hashLong(b, sec []byte) uint64 {
	n := len(b)
	acc := [8]uint64{prime32_3, prime64_1, prime64_2, prime64_3, prime64_4, prime32_2, prime64_5, prime32_1}
	blocks := (n - 1) / blockLen
	for bk := 0; bk < blocks; bk++ {
		base := bk * blockLen
		for s := 0; s < stripesPerBk; s++ {
			accumulate512(&acc, b[base+s*stripeLen:], sec[s*8:])
		}
		scramble(&acc, sec[secretSize-stripeLen:])
	}
	base := blocks * blockLen
	stripes := ((n - 1) - base) / stripeLen
	for s := 0; s < stripes; s++ {
		accumulate512(&acc, b[base+s*stripeLen:], sec[s*8:])
	}
	accumulate512(&acc, b[n-stripeLen:], sec[secretSize-stripeLen-7:]) // XXH_SECRET_LASTACC_START
	h := uint64(n) * prime64_1
	for i := 0; i < 4; i++ { // XXH3_mergeAccs from XXH_SECRET_MERGEACCS_START
		h += mulFold64(acc[2*i]^le64(sec, 11+16*i), acc[2*i+1]^le64(sec, 11+16*i+8))
	}
	return avalanche(h)
}
