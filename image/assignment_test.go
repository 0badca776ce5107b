package image

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kmeta-go/kmeta/record"
)

// TestSameAssignment: partitions built from the same lists, leader and
// directories are the same assignment with the same hash whatever their
// ids and epochs; changing any one of those makes them differ; and a
// partition whose ELR was cleared (its inline ids shrink) is the same as
// one built without ELR.
func TestSameAssignment(t *testing.T) {
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
				q.PartitionID, q.LeaderEpoch, q.PartitionEpoch, q.LeaderRecoveryState = 9, 4, 8, LeaderRecovering
				same := mustPartition(t, &q)
				if !p.SameAssignment(&same) || p.AssignmentHash() != same.AssignmentHash() {
					t.Fatalf("%v and %v: not the same assignment", &p, &same)
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
					d.LastKnownELR = append(slices.Clone(d.LastKnownELR), 7)
				}
				diff := mustPartition(t, &d)
				if p.SameAssignment(&diff) || diff.SameAssignment(&p) {
					t.Fatalf("%v and %v: the same assignment", &p, &diff)
				}
				cleared := p.WithoutELR()
				noELR := *pr
				noELR.EligibleLeaderReplicas, noELR.LastKnownELR = nil, nil
				want := mustPartition(t, &noELR)
				if !cleared.SameAssignment(&want) || cleared.AssignmentHash() != want.AssignmentHash() {
					t.Fatalf("%v without ELR is not %v", &cleared, &want)
				}
			}
		})
	}
}

func mustPartition(t *testing.T, r *record.PartitionRecord) PartitionRegistration {
	t.Helper()
	p, err := NewPartition(r)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
