package deltatest

import (
	"fmt"
	"slices"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// FailLogDir is the heartbeat of broker id reporting dir offline
// (ReplicationControlManager.handleDirectoriesOffline, KIP-858): every
// partition with the broker's replica in dir loses the broker from its ISR
// and leadership (generateLeaderAndIsrUpdates), then a
// BrokerRegistrationChangeRecord v2 lists the directories left online. A
// directory the registration does not hold online writes nothing. Kafka's
// broker halts when its last directory fails, so failing the last one is
// refused with ErrInvalidRequest, as it is below metadata.version 3.7-IV2
// (no directory assignment).
func (s *Simulator) FailLogDir(id int32, dir record.UUID) error {
	b, err := s.registered(id)
	if err != nil {
		return err
	}
	if !s.mv.DirectoryAssignmentSupported() {
		return fmt.Errorf("%w: log directory failures need metadata.version 3.7-IV2", ErrInvalidRequest)
	}
	dirs := b.reg.Directories()
	if !slices.Contains(dirs, dir) {
		return nil
	}
	left := slices.DeleteFunc(slices.Clone(dirs), func(d record.UUID) bool { return d == dir })
	if len(left) == 0 {
		return fmt.Errorf("%w: broker %d would have no online log directory", ErrInvalidRequest, id)
	}
	recs := s.generateLeaderAndIsrUpdates(id, -1, -1, func(p *image.PartitionRegistration) bool {
		d, ok := p.DirectoryOf(id)
		return ok && d == dir
	})
	r := record.NewBrokerRegistrationChangeRecord()
	r.BrokerID, r.BrokerEpoch, r.LogDirs = id, b.reg.Epoch(), left
	recs = append(recs, vr(r, 2))
	return s.commit(recs, false)
}

// AssignReplicaToDir is the AssignReplicasToDirs request of broker id
// placing its replica of topicName-part in dir
// (ReplicationControlManager.handleAssignReplicasToDirs): a
// PartitionChangeRecord setting the directory (PartitionChangeBuilder
// .setDirectory), none when it is already there; when dir is not one of the
// broker's online directories, the broker then leaves the partition's ISR
// and leadership ("offline-dir-assignment"). The broker must hold a replica
// (ErrInvalidRequest: NOT_LEADER_OR_FOLLOWER).
func (s *Simulator) AssignReplicaToDir(topicName string, part, id int32, dir record.UUID) error {
	b, err := s.registered(id)
	if err != nil {
		return err
	}
	if !s.mv.DirectoryAssignmentSupported() {
		return fmt.Errorf("%w: directory assignment needs metadata.version 3.7-IV2", ErrInvalidRequest)
	}
	t, err := s.topicByName(topicName)
	if err != nil {
		return err
	}
	if int(part) < 0 || int(part) >= t.numParts() {
		return fmt.Errorf("%w: %s-%d", ErrUnknownTopic, topicName, part)
	}
	p := t.part(int(part))
	if !p.HasReplica(id) {
		return fmt.Errorf("%w: broker %d holds no replica of %s-%d", ErrInvalidRequest, id, topicName, part)
	}
	cb := s.newBuilder(t, p, s.activeAcceptor(p))
	cb.targetDirs = map[int32]record.UUID{id: dir}
	var recs []image.VersionedRecord
	if rec := cb.build(); rec != nil {
		recs = append(recs, vr(rec, s.mv.PartitionRecordVersion()))
	}
	if !b.reg.HasOnlineDir(dir) {
		// Built, as Kafka builds both, from the registration before either
		// record is replayed; one result, one batch.
		recs = append(recs, s.generateLeaderAndIsrUpdates(id, -1, -1, func(q *image.PartitionRegistration) bool { return q == p })...)
	}
	return s.commit(recs, false)
}
