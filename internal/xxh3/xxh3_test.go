package xxh3_test

import (
	"fmt"
	"testing"

	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
	"github.com/kmeta-go/kmeta/internal/xxh3"
)

type vector struct {
	Data       []byte `json:"data"`
	Hash       int64  `json:"hash"`
	Streamed   int64  `json:"streamed"`
	Seed       int64  `json:"seed"`
	SeededHash int64  `json:"seededHash"`
}

// TestHash4jVectors: every length from 0 to 320 and longer inputs (several
// 1024-byte blocks), with seed 0 and a random seed, equal hash4j 0.22.0's
// Hashing.xxh3_64() and xxh3_64(seed) (broker-xxh3 vectors; streamed in
// random pieces, hash4j gives the same value).
func TestHash4jVectors(t *testing.T) {
	lengths := map[int]bool{}
	kafkaoracle.Decode(t, "broker-xxh3", func(n int, v *vector) {
		lengths[len(v.Data)] = true
		if got := xxh3.Hash(v.Data); got != uint64(v.Hash) {
			t.Errorf("line %d: len %d: Hash %#x, hash4j %#x", n, len(v.Data), got, uint64(v.Hash))
		}
		if v.Streamed != v.Hash {
			t.Errorf("line %d: hash4j's stream %#x differs from its one-shot hash", n, v.Streamed)
		}
		if got := xxh3.HashSeed(v.Data, uint64(v.Seed)); got != uint64(v.SeededHash) {
			t.Errorf("line %d: len %d seed %d: HashSeed %#x, hash4j %#x", n, len(v.Data), v.Seed, got, uint64(v.SeededHash))
		}
	})
	for n := 0; n <= 320; n++ {
		if !lengths[n] {
			t.Errorf("no vector of length %d", n)
		}
	}
}

func ExampleHash() {
	fmt.Printf("%#x\n", xxh3.Hash(nil))
	// Output: 0x2d06800538d394c2
}

func BenchmarkHash(b *testing.B) {
	for _, n := range []int{8, 64, 200, 1024} {
		buf := make([]byte, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n))
			for b.Loop() {
				_ = xxh3.Hash(buf)
			}
		})
	}
}
