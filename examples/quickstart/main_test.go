package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestQuickstart(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(t.TempDir(), &out))
	require.Equal(t, `files read: [00000000000000000100-0000000001.checkpoint 00000000000000000100.log]
snapshot OffsetAndEpoch(offset=100, epoch=1): 3 brokers, 1 topics
offset 100: control batch (raft epoch 2)
offset 101: BROKER_REGISTRATION_CHANGE_RECORD
offset 102: PARTITION_CHANGE_RECORD
offset 103: PARTITION_CHANGE_RECORD
offset 104: PARTITION_CHANGE_RECORD
image at offset 104 (epoch 2)
  broker 1 broker-1:9092 fenced
  broker 2 broker-2:9092 alive
  broker 3 broker-3:9092 alive
  orders-0 leader 2 epoch 1 replicas [1 2 3] isr [2 3]
  orders-1 leader 2 epoch 0 replicas [2 3 1] isr [2 3]
  orders-2 leader 3 epoch 0 replicas [3 1 2] isr [3 2]
`, out.String())
}
