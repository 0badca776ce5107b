package deltatest

import (
	"fmt"
	"slices"

	"github.com/kmeta-go/kmeta/image"
)

// activeAcceptor is LeaderAcceptor with its default base: active and the
// replica's directory online.
func (s *Simulator) activeAcceptor(p *image.PartitionRegistration) func(int32) bool {
	return s.leaderAcceptor(p, -1, -1, -1)
}

// AlterPartition is an AlterPartition request from the partition's leader
// (ReplicationControlManager.alterPartition) proposing isr, with
// the leader reporting its recovery done (RECOVERED). The usual record
// carries Isr (plus Leader = current below 3.6-IV0 when the ISR shrinks, ELR
// changes, and the completion of a reassignment when the new ISR allows it).
func (s *Simulator) AlterPartition(topicName string, part int32, isr []int32) error {
	t, p, err := s.partition(topicName, part)
	if err != nil {
		return err
	}
	if p.Leader() == image.NoLeader {
		return fmt.Errorf("%w: %s-%d has no leader to send AlterPartition", ErrInvalidRequest, topicName, part)
	}
	if len(isr) == 0 || !slices.Contains(isr, p.Leader()) {
		return fmt.Errorf("%w: the proposed ISR %v does not hold the leader %d", ErrInvalidRequest, isr, p.Leader())
	}
	for i, r := range isr {
		if !p.HasReplica(r) || slices.Contains(isr[:i], r) {
			return fmt.Errorf("%w: the proposed ISR %v is not a duplicate-free subset of the replicas %v", ErrInvalidRequest, isr, p.Replicas())
		}
		if !s.isActive(r) {
			return fmt.Errorf("%w: replica %d of %s-%d is not registered, fenced or shutting down", ErrIneligibleReplica, r, topicName, part)
		}
	}
	b := s.newBuilder(t, p, s.activeAcceptor(p))
	b.targetISR = slices.Clone(isr)
	b.targetRecovery = image.LeaderRecovered
	return s.commitChange(b, false)
}

func (s *Simulator) commitChange(b *changeBuilder, atomic bool) error {
	rec := b.build()
	if rec == nil {
		s.last = nil
		return nil
	}
	return s.commit([]image.VersionedRecord{vr(rec, s.mv.PartitionRecordVersion())}, atomic)
}

// ExpandISR adds broker to a partition's ISR (the leader's AlterPartition
// once the follower has caught up).
func (s *Simulator) ExpandISR(topicName string, part int32, broker int32) error {
	_, p, err := s.partition(topicName, part)
	if err != nil {
		return err
	}
	if p.InISR(broker) {
		return nil
	}
	return s.AlterPartition(topicName, part, append(p.ISR(), broker))
}

// ShrinkISR removes broker from a partition's ISR (the leader's
// AlterPartition once the follower has fallen behind).
func (s *Simulator) ShrinkISR(topicName string, part int32, broker int32) error {
	_, p, err := s.partition(topicName, part)
	if err != nil {
		return err
	}
	if !p.InISR(broker) {
		return nil
	}
	return s.AlterPartition(topicName, part, without(p.ISR(), broker))
}

// Reassign starts (or changes) the reassignment of a partition to target
// (ReplicationControlManager.changePartitionReassignment):
// Replicas = target then the removed replicas, with RemovingReplicas and
// AddingReplicas sorted. The reassignment completes in the same record if
// the ISR already allows it, else through later AlterPartition requests
// (CompleteReassignment).
func (s *Simulator) Reassign(topicName string, part int32, target []int32) error {
	t, p, err := s.partition(topicName, part)
	if err != nil {
		return err
	}
	if len(target) == 0 {
		return fmt.Errorf("%w: empty target replica list", ErrInvalidAssignment)
	}
	for i, r := range target {
		if s.brokers[r] == nil {
			return fmt.Errorf("%w: broker %d is not registered", ErrInvalidAssignment, r)
		}
		if slices.Contains(target[:i], r) {
			return fmt.Errorf("%w: duplicate replica %d", ErrInvalidAssignment, r)
		}
	}
	cur := p.Replicas()
	var removing, adding []int32
	for _, r := range cur {
		if !slices.Contains(target, r) {
			removing = append(removing, r)
		}
	}
	for _, r := range target {
		if !slices.Contains(cur, r) {
			adding = append(adding, r)
		}
	}
	slices.Sort(removing)
	slices.Sort(adding)
	replicas := append(slices.Clone(target), removing...)
	b := s.newBuilder(t, p, s.activeAcceptor(p))
	b.election = electionOnline
	if !slices.Equal(replicas, cur) {
		b.targetReplicas = replicas
	}
	if len(removing) > 0 {
		b.targetRemoving = removing
	}
	if len(adding) > 0 {
		b.targetAdding = adding
	}
	return s.commitChange(b, true)
}

