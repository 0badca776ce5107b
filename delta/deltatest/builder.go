package deltatest

import (
	"slices"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// election is PartitionChangeBuilder.Election.
type election int8

const (
	electionPreferred election = iota
	electionOnline
	electionUnclean
)

// changeBuilder is Kafka's PartitionChangeBuilder
// (controller/PartitionChangeBuilder): it
// turns a partition's registration and the targets a caller sets into the
// PartitionChangeRecord the controller writes, or none.
type changeBuilder struct {
	s        *Simulator
	p        *image.PartitionRegistration
	topicID  record.UUID
	accept   func(int32) bool
	minISR   int
	elr      bool // ELR enabled (FeatureControlManager.isElrFeatureEnabled)
	election election

	targetISR, targetReplicas, targetRemoving, targetAdding []int32
	targetELR, targetLastKnownELR                           []int32
	targetRecovery                                          int8
	targetDirs                                              map[int32]record.UUID
	uncleanShutdown                                         []int32
}

func (s *Simulator) newBuilder(t *topic, p *image.PartitionRegistration, accept func(int32) bool) *changeBuilder {
	b := &changeBuilder{
		s:              s,
		p:              p,
		topicID:        t.id,
		accept:         accept,
		minISR:         s.effectiveMinISR(t),
		elr:            s.elrEnabled(),
		election:       electionOnline,
		targetISR:      p.ISR(),
		targetReplicas: p.Replicas(),
		targetRemoving: p.RemovingReplicas(),
		targetAdding:   p.AddingReplicas(),
		targetELR:      p.ELR(),
		targetRecovery: p.LeaderRecoveryState(),
	}
	b.targetLastKnownELR = p.LastKnownELR()
	if s.uncleanEnabled(t) {
		b.election = electionUnclean
	}
	return b
}

func contains(l []int32, x int32) bool { return slices.Contains(l, x) }

func containsAll(l, sub []int32) bool {
	for _, x := range sub {
		if !contains(l, x) {
			return false
		}
	}
	return true
}

func without(l []int32, drop ...int32) []int32 {
	out := make([]int32, 0, len(l))
	for _, x := range l {
		if !contains(drop, x) {
			out = append(out, x)
		}
	}
	return out
}

func (b *changeBuilder) isValidLeader(r int32) bool {
	return (contains(b.targetISR, r) || (len(b.targetISR) == 0 && contains(b.targetELR, r))) && b.accept(r)
}

// canElectLastKnownLeader is PartitionChangeBuilder.canElectLastKnownLeader
// (KIP-966): ELR on, target ISR and ELR empty, exactly one last known
// leader, and that broker acceptable. The simulator also requires it to be
// a target replica: after a reassignment removed it, Kafka's acceptor would
// look up its directory (PartitionRegistration.directory) and throw, failing
// the whole operation; the simulator elects no one instead.
func (b *changeBuilder) canElectLastKnownLeader() bool {
	if !b.elr || len(b.targetELR) > 0 || len(b.targetISR) > 0 {
		return false
	}
	lk := b.p.LastKnownELR()
	return len(lk) == 1 && contains(b.targetReplicas, lk[0]) && b.accept(lk[0])
}

// electLeader is PartitionChangeBuilder.electLeader: the new leader and
// whether the election was unclean.
func (b *changeBuilder) electLeader() (int32, bool) {
	if b.election == electionPreferred {
		if len(b.targetReplicas) > 0 && b.isValidLeader(b.targetReplicas[0]) {
			return b.targetReplicas[0], false
		}
		if b.isValidLeader(b.p.Leader()) {
			return b.p.Leader(), false
		}
		if len(b.targetReplicas) > 1 {
			for _, r := range b.targetReplicas[1:] {
				if b.isValidLeader(r) {
					return r, false
				}
			}
		}
		if b.canElectLastKnownLeader() {
			return b.p.LastKnownELR()[0], true
		}
		return image.NoLeader, false
	}
	if b.isValidLeader(b.p.Leader()) {
		return b.p.Leader(), false
	}
	for _, r := range b.targetReplicas {
		if b.isValidLeader(r) {
			return r, false
		}
	}
	if b.canElectLastKnownLeader() {
		return b.p.LastKnownELR()[0], true
	}
	if b.election == electionUnclean {
		for _, r := range b.targetReplicas {
			if b.accept(r) {
				return r, true
			}
		}
	}
	return image.NoLeader, false
}

// completeReassignmentIfNeeded is PartitionReassignmentReplicas
// .maybeCompleteReassignment: 3.8 and later need every new replica in the
// ISR, earlier releases only the adding replicas.
func (b *changeBuilder) completeReassignmentIfNeeded() {
	if len(b.targetRemoving) == 0 && len(b.targetAdding) == 0 {
		return
	}
	isr := without(b.targetISR, b.targetRemoving...)
	if len(isr) == 0 {
		return
	}
	reps := without(b.targetReplicas, b.targetRemoving...)
	if len(reps) == 0 {
		return
	}
	if b.s.release >= Kafka38 {
		if !containsAll(isr, reps) {
			return
		}
	} else if !containsAll(isr, b.targetAdding) {
		return
	}
	b.targetISR, b.targetReplicas = isr, reps
	b.targetRemoving, b.targetAdding = []int32{}, []int32{}
}

// maybePopulateTargetELR is PartitionChangeBuilder.maybePopulateTargetElr;
// the candidate set iterates as Java's HashSet does (hashOrder).
func (b *changeBuilder) maybePopulateTargetELR() {
	if !b.elr {
		return
	}
	if len(b.targetISR) >= b.minISR {
		b.targetELR, b.targetLastKnownELR = []int32{}, []int32{}
		return
	}
	initial := len(b.targetELR)
	cand := slices.Clone(b.targetELR)
	for _, r := range b.p.ISR() {
		if !contains(cand, r) {
			cand = append(cand, r)
		}
	}
	ordered := hashOrder(cand, intHash, newHashSetCapacity(initial))
	var elr []int32
	for _, r := range ordered {
		if !contains(b.targetISR, r) && !contains(b.uncleanShutdown, r) {
			elr = append(elr, r)
		}
	}
	b.targetELR = orEmpty(elr)
	for _, r := range b.targetLastKnownELR {
		if !contains(cand, r) {
			cand = append(cand, r)
		}
	}
	ordered = hashOrder(cand, intHash, newHashSetCapacity(initial))
	var lk []int32
	for _, r := range ordered {
		if !contains(b.targetISR, r) && !contains(b.targetELR, r) {
			lk = append(lk, r)
		}
	}
	b.targetLastKnownELR = orEmpty(lk)
}

func orEmpty(l []int32) []int32 {
	if l == nil {
		return []int32{}
	}
	return l
}

// build is PartitionChangeBuilder.build: nil when nothing would change.
func (b *changeBuilder) build() *record.PartitionChangeRecord {
	rec := record.NewPartitionChangeRecord()
	rec.TopicID, rec.PartitionID = b.topicID, b.p.ID()

	b.completeReassignmentIfNeeded()
	b.maybePopulateTargetELR()
	b.tryElection(rec)
	b.triggerLeaderEpochBumpForReplicaReassignmentIfNeeded(rec)
	b.maybeUpdateRecordElrAndISR(rec)
	b.triggerLeaderEpochBumpForIsrShrinkIfNeeded(rec)
	b.maybeUpdateLastKnownLeader(rec)
	b.setAssignmentChanges(rec)
	if changeRecordIsNoOp(rec) {
		return nil
	}
	return rec
}

// tryElection elects a leader, from the ELR or uncleanly when allowed
// (PartitionChangeBuilder.tryElection).
func (b *changeBuilder) tryElection(rec *record.PartitionChangeRecord) {
	p := b.p
	node, unclean := b.electLeader()
	if node != p.Leader() {
		if contains(b.targetELR, node) {
			b.targetISR = []int32{node}
			b.targetELR = without(b.targetELR, node)
		}
		rec.Leader = node
		if unclean {
			rec.ISR = []int32{node}
			if p.LeaderRecoveryState() != image.LeaderRecovering && b.s.mv >= image.MV3_2_IV0 {
				rec.LeaderRecoveryState = image.LeaderRecovering
			}
		}
	}
}

// triggerLeaderEpochBumpForReplicaReassignmentIfNeeded bumps the leader
// epoch when a reassignment removes replicas (PartitionChangeBuilder).
func (b *changeBuilder) triggerLeaderEpochBumpForReplicaReassignmentIfNeeded(rec *record.PartitionChangeRecord) {
	p := b.p
	if rec.Leader == image.NoLeaderChange && !containsAll(b.targetReplicas, p.Replicas()) {
		rec.Leader = p.Leader()
	}
}

// maybeUpdateRecordElrAndISR writes the ELR and the ISR where they change
// (PartitionChangeBuilder.maybeUpdateRecordElr, then the ISR itself).
func (b *changeBuilder) maybeUpdateRecordElrAndISR(rec *record.PartitionChangeRecord) {
	p := b.p
	clean := rec.ISR == nil
	if !clean || !b.elr {
		b.targetELR, b.targetLastKnownELR = []int32{}, []int32{}
	}
	if !slices.Equal(b.targetELR, p.ELR()) {
		rec.EligibleLeaderReplicas = orEmpty(b.targetELR)
	}

	// the ISR itself
	if rec.ISR == nil && (len(b.targetISR) > 0 || b.elr) && !slices.Equal(b.targetISR, p.ISR()) {
		rec.ISR = orEmpty(b.targetISR)
	}
}

// triggerLeaderEpochBumpForIsrShrinkIfNeeded bumps the leader epoch on an
// ISR shrink (PartitionChangeBuilder), only below 3.6-IV0 (KAFKA-15021).
// Releases up to 3.7 compared the target ISR, so a partition whose ISR
// could not shrink (its last member leaving with ELR off) still got a
// {Leader: current} record; 3.8 compares the record's ISR.
func (b *changeBuilder) triggerLeaderEpochBumpForIsrShrinkIfNeeded(rec *record.PartitionChangeRecord) {
	p := b.p
	if b.s.mv < image.MV3_6_IV0 && rec.Leader == image.NoLeaderChange {
		if b.s.release <= Kafka37 {
			if !containsAll(b.targetISR, p.ISR()) {
				rec.Leader = p.Leader()
			}
		} else if rec.ISR != nil && !containsAll(rec.ISR, p.ISR()) {
			rec.Leader = p.Leader()
		}
	}
}

// maybeUpdateLastKnownLeader records the last known leader of a partition
// left without ISR (PartitionChangeBuilder.maybeUpdateLastKnownLeader;
// useLastKnownLeaderInBalancedRecovery is always true in production).
func (b *changeBuilder) maybeUpdateLastKnownLeader(rec *record.PartitionChangeRecord) {
	p := b.p
	if b.elr {
		lk := p.LastKnownELR()
		if rec.ISR != nil && len(rec.ISR) == 0 && (len(lk) != 1 || lk[0] != p.Leader()) {
			rec.LastKnownELR = []int32{p.Leader()}
		} else if (rec.Leader >= 0 || (p.Leader() != image.NoLeader && rec.Leader != image.NoLeader)) && len(lk) > 0 {
			rec.LastKnownELR = []int32{}
		}
	}
}

// setAssignmentChanges writes replicas, directories, adding and removing
// replicas and the leader recovery state where they change
// (PartitionChangeBuilder.setAssignmentChanges).
func (b *changeBuilder) setAssignmentChanges(rec *record.PartitionChangeRecord) {
	p := b.p
	if len(b.targetReplicas) > 0 {
		if b.s.mv.DirectoryAssignmentSupported() {
			dirs := make([]record.UUID, len(b.targetReplicas))
			for i, r := range b.targetReplicas {
				if d, ok := b.targetDirs[r]; ok {
					dirs[i] = d
				} else if d, ok := p.DirectoryOf(r); ok {
					dirs[i] = d
				} else {
					dirs[i] = b.s.defaultDir(r)
				}
			}
			if !slices.Equal(dirs, p.Directories()) {
				rec.Directories = dirs
			}
		}
		if !slices.Equal(b.targetReplicas, p.Replicas()) {
			rec.Replicas = b.targetReplicas
		}
	}
	if !slices.Equal(b.targetRemoving, p.RemovingReplicas()) {
		rec.RemovingReplicas = orEmpty(b.targetRemoving)
	}
	if !slices.Equal(b.targetAdding, p.AddingReplicas()) {
		rec.AddingReplicas = orEmpty(b.targetAdding)
	}
	if b.targetRecovery != p.LeaderRecoveryState() {
		rec.LeaderRecoveryState = b.targetRecovery
	}
}

// changeRecordIsNoOp reports whether rec changes nothing
// (PartitionChangeBuilder.changeRecordIsNoOp).
func changeRecordIsNoOp(rec *record.PartitionChangeRecord) bool {
	return rec.ISR == nil && rec.Leader == image.NoLeaderChange && rec.Replicas == nil &&
		rec.RemovingReplicas == nil && rec.AddingReplicas == nil && rec.LeaderRecoveryState == -1 &&
		rec.Directories == nil && rec.EligibleLeaderReplicas == nil && rec.LastKnownELR == nil
}
