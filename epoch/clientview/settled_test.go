package clientview

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// plainSettled is the settled-partition test written plainly, field by
// field and list by list: what settledRun's folded words and two-int32
// compares must agree with.
func plainSettled(p *Partition, ap *kmsg.MetadataResponseTopicPartition, i int) bool {
	return ap.Partition == int32(i) && p.flags == 0 && p.streakN == 0 && ap.ErrorCode == p.errorCode &&
		ap.Leader == p.leader && ap.LeaderEpoch == p.leaderEpoch && p.leaderEpoch == p.seenEpoch &&
		p.leader >= 0 && p.leaderEpoch >= 0 &&
		slices.Equal(ap.Replicas, p.replicas()) && slices.Equal(ap.ISR, p.isr()) &&
		slices.Equal(ap.OfflineReplicas, p.offline())
}

// randomList returns up to 6 broker ids (nil for none, as kmsg leaves an
// absent list).
func randomList(rng *rand.Rand) []int32 {
	n := rng.IntN(7)
	if n == 0 {
		return nil
	}
	l := make([]int32, n)
	for i := range l {
		l[i] = int32(rng.IntN(8))
	}
	return l
}

// settledCase returns n settled partitions and an answer describing each
// exactly; the lists of the view are one array, as Merge's fill makes them.
func settledCase(rng *rand.Rand, n int) ([]Partition, []kmsg.MetadataResponseTopicPartition) {
	parts := make([]Partition, n)
	aps := make([]kmsg.MetadataResponseTopicPartition, n)
	var all []int32
	for i := range parts {
		ap := &aps[i]
		ap.Partition, ap.Leader, ap.LeaderEpoch = int32(i), int32(rng.IntN(8)), int32(rng.IntN(4))
		if rng.IntN(4) == 0 {
			ap.ErrorCode = kafkaerr.ReplicaNotAvailable.Int16()
		}
		ap.Replicas, ap.ISR, ap.OfflineReplicas = randomList(rng), randomList(rng), randomList(rng)
		parts[i] = Partition{id: int32(i), leader: ap.Leader, leaderEpoch: ap.LeaderEpoch, seenEpoch: ap.LeaderEpoch,
			errorCode: ap.ErrorCode, nRep: uint16(len(ap.Replicas)), nISR: uint16(len(ap.ISR)),
			nOff: uint16(len(ap.OfflineReplicas))}
		all = append(all, ap.Replicas...)
		all = append(all, ap.ISR...)
		all = append(all, ap.OfflineReplicas...)
	}
	all = slices.Clip(all)
	off := 0
	for i := range parts {
		p := &parts[i]
		if k := int(p.nRep) + int(p.nISR) + int(p.nOff); k > 0 {
			p.lists = &all[off]
			off += k
		}
	}
	return parts, aps
}

// mutate changes one thing of partition k of the view or of its answer.
func mutate(rng *rand.Rand, p *Partition, ap *kmsg.MetadataResponseTopicPartition) {
	lists := []*[]int32{&ap.Replicas, &ap.ISR, &ap.OfflineReplicas}
	switch rng.IntN(12) {
	case 0:
		ap.Partition++
	case 1:
		ap.Leader++
	case 2:
		ap.LeaderEpoch++
	case 3:
		ap.ErrorCode = kafkaerr.NotLeaderOrFollower.Int16()
	case 4:
		p.flags = Flags(1) << rng.IntN(6)
	case 5:
		p.streakN = 1
	case 6:
		p.seenEpoch++
	case 7:
		p.leader, ap.Leader = -1, -1
	case 8:
		p.leaderEpoch, ap.LeaderEpoch = -1, -1
	case 9, 10:
		// One entry of one list, at any position (the first, the last of
		// an odd or even length).
		l := lists[rng.IntN(3)]
		if len(*l) == 0 {
			*l = []int32{int32(rng.IntN(8))}
			return
		}
		c := slices.Clone(*l)
		c[rng.IntN(len(c))] += 1 + int32(rng.IntN(3))
		*l = c
	case 11:
		// One list longer or shorter by one.
		l := lists[rng.IntN(3)]
		if len(*l) > 0 && rng.IntN(2) == 0 {
			*l = (*l)[:len(*l)-1]
		} else {
			*l = append(slices.Clone(*l), int32(rng.IntN(8)))
		}
	}
}

// TestSettledRunMatchesPlainCompareSeed1: on random settled topics with one
// partition changed (or none), settledRun stops exactly where the plain
// field-by-field test first fails, and unchangedBy agrees with it on every
// partition.
func TestSettledRunMatchesPlainCompareSeed1(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 0))
	for iter := range 20000 {
		n := 1 + rng.IntN(8)
		parts, aps := settledCase(rng, n)
		if rng.IntN(8) != 0 {
			k := rng.IntN(n)
			mutate(rng, &parts[k], &aps[k])
		}
		want := n
		for i := range parts {
			if !plainSettled(&parts[i], &aps[i], i) {
				want = i
				break
			}
		}
		if got := settledRun(parts, aps); got != want {
			t.Fatalf("iteration %d: settledRun = %d, plain compare = %d\nview %+v\nanswer %+v", iter, got, want, parts, aps)
		}
		for i := range parts {
			if got, want := parts[i].unchangedBy(&aps[i]), plainSettled(&parts[i], &aps[i], i); got != want {
				t.Fatalf("iteration %d partition %d: unchangedBy = %v, plain compare = %v", iter, i, got, want)
			}
		}
	}
}
