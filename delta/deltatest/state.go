package deltatest

import (
	"fmt"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

func (s *Simulator) staticMinISR() int { return max(s.cfg.MinInSyncReplicas, 1) }

// resolveConfig is KafkaConfigSchema.resolveEffectiveTopicConfig for the
// controller: the topic's config, the controller node's dynamic config, the
// cluster default, then the controller's static value.
func (s *Simulator) resolveConfig(t *topic, key string) (string, bool) {
	if v, ok := s.configs[configKey{configTopic, t.name}][key]; ok {
		return v, true
	}
	if v, ok := s.configs[configKey{configBroker, fmt.Sprint(s.controller)}][key]; ok {
		return v, true
	}
	if v, ok := s.configs[configKey{configBroker, ""}][key]; ok {
		return v, true
	}
	return "", false
}

// effectiveMinISR is ReplicationControlManager.getTopicEffectiveMinIsr.
func (s *Simulator) effectiveMinISR(t *topic) int {
	m := s.staticMinISR()
	if v, ok := s.resolveConfig(t, "min.insync.replicas"); ok {
		var n int
		if _, err := fmt.Sscan(v, &n); err == nil {
			m = n
		}
	}
	if t.numParts() > 0 {
		m = min(m, t.part(0).NumReplicas())
	}
	return m
}

// uncleanEnabled is ConfigurationControlManager
// .uncleanLeaderElectionEnabledForTopic.
func (s *Simulator) uncleanEnabled(t *topic) bool {
	if v, ok := s.resolveConfig(t, "unclean.leader.election.enable"); ok {
		return v == "true"
	}
	return s.cfg.UncleanLeaderElection
}

// elrEnabled is FeatureControlManager.isElrFeatureEnabled.
func (s *Simulator) elrEnabled() bool {
	return s.mv.ELRSupported() && s.features[elrFeature] >= 1
}

// isActive is ClusterControlManager.isActive: registered, unfenced and not in
// controlled shutdown (3.2 had only "unfenced").
func (s *Simulator) isActive(id int32) bool {
	if c := s.brokerCache(); id >= 0 && int(id) < len(c.active) {
		return c.active[id]
	}
	return s.computeActive(id)
}

func (s *Simulator) computeActive(id int32) bool {
	b := s.brokers[id]
	if b == nil {
		return false
	}
	return !b.reg.Fenced() && (s.release < Kafka33 || !b.reg.InControlledShutdown())
}

// hasOnlineDir is ClusterControlManager.hasOnlineDir.
func (s *Simulator) hasOnlineDir(id int32, dir record.UUID) bool {
	b := s.brokers[id]
	return b != nil && b.reg.HasOnlineDir(dir)
}

// defaultDir is ClusterControlManager.defaultDir.
func (s *Simulator) defaultDir(id int32) record.UUID {
	if d, ok := s.brokerCache().defaultDirs[id]; ok {
		return d
	}
	return s.computeDefaultDir(id)
}

func (s *Simulator) computeDefaultDir(id int32) record.UUID {
	if !s.mv.DirectoryAssignmentSupported() {
		return record.DirectoryMigrating
	}
	b := s.brokers[id]
	if b == nil {
		return record.DirectoryUnassigned
	}
	switch dirs := b.reg.Directories(); len(dirs) {
	case 0:
		return record.DirectoryMigrating
	case 1:
		return dirs[0]
	}
	return record.DirectoryUnassigned
}

// leaderAcceptor is ReplicationControlManager.LeaderAcceptor with the base
// test of generateLeaderAndIsrUpdates.
func (s *Simulator) leaderAcceptor(p *image.PartitionRegistration, remove, add, unclean int32) func(int32) bool {
	return func(r int32) bool {
		if r == remove || r == unclean {
			return false
		}
		if r != add && !s.isActive(r) {
			return false
		}
		d, _ := p.DirectoryOf(r)
		return s.hasOnlineDir(r, d)
	}
}

// generateLeaderAndIsrUpdates is ReplicationControlManager
// .generateLeaderAndIsrUpdates over the partitions sel picks, in canonical
// order.
func (s *Simulator) generateLeaderAndIsrUpdates(remove, add, unclean int32, sel func(*image.PartitionRegistration) bool) []image.VersionedRecord {
	var out []image.VersionedRecord
	v := s.mv.PartitionRecordVersion()
	for _, id := range s.sortedTopics() {
		t := s.topics[id]
		for i := range t.parts {
			p := t.part(i)
			if !sel(p) {
				continue
			}
			b := s.newBuilder(t, p, s.leaderAcceptor(p, remove, add, unclean))
			if unclean >= 0 {
				b.uncleanShutdown = []int32{unclean}
			}
			b.targetISR = without(p.ISR(), remove, unclean)
			if rec := b.build(); rec != nil {
				out = append(out, vr(rec, v))
			}
		}
	}
	return out
}

func inISR(id int32) func(*image.PartitionRegistration) bool {
	return func(p *image.PartitionRegistration) bool { return p.InISR(id) }
}

func inELR(id int32) func(*image.PartitionRegistration) bool {
	return func(p *image.PartitionRegistration) bool { return contains(p.ELR(), id) }
}

func leaderless(p *image.PartitionRegistration) bool { return p.Leader() == image.NoLeader }

func (s *Simulator) topicByName(name string) (*topic, error) {
	id, ok := s.byName[name]
	if !ok {
		return nil, fmt.Errorf("%w: topic %q", ErrUnknownTopic, name)
	}
	return s.topics[id], nil
}

func (s *Simulator) partition(name string, part int32) (*topic, *image.PartitionRegistration, error) {
	t, err := s.topicByName(name)
	if err != nil {
		return nil, nil, err
	}
	if part < 0 || int(part) >= t.numParts() {
		return nil, nil, fmt.Errorf("%w: %s-%d", ErrUnknownTopic, name, part)
	}
	return t, t.part(int(part)), nil
}
