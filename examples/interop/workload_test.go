package interop

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// msg is one keyed message of a workload: key k<i>, value "<key>:<seq>",
// seq counting up per key from 0.
type msg struct {
	Key string
	Seq int
}

func (m msg) value() string { return m.Key + ":" + strconv.Itoa(m.Seq) }

// consumed is one message as a consumer read it.
type consumed struct {
	Partition int32
	Offset    int64
	Key       string
	Value     string
}

// workload is N messages over K keys, produced in batches with a cluster
// change between batches.
func workload(n, keys int) []msg {
	seq := make([]int, keys)
	out := make([]msg, n)
	for i := range out {
		k := i % keys
		out[i] = msg{Key: "k" + strconv.Itoa(k), Seq: seq[k]}
		seq[k]++
	}
	return out
}

// chaosStep is one cluster change between two produced batches: leaders
// moved one by one (MoveTopicPartition) or all at once
// (ShufflePartitionLeaders), a node removed and added back with the same id
// on a new port, partitions added.
type chaosStep struct {
	name string
	do   func() error
}

func chaosSteps(t *testing.T, u *upstream, topic string, addPartitions func(total int) error) []chaosStep {
	return []chaosStep{
		{"move partition 0 to node 1", func() error { return u.MoveTopicPartition(topic, 0, 1) }},
		{"shuffle leaders", func() error { u.ShufflePartitionLeaders(); return nil }},
		// Not node 2: kfake's controller is its last node, and a removed
		// controller stays kfake's controller (CreatePartitions would then
		// be refused by every live node).
		{"remove node 0", func() error { return u.RemoveNode(0) }},
		{"move partition 1 to node 2", func() error { return u.MoveTopicPartition(topic, 1, 2) }},
		{"add node 0 back on a new port", func() error {
			_, _, err := u.AddNode(0, 0)
			return err
		}},
		{"add partitions (3 -> 5)", func() error { return addPartitions(5) }},
		{"shuffle leaders again", func() error { u.ShufflePartitionLeaders(); return nil }},
	}
}

// produceWithChaos produces msgs in len(steps)+1 batches with produce, and
// runs one chaos step after each batch but the last.
func produceWithChaos(t *testing.T, msgs []msg, steps []chaosStep, produce func([]msg) error) {
	t.Helper()
	nb := len(steps) + 1
	per := (len(msgs) + nb - 1) / nb
	start0 := time.Now()
	for b := 0; b < nb; b++ {
		lo, hi := b*per, min((b+1)*per, len(msgs))
		if lo < hi {
			start := time.Now()
			if err := produce(msgs[lo:hi]); err != nil {
				t.Fatalf("producing batch %d (messages %d-%d): %v", b, lo, hi, err)
			}
			t.Logf("batch %d: %d messages in %v", b, hi-lo, time.Since(start).Round(time.Millisecond))
		}
		if b < len(steps) {
			if err := steps[b].do(); err != nil {
				t.Fatalf("chaos step %q: %v", steps[b].name, err)
			}
			t.Logf("chaos: %s (%v)", steps[b].name, time.Since(start0).Round(time.Millisecond))
		}
	}
}

// checkConsumed checks that got holds every message of want exactly once
// and that, within each partition (so within each partition-count epoch of
// a key), every key's sequence numbers increase with the offset.
func checkConsumed(t *testing.T, who string, want []msg, got []consumed) {
	t.Helper()
	checkConsumedDup(t, who, want, got, false)
}

// checkConsumedDup is checkConsumed that, with allowDup, only logs
// duplicates (for a client whose producer is not idempotent).
func checkConsumedDup(t *testing.T, who string, want []msg, got []consumed, allowDup bool) {
	t.Helper()
	seen := map[string]int{}
	for _, c := range got {
		seen[c.Value]++
	}
	var lost, dup []string
	for _, m := range want {
		switch n := seen[m.value()]; {
		case n == 0:
			lost = append(lost, m.value())
		case n > 1:
			dup = append(dup, fmt.Sprintf("%s x%d", m.value(), n))
		}
		delete(seen, m.value())
	}
	var extra []string
	for v := range seen {
		extra = append(extra, v)
	}
	if allowDup && len(dup) > 0 {
		t.Logf("%s: %d duplicated (allowed: the producer is not idempotent): %v", who, len(dup), head(dup))
		dup = nil
	}
	if len(lost) > 0 || len(dup) > 0 || len(extra) > 0 {
		t.Errorf("%s: %d consumed of %d: lost %d %v, duplicated %d %v, unexpected %d %v", who, len(got), len(want),
			len(lost), head(lost), len(dup), head(dup), len(extra), head(extra))
	}
	byPart := map[int32][]consumed{}
	for _, c := range got {
		byPart[c.Partition] = append(byPart[c.Partition], c)
	}
	for p, cs := range byPart {
		slices.SortFunc(cs, func(a, b consumed) int { return int(a.Offset - b.Offset) })
		last := map[string]int{}
		for _, c := range cs {
			k, s, ok := strings.Cut(c.Value, ":")
			if !ok || k != c.Key {
				t.Errorf("%s: partition %d offset %d: value %q does not match key %q", who, p, c.Offset, c.Value, c.Key)
				continue
			}
			seq, _ := strconv.Atoi(s)
			if prev, ok := last[k]; ok && (seq < prev || seq == prev && !allowDup) {
				t.Errorf("%s: partition %d offset %d: key %s seq %d after %d: per-key order broken", who, p, c.Offset, k, seq, prev)
			}
			last[k] = seq
		}
	}
}

func head(s []string) []string {
	slices.Sort(s)
	return s[:min(len(s), 10)]
}
