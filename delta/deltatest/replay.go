package deltatest

import (
	"fmt"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// commit appends one operation's records (QuorumController.appendRecords):
// an atomic result is one batch of at most 10 000 records; a non-atomic one is
// cut into chunks of 10 000, one batch each. Every record is replayed into
// the controller state at its offset.
func (s *Simulator) commit(recs []image.VersionedRecord, atomic bool) error {
	s.last = nil
	if len(recs) == 0 {
		return nil
	}
	if atomic && len(recs) > maxRecordsPerBatch {
		return fmt.Errorf("%w: an atomic operation of %d records exceeds %d", ErrPolicyViolation, len(recs), maxRecordsPerBatch)
	}
	s.last = recs
	for len(recs) > 0 {
		n := min(len(recs), maxRecordsPerBatch)
		chunk := recs[:n:n]
		recs = recs[n:]
		b := record.Batch{BaseOffset: s.nextOffset, LeaderEpoch: s.raftEpoch, AppendTime: s.now, Records: chunk}
		for i, r := range chunk {
			if err := s.replay(r.Record, b.BaseOffset+int64(i)); err != nil {
				return fmt.Errorf("deltatest: own record at offset %d: %w", b.BaseOffset+int64(i), err)
			}
		}
		s.batches = append(s.batches, b)
		s.nextOffset += int64(n)
	}
	return nil
}

// replay applies one record to the controller state, as the controller's
// managers replay their own records (ClusterControlManager.replay,
// ReplicationControlManager.replay, ConfigurationControlManager.replay, ...).
// Records that only the image tracks (quotas, ACLs, SCRAM, tokens, markers)
// are left to the delta.
func (s *Simulator) replay(r record.Record, offset int64) error {
	switch r := r.(type) {
	case *record.FeatureLevelRecord:
		s.bc = nil
		return s.replayFeature(r)
	case *record.RegisterBrokerRecord, *record.UnregisterBrokerRecord, *record.FenceBrokerRecord,
		*record.UnfenceBrokerRecord, *record.BrokerRegistrationChangeRecord:
		s.bc = nil
		return s.replayBroker(r, offset)
	case *record.TopicRecord, *record.PartitionRecord, *record.PartitionChangeRecord, *record.RemoveTopicRecord:
		return s.replayTopic(r)
	case *record.ConfigRecord:
		s.replayConfig(r)
	case *record.ClearElrRecord:
		s.replayClearElr(r)
	case *record.ProducerIdsRecord:
		s.producerID = r.NextProducerID
	}
	return nil
}

// replayFeature is FeatureControlManager.replay.
func (s *Simulator) replayFeature(r *record.FeatureLevelRecord) error {
	if r.Name == "metadata.version" {
		mv, err := image.ParseMetadataVersionLevel(r.FeatureLevel)
		if err != nil {
			return err
		}
		s.mv = mv
	} else if r.FeatureLevel == 0 {
		delete(s.features, r.Name)
	} else {
		s.features[r.Name] = r.FeatureLevel
	}
	return nil
}

// replayBroker is ClusterControlManager.replay: registrations, fencing,
// controlled shutdown and directories.
func (s *Simulator) replayBroker(r record.Record, offset int64) error {
	switch r := r.(type) {
	case *record.RegisterBrokerRecord:
		reg, err := image.NewBroker(r)
		if err != nil {
			return err
		}
		b := s.brokers[r.BrokerID]
		if b == nil {
			b = &broker{}
			s.brokers[r.BrokerID] = b
		}
		b.reg, b.regOffset = reg, offset
	case *record.UnregisterBrokerRecord:
		delete(s.brokers, r.BrokerID)
	case *record.FenceBrokerRecord:
		if b := s.brokers[r.ID]; b != nil {
			b.reg = b.reg.WithFenced(true)
		}
	case *record.UnfenceBrokerRecord:
		if b := s.brokers[r.ID]; b != nil {
			b.reg = b.reg.WithFenced(false)
		}
	case *record.BrokerRegistrationChangeRecord:
		b := s.brokers[r.BrokerID]
		if b == nil {
			return fmt.Errorf("broker %d not registered", r.BrokerID)
		}
		switch r.Fenced {
		case 1:
			b.reg = b.reg.WithFenced(true)
		case -1:
			b.reg = b.reg.WithFenced(false)
		}
		if r.InControlledShutdown == 1 {
			b.reg = b.reg.WithInControlledShutdown(true)
		}
		if len(r.LogDirs) > 0 {
			b.reg = b.reg.WithDirectories(r.LogDirs)
		}
		if r.CordonedLogDirs != nil {
			b.reg = b.reg.WithCordonedDirectories(r.CordonedLogDirs)
		}
	}
	return nil
}

// replayTopic is ReplicationControlManager.replay: topics, partitions and
// their changes.
func (s *Simulator) replayTopic(r record.Record) error {
	switch r := r.(type) {
	case *record.TopicRecord:
		s.topics[r.TopicID] = &topic{id: r.TopicID, name: r.Name, parts: make([]image.PartitionRegistration, 0, s.partsHint)}
		s.lastTopic = nil
		s.byName[r.Name] = r.TopicID
		s.sorted = nil
	case *record.PartitionRecord:
		t := s.lastTopic
		if t == nil || t.id != r.TopicID {
			t = s.topics[r.TopicID]
			s.lastTopic = t
		}
		if t == nil {
			return fmt.Errorf("partition of unknown topic %s", r.TopicID)
		}
		if r.LeaderRecoveryState != image.LeaderRecovered && r.LeaderRecoveryState != image.LeaderRecovering {
			return fmt.Errorf("partition %d: leader recovery state %d", r.PartitionID, r.LeaderRecoveryState)
		}
		if len(r.Directories) > 0 && len(r.Directories) != len(r.Replicas) {
			return fmt.Errorf("partition %d: %d directories for %d replicas", r.PartitionID, len(r.Directories), len(r.Replicas))
		}
		switch {
		case int(r.PartitionID) == len(t.parts):
			t.parts = append(t.parts, image.PartitionRegistration{})
			if t.pending == nil {
				t.pending = make([]*record.PartitionRecord, len(t.parts)-1, cap(t.parts))
			}
			t.pending = append(t.pending, r)
		case r.PartitionID >= 0 && int(r.PartitionID) < len(t.parts):
			if t.pending == nil {
				t.pending = make([]*record.PartitionRecord, len(t.parts))
			}
			t.pending[r.PartitionID] = r
		default:
			return fmt.Errorf("partition %d of %s would leave a gap", r.PartitionID, t.name)
		}
	case *record.PartitionChangeRecord:
		t := s.topics[r.TopicID]
		if t == nil || r.PartitionID < 0 || int(r.PartitionID) >= len(t.parts) {
			return fmt.Errorf("change to unknown partition %s-%d", r.TopicID, r.PartitionID)
		}
		p, err := t.part(int(r.PartitionID)).Merge(r)
		if err != nil {
			return err
		}
		t.parts[r.PartitionID] = p
	case *record.RemoveTopicRecord:
		t := s.topics[r.TopicID]
		if t == nil {
			return fmt.Errorf("removal of unknown topic %s", r.TopicID)
		}
		delete(s.topics, r.TopicID)
		delete(s.byName, t.name)
		s.lastTopic = nil
		delete(s.configs, configKey{configTopic, t.name})
		s.sorted = nil
	}
	return nil
}

// replayConfig is ConfigurationControlManager.replay.
func (s *Simulator) replayConfig(r *record.ConfigRecord) {
	k := configKey{r.ResourceType, r.ResourceName}
	m := s.configs[k]
	if r.Value == nil {
		delete(m, r.Name)
		if len(m) == 0 {
			delete(s.configs, k)
		}
	} else {
		if m == nil {
			m = map[string]string{}
			s.configs[k] = m
		}
		m[r.Name] = *r.Value
	}
}

// replayClearElr is ReplicationControlManager.replay(ClearElrRecord): the
// ELR of every partition of the topic (of every topic for "") is cleared.
func (s *Simulator) replayClearElr(r *record.ClearElrRecord) {
	for _, t := range s.topics {
		if r.TopicName != "" && t.name != r.TopicName {
			continue
		}
		for i := range t.parts {
			if p := t.part(i); p.HasELR() {
				t.parts[i] = p.WithoutELR()
			}
		}
	}
}
