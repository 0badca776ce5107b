package deltatest

import (
	"fmt"
	"slices"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// uuidHash is Kafka's Uuid.hashCode.
func uuidHash(u record.UUID) int32 {
	h := u.MostSignificantBits() ^ u.LeastSignificantBits()
	return int32(h>>32) ^ int32(h)
}

// javaSetOrder is the order in which Kafka's broker sends a set of directory
// ids: BrokerLifecycleManager keeps its cordoned directories in a HashSet
// (Collectors.toSet) and heartbeats List.copyOf of it. The result is never
// nil.
func javaSetOrder(dirs []record.UUID) []record.UUID {
	var uniq []record.UUID
	for _, d := range dirs {
		if !slices.Contains(uniq, d) {
			uniq = append(uniq, d)
		}
	}
	return append([]record.UUID{}, hashOrder(uniq, uuidHash, 16)...)
}

// cordonRecord is ReplicationControlManager.handleDirectoriesCordoned for a
// heartbeat of b (MV >= 4.3-IV0; a broker that has caught up always sends
// its list): a BrokerRegistrationChangeRecord v3 with only BrokerId,
// BrokerEpoch and CordonedLogDirs, when BrokerRegistration.cordonedDirChanged.
func (s *Simulator) cordonRecord(b *broker) (image.VersionedRecord, bool) {
	if !s.mv.CordonedLogDirsSupported() {
		return image.VersionedRecord{}, false
	}
	reported := append([]record.UUID{}, b.cordoned...)
	if !b.reg.CordonedDirChanged(reported) {
		return image.VersionedRecord{}, false
	}
	r := record.NewBrokerRegistrationChangeRecord()
	r.BrokerID, r.BrokerEpoch, r.CordonedLogDirs = b.reg.ID(), b.reg.Epoch(), reported
	return vr(r, 3), true
}

// reportCordoned is the part of an unfenced broker's heartbeat that reports
// its cordoned log directories; it writes nothing when they did not change.
func (s *Simulator) reportCordoned(b *broker) error {
	if c, ok := s.cordonRecord(b); ok {
		return s.commit([]image.VersionedRecord{c}, false)
	}
	s.last = nil
	return nil
}

// CordonLogDirs cordons log directories of a broker (KIP-1066): the
// operator adds them to the broker's cordoned.log.dirs, the broker puts them
// in its cordoned set (BrokerLifecycleManager.propagateDirectoryCordoned)
// and its next heartbeat, sent now, reports the set: a
// BrokerRegistrationChangeRecord v3 with the whole list, in the order Kafka's
// broker sends it. The controller then places no new replica on a broker
// whose every directory is cordoned (BrokerRegistration.hasUncordonedDirs).
// Each directory must be one of the broker's; below 4.3-IV0 this is
// ErrUnsupportedVersion (ConfigurationControlManager refuses
// cordoned.log.dirs there). The ConfigRecord of the dynamic config itself is
// not written; SetBrokerConfig-style operations do that when a test needs it.
func (s *Simulator) CordonLogDirs(id int32, dirs ...record.UUID) error {
	return s.changeCordoned(id, dirs, true)
}

// UncordonLogDirs removes log directories from a broker's cordoned set and
// reports the rest in a heartbeat sent now, as CordonLogDirs does; an empty
// set is reported as an empty list (the registration then has none
// cordoned, which is not the same as never reported).
func (s *Simulator) UncordonLogDirs(id int32, dirs ...record.UUID) error {
	return s.changeCordoned(id, dirs, false)
}

func (s *Simulator) changeCordoned(id int32, dirs []record.UUID, cordon bool) error {
	b, err := s.registered(id)
	if err != nil {
		return err
	}
	if !s.mv.CordonedLogDirsSupported() {
		return fmt.Errorf("%w: cordoned.log.dirs requires metadata.version >= 4.3-IV0, not %s", ErrUnsupportedVersion, s.mv)
	}
	owned := b.reg.Directories()
	for _, d := range dirs {
		if !slices.Contains(owned, d) {
			return fmt.Errorf("%w: %s is not a log directory of broker %d", ErrInvalidRequest, d, id)
		}
	}
	var next []record.UUID
	if cordon {
		next = append(slices.Clone(b.cordoned), dirs...)
	} else {
		for _, d := range b.cordoned {
			if !slices.Contains(dirs, d) {
				next = append(next, d)
			}
		}
	}
	b.cordoned = javaSetOrder(next)
	if !b.alive {
		s.last = nil
		return nil // reported by the broker's next heartbeat
	}
	return s.Heartbeat(id)
}
