package partitioner_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/epoch/partitioner"
)

// Which keys change partition when "orders" grows from 6 to 12 partitions
// (CreatePartitions): per-key order holds only for the keys that stay.
func ExampleKeyMove() {
	for _, key := range []string{"customer-1", "customer-2", "customer-3"} {
		from, to, moved := partitioner.KeyMove([]byte(key), 6, 12)
		fmt.Println(key, from, "→", to, "moved:", moved)
	}
	fmt.Printf("share of keys that move: %.2f\n", partitioner.MovedFraction(6, 12))
	// Output:
	// customer-1 3 → 9 moved: true
	// customer-2 2 → 2 moved: false
	// customer-3 4 → 10 moved: true
	// share of keys that move: 0.50
}

// ForKey picks a key's partition as Kafka's producer does: the same key
// always lands on the same partition of a topic with the same count.
func ExampleForKey() {
	for _, key := range []string{"customer-1", "customer-2", "customer-1"} {
		fmt.Println(key, partitioner.ForKey([]byte(key), 6))
	}
	fmt.Println("no partitions:", partitioner.ForKey([]byte("customer-1"), 0))
	// Output:
	// customer-1 3
	// customer-2 2
	// customer-1 3
	// no partitions: -1
}

// Murmur2 is Kafka's Utils.murmur2; ToPositive clears the sign bit as
// Utils.toPositive does before the modulo.
func ExampleMurmur2() {
	h := partitioner.Murmur2([]byte("foobar"))
	fmt.Println(h, partitioner.ToPositive(h))
	// Output:
	// -790332482 1357151166
}