// CompleteReassignment drives an ongoing reassignment to its end the way the
// cluster does: the leader adds each new replica that has caught up to the
// ISR, one AlterPartition at a time, until PartitionChangeBuilder completes
// the reassignment. New replicas must be active.
func (s *Simulator) CompleteReassignment(topicName string, part int32) error {
	for range 64 {
		_, p, err := s.partition(topicName, part)
		if err != nil {
			return err
		}
		if len(p.AddingReplicas()) == 0 && len(p.RemovingReplicas()) == 0 {
			return nil
		}
		removing := p.RemovingReplicas()
		next := int32(-1)
		for _, r := range p.Replicas() {
			if !slices.Contains(removing, r) && !p.InISR(r) {
				next = r
				break
			}
		}
		if next < 0 {
			return fmt.Errorf("%w: reassignment of %s-%d cannot complete (the leader is being removed and no other replica can lead)", ErrInvalidRequest, topicName, part)
		}
		if err := s.ExpandISR(topicName, part, next); err != nil {
			return err
		}
	}
	return fmt.Errorf("%w: reassignment of %s-%d did not complete", ErrInvalidRequest, topicName, part)
}

// CancelReassignment reverts an ongoing reassignment
// (cancelPartitionReassignment, PartitionReassignmentRevert).
func (s *Simulator) CancelReassignment(topicName string, part int32) error {
	t, p, err := s.partition(topicName, part)
	if err != nil {
		return err
	}
	adding := p.AddingReplicas()
	if len(adding) == 0 && len(p.RemovingReplicas()) == 0 {
		return fmt.Errorf("%w: %s-%d", ErrNoReassignment, topicName, part)
	}
	replicas := without(p.Replicas(), adding...)
	isr := without(p.ISR(), adding...)
	if len(isr) == 0 {
		if !s.uncleanEnabled(t) {
			return fmt.Errorf("%w: reverting %s-%d would need an unclean election", ErrInvalidAssignment, topicName, part)
		}
		isr = []int32{replicas[0]}
	}
	b := s.newBuilder(t, p, s.activeAcceptor(p))
	b.targetISR, b.targetReplicas = isr, replicas
	b.targetRemoving, b.targetAdding = []int32{}, []int32{}
	return s.commitChange(b, true)
}

// ElectPreferredLeader is ElectLeaders with PREFERRED for one partition
// (ReplicationControlManager.electLeaders): ErrElectionNotNeeded when replicas[0] already leads,
// ErrLeaderNotAvailable when no record results.
func (s *Simulator) ElectPreferredLeader(topicName string, part int32) error {
	return s.electLeader(topicName, part, electionPreferred)
}

// ElectUncleanLeader is ElectLeaders with UNCLEAN for one leaderless
// partition: the first acceptable replica, ISR or not, becomes leader with
// ISR [it] and LeaderRecoveryState RECOVERING.
func (s *Simulator) ElectUncleanLeader(topicName string, part int32) error {
	return s.electLeader(topicName, part, electionUnclean)
}

func (s *Simulator) electLeader(topicName string, part int32, e election) error {
	t, p, err := s.partition(topicName, part)
	if err != nil {
		return err
	}
	if (e == electionPreferred && p.Leader() == p.Replica(0)) || (e == electionUnclean && p.Leader() != image.NoLeader) {
		return fmt.Errorf("%w: %s-%d", ErrElectionNotNeeded, topicName, part)
	}
	b := s.newBuilder(t, p, s.activeAcceptor(p))
	b.election = e
	rec := b.build()
	if rec == nil {
		return fmt.Errorf("%w: %s-%d", ErrLeaderNotAvailable, topicName, part)
	}
	return s.commit([]image.VersionedRecord{vr(rec, s.mv.PartitionRecordVersion())}, false)
}

// BalanceLeaders is the preferred-leader balancing task
// (QuorumController's electPreferred, auto.leader.rebalance.enable): a
// PREFERRED election for every partition whose leader is not its first
// replica, at most 1 000 records per operation.
func (s *Simulator) BalanceLeaders() error {
	var recs []image.VersionedRecord
	flush := func() error {
		err := s.commit(recs, false)
		recs = nil
		return err
	}
	for _, id := range s.sortedTopics() {
		t := s.topics[id]
		for i := range t.parts {
			p := t.part(i)
			if p.Leader() == p.Replica(0) {
				continue
			}
			b := s.newBuilder(t, p, s.activeAcceptor(p))
			b.election = electionPreferred
			if rec := b.build(); rec != nil {
				recs = append(recs, vr(rec, s.mv.PartitionRecordVersion()))
			}
			if len(recs) == 1000 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}
