package answer

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// TestSameShape: partitions built from the same replicas, ISR, leader and
// directories have the same shape and hash whatever their ids, epochs,
// recovery state and ELR (none of which a Metadata partition entry of
// KRaftMetadataCache.partitionMetadata depends on); changing the leader,
// the replicas, the ISR or a directory makes them differ.
func TestSameShape(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 5))
			ids := func(n int) []int32 {
				l := []int32{}
				for range n {
					l = append(l, int32(r.IntN(6)))
				}
				return l
			}
			for range 2000 {
				pr := record.NewPartitionRecord()
				pr.Replicas, pr.ISR, pr.Leader = ids(1+r.IntN(4)), ids(r.IntN(4)), int32(r.IntN(7)-1)
				pr.EligibleLeaderReplicas, pr.LastKnownELR = ids(r.IntN(2)), ids(r.IntN(2))
				if r.IntN(3) == 0 {
					pr.Directories = nil
					for range pr.Replicas {
						pr.Directories = append(pr.Directories, record.UUID{3: byte(r.IntN(3))})
					}
				}
				p := mustPartition(t, pr)
				q := *pr
				q.PartitionID, q.LeaderEpoch, q.PartitionEpoch, q.LeaderRecoveryState = 9, 4, 8, image.LeaderRecovering
				q.EligibleLeaderReplicas, q.LastKnownELR = nil, ids(3)
				same := mustPartition(t, &q)
				if !sameShape(&p, &same) || shapeHash(&p) != shapeHash(&same) {
					t.Fatalf("%v and %v: not the same shape", &p, &same)
				}
				d := q
				switch r.IntN(4) {
				case 0:
					d.Leader++
				case 1:
					d.Replicas = append(slices.Clone(d.Replicas), 7)
					d.Directories = nil
				case 2:
					d.ISR = append(slices.Clone(d.ISR), 7)
				default:
					d.Directories = make([]record.UUID, len(d.Replicas))
					for i := range d.Directories {
						d.Directories[i] = record.UUID{3: 7, 15: byte(i)}
					}
				}
				diff := mustPartition(t, &d)
				if sameShape(&p, &diff) || sameShape(&diff, &p) {
					t.Fatalf("%v and %v: the same shape", &p, &diff)
				}
			}
		})
	}
}

func mustPartition(t *testing.T, r *record.PartitionRecord) image.Partition {
	t.Helper()
	p, err := image.NewPartition(r)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
