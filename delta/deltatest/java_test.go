package deltatest

import (
	"slices"
	"testing"
)

// TestJavaRandom: java.util.Random's well-known first values
// (new Random(0).nextInt() = -1155484576, new Random(0).nextLong() =
// -4962768465676381896, new Random(42).nextInt() = -1170105035).
func TestJavaRandom(t *testing.T) {
	if got := newJavaRandom(0).next(32); got != -1155484576 {
		t.Fatalf("Random(0).nextInt() = %d", got)
	}
	if got := newJavaRandom(0).nextLong(); got != -4962768465676381896 {
		t.Fatalf("Random(0).nextLong() = %d", got)
	}
	if got := newJavaRandom(42).next(32); got != -1170105035 {
		t.Fatalf("Random(42).nextInt() = %d", got)
	}
	r := newJavaRandom(7)
	for range 1000 {
		if v := r.nextInt(7); v < 0 || v >= 7 {
			t.Fatalf("nextInt(7) = %d", v)
		}
	}
}

// TestJavaStringHash: String.hashCode.
func TestJavaStringHash(t *testing.T) {
	for s, want := range map[string]int32{"": 0, "a": 97, "abc": 96354, "hello world": 1794106052} {
		if got := javaStringHash(s); got != want {
			t.Errorf("%q.hashCode() = %d, want %d", s, got, want)
		}
	}
}

// TestHashOrder: small Integer keys iterate ascending in a 16-slot table;
// ids >= 16 iterate by id mod 16, ties in insertion order.
func TestHashOrder(t *testing.T) {
	got := hashOrder([]int32{17, 1, 33, 2, 16}, intHash, 16)
	if want := []int32{16, 17, 1, 33, 2}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

// TestStripedPlacement: the placer's structural guarantees
// (StripedReplicaPlacer): no broker twice in a partition, the leader
// unfenced, racks alternate, and leaders spread evenly.
func TestStripedPlacement(t *testing.T) {
	s := MustNew(Config{Seed: 3})
	if err := s.AddBrokers(6, "a", "b", "c"); err != nil {
		t.Fatal(err)
	}
	if err := s.RegisterBroker(BrokerSpec{ID: 7, Rack: "a"}); err != nil { // fenced
		t.Fatal(err)
	}
	a, err := placeReplicas(s.placeRnd, s.brokerCache(), 600, 3)
	if err != nil {
		t.Fatal(err)
	}
	leaders := map[int32]int{}
	for _, reps := range a {
		racks := map[string]bool{}
		for i, b := range reps {
			if slices.Contains(reps[:i], b) {
				t.Fatalf("broker %d twice in %v", b, reps)
			}
			r, _ := s.brokers[b].reg.Rack()
			racks[r] = true
		}
		if reps[0] == 7 {
			t.Fatalf("fenced broker leads %v", reps)
		}
		if len(racks) != 3 {
			t.Fatalf("replicas %v not spread over the three racks", reps)
		}
		leaders[reps[0]]++
	}
	for b, n := range leaders {
		if n < 80 || n > 120 {
			t.Errorf("broker %d leads %d of 600 partitions", b, n)
		}
	}
}
