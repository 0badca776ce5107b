package partitioner_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/epoch/partitioner"
)

// Which keys change partition when "orders" grows from 6 to 12 partitions
// (scenario 3 of the project's scenarios).
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
