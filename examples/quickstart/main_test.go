package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestQuickstart runs the README's main example: its output is deterministic
// (the simulator is seeded) and it takes well under a second.
func TestQuickstart(t *testing.T) {
	var out bytes.Buffer
	start := time.Now()
	require.NoError(t, run(&out))
	t.Logf("quickstart ran in %v", time.Since(start))
	require.Equal(t, `== three brokers register and two topics are created
printer: its first update, the whole image, up to offset 24
  brokers registered [1 2 3]
  topic payments created with 3 partitions
  topic orders created with 6 partitions
== broker 2 crashes; the controller fences it after the 9 s session timeout
printer: a log delta, up to offset 34
  brokers fenced [2]
  payments-2 leader 2 -> 3, leader epoch 0 -> 1
  orders-1 leader 2 -> 3, leader epoch 0 -> 1
  orders-5 leader 2 -> 1, leader epoch 0 -> 1
== retention.ms of orders changes
printer: a log delta, up to offset 35
  orders retention.ms "" -> "3600000"
== orders grows from 6 to 12 partitions
printer: a log delta, up to offset 41
  orders grew from 6 to 12 partitions
== final leaders (image at offset 41)
orders leaders (partition:broker) 0:1 1:3 2:3 3:1 4:3 5:1 6:1 7:3 8:1 9:3 10:3 11:1
payments leaders (partition:broker) 0:3 1:1 2:3
`, out.String())
}
