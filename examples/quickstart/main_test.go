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
	require.Equal(t, `== three brokers register; orders, payments and __consumer_offsets are created
printer: its first update, the whole image, up to offset 28
  brokers registered [1 2 3]
  topic payments created with 3 partitions
  topic orders created with 6 partitions
  topic __consumer_offsets created with 3 partitions
  config <cluster default> min.insync.replicas = "1"
== broker 2 crashes; the controller fences it after the 9 s session timeout
printer: a log delta, up to offset 41
  brokers fenced [2]
  payments-2 leader 2 -> 3, leader epoch 0 -> 1
  orders-1 leader 2 -> 3, leader epoch 0 -> 1
  orders-5 leader 2 -> 1, leader epoch 0 -> 1
  __consumer_offsets-2 leader 2 -> 3, leader epoch 0 -> 1
  broker 1 is elected leader of orders-5
  broker 1 (re)starts fetching __consumer_offsets-2 orders-1 payments-2
  broker 1's group coordinator resigns __consumer_offsets-0 at epoch 0, resigns __consumer_offsets-2 at epoch 1
== retention.ms of orders changes
printer: a log delta, up to offset 42
  config orders retention.ms = "3600000"
== a produce quota for user alice
printer: a log delta, up to offset 43
  client quota user=alice: [producer_byte_rate] set
== orders grows from 6 to 12 partitions
printer: a log delta, up to offset 49
  orders grew from 6 to 12 partitions
  broker 1 is elected leader of orders-7 orders-8 orders-11
  broker 1 (re)starts fetching orders-6 orders-9 orders-10
== final leaders (image at offset 49)
orders leaders (partition:broker) 0:1 1:3 2:3 3:1 4:3 5:1 6:3 7:1 8:1 9:3 10:3 11:1
payments leaders (partition:broker) 0:3 1:1 2:3
`, out.String())
}
