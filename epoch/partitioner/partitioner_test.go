package partitioner

import (
	"fmt"
	"math"
	"testing"
)

// TestMurmur2MatchesKafka: the vectors of Kafka's
// org.apache.kafka.common.utils.UtilsTest.testMurmur2 (the Java test asserts
// the signed int Utils.murmur2 returns).
func TestMurmur2MatchesKafka(t *testing.T) {
	cases := []struct {
		key  string
		want int32
	}{
		{"21", -973932308},
		{"foobar", -790332482},
		{"a-little-bit-long-string", -985981536},
		{"a-little-bit-longer-string", -1486304829},
		{"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971},
		{"abc", 479470107},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			if got := Murmur2([]byte(c.key)); got != c.want {
				t.Fatalf("Murmur2(%q) = %d, want %d", c.key, got, c.want)
			}
			// BuiltInPartitioner.partitionForKey = toPositive(murmur2) % n.
			for _, n := range []int{1, 3, 6, 12, 100} {
				want := int32(int64(c.want&0x7fffffff) % int64(n))
				if got := ForKey([]byte(c.key), n); got != want {
					t.Fatalf("ForKey(%q, %d) = %d, want %d", c.key, n, got, want)
				}
			}
		})
	}
	if ForKey([]byte("x"), 0) != -1 {
		t.Fatal("zero partitions")
	}
}

// TestKeyMoves: doubling 6 → 12 moves the keys whose hash
// modulo 12 is 6 or more, about half of them; MovedFraction says so.
func TestKeyMoves(t *testing.T) {
	moved := 0
	const n = 20000
	for i := range n {
		key := []byte(fmt.Sprintf("customer-%d", i))
		from, to, m := KeyMove(key, 6, 12)
		if m != (from != to) || (to != from && to != from+6) {
			t.Fatalf("key %s: %d → %d moved %v", key, from, to, m)
		}
		if m {
			moved++
		}
	}
	got := float64(moved) / n
	if want := MovedFraction(6, 12); math.Abs(got-want) > 0.02 {
		t.Fatalf("moved fraction %.3f, MovedFraction %.3f", got, want)
	}
	if math.Abs(MovedFraction(6, 7)-6.0/7) > 1e-12 || MovedFraction(3, 3) != 0 {
		t.Fatal("MovedFraction")
	}
}

// BenchmarkKeyPartition: ForKey, murmur2 of a 16-byte key and the modulo.
func BenchmarkKeyPartition(b *testing.B) {
	key := []byte("customer-0000042")
	b.ReportAllocs()
	b.SetBytes(int64(len(key)))
	for b.Loop() {
		ForKey(key, 12)
	}
}
