package deltatest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// TopicSpec is one topic of a CreateTopics request.
type TopicSpec struct {
	Name string
	// Partitions and ReplicationFactor for automatic placement
	// (StripedReplicaPlacer); 0 means the controller's num.partitions /
	// default.replication.factor.
	Partitions        int
	ReplicationFactor int
	// Assignment, when set, gives the replicas of partitions 0..n-1 (a
	// manual assignment); Partitions and ReplicationFactor must then be 0.
	Assignment [][]int32
	// Configs are the topic's configs (all set at creation).
	Configs map[string]string
	// ID; zero means a random id (Uuid.randomUuid).
	ID record.UUID
}

// CreateTopic is CreateTopics with one topic (ReplicationControlManager
// .createTopic): TopicRecord, ConfigRecords (in Java HashMap
// order of their names), ClearElrRecord if ELR is on and min.insync.replicas
// is set, then PartitionRecords 0..n-1 with leader = first active replica,
// ISR = active replicas, epochs 0. Releases up to 3.3 wrote the configs
// before the TopicRecord. It returns the topic id.
func (s *Simulator) CreateTopic(spec TopicSpec) (record.UUID, error) {
	if err := validateTopicName(spec.Name); err != nil {
		return record.UUID{}, err
	}
	if _, ok := s.byName[spec.Name]; ok {
		return record.UUID{}, fmt.Errorf("%w: topic %q", ErrTopicExists, spec.Name)
	}
	if strings.ContainsAny(spec.Name, "._") {
		norm := strings.ReplaceAll(spec.Name, ".", "_")
		for name := range s.byName {
			if strings.ReplaceAll(name, ".", "_") == norm {
				return record.UUID{}, fmt.Errorf("%w: topic %q collides with existing topic %q", ErrInvalidTopic, spec.Name, name)
			}
		}
	}
	for k, v := range spec.Configs {
		if len(v) > 32767 {
			return record.UUID{}, fmt.Errorf("%w: value of %s is too long", ErrInvalidConfig, k)
		}
	}
	assignment, err := s.assign(spec.Assignment, 0, spec.Partitions, spec.ReplicationFactor)
	if err != nil {
		return record.UUID{}, err
	}
	id := spec.ID
	if id == (record.UUID{}) {
		id = randomUUID(s.idRnd)
	}
	if _, ok := s.topics[id]; ok {
		return record.UUID{}, fmt.Errorf("%w: topic id %s in use", ErrInvalidRequest, id)
	}
	recs := make([]image.VersionedRecord, 0, 2+len(spec.Configs)+len(assignment))
	s.partsHint = len(assignment)
	tr := record.NewTopicRecord()
	tr.Name, tr.TopicID = spec.Name, id
	if s.release >= Kafka34 {
		recs = append(recs, vr(tr, 0))
	}
	names := make([]string, 0, len(spec.Configs))
	for k := range spec.Configs {
		names = append(names, k)
	}
	slices.Sort(names) // a deterministic insertion order before hashing
	names = hashOrder(names, javaStringHash, 16)
	for _, k := range names {
		recs = append(recs, vr(configRecord(configTopic, spec.Name, k, ptr(spec.Configs[k])), 0))
	}
	if _, ok := spec.Configs["min.insync.replicas"]; ok && s.elrEnabled() {
		r := record.NewClearElrRecord()
		r.TopicName = spec.Name
		recs = append(recs, vr(r, 0))
	}
	if s.release < Kafka34 {
		recs = append(recs, vr(tr, 0))
	}
	recs = s.appendPartitionRecords(recs, id, 0, assignment, spec.Assignment == nil)
	if err := s.commit(recs, true); err != nil {
		return record.UUID{}, err
	}
	return id, nil
}

// MustCreateTopic is CreateTopic with automatic placement that panics on
// error, for tests and examples.
func (s *Simulator) MustCreateTopic(name string, partitions, rf int) record.UUID {
	id, err := s.CreateTopic(TopicSpec{Name: name, Partitions: partitions, ReplicationFactor: rf})
	if err != nil {
		panic(err)
	}
	return id
}

// appendPartitionRecords is buildPartitionRegistration for each assignment.
func (s *Simulator) appendPartitionRecords(recs []image.VersionedRecord, id record.UUID, start int, assignment [][]int32, auto bool) []image.VersionedRecord {
	v := s.mv.PartitionRecordVersion()
	prs := make([]record.PartitionRecord, len(assignment))
	n := 0
	for _, reps := range assignment {
		n += len(reps)
	}
	isrs := make([]int32, 0, n)
	var dirs []record.UUID
	if v >= 1 {
		dirs = make([]record.UUID, 0, n)
	}
	c := s.brokerCache()
	for i, reps := range assignment {
		r := &prs[i]
		r.Default()
		r.PartitionID, r.TopicID = int32(start+i), id
		r.Replicas = reps
		k := len(isrs)
		isrs = s.appendInitialISR(isrs, reps, auto)
		r.ISR = isrs[k:len(isrs):len(isrs)]
		r.RemovingReplicas, r.AddingReplicas = []int32{}, []int32{}
		r.Leader = r.ISR[0]
		r.LeaderEpoch, r.PartitionEpoch = 0, 0
		if v >= 1 {
			k := len(dirs)
			for _, b := range reps {
				d, ok := c.defaultDirs[b]
				if !ok {
					d = record.DirectoryUnassigned
				}
				dirs = append(dirs, d)
			}
			r.Directories = dirs[k:len(dirs):len(dirs)]
		}
		recs = append(recs, vr(r, v))
	}
	return recs
}

// initialISR: the active replicas in replica order (3.3+, KIP-841); 3.2 put
// every replica of an automatic placement in the ISR and filtered manual
// ones by "unfenced".
func (s *Simulator) initialISR(reps []int32, auto bool) []int32 {
	return s.appendInitialISR(make([]int32, 0, len(reps)), reps, auto)
}

func (s *Simulator) appendInitialISR(dst, reps []int32, auto bool) []int32 {
	if s.release < Kafka33 && auto {
		return append(dst, reps...)
	}
	for _, b := range reps {
		if s.isActive(b) {
			dst = append(dst, b)
		}
	}
	return dst
}

// assign validates a manual assignment or places count partitions
// (startPartition is the first new partition's index).
func (s *Simulator) assign(manual [][]int32, start, count, rf int) ([][]int32, error) {
	if manual != nil {
		if count != 0 || rf != 0 {
			return nil, fmt.Errorf("%w: a manual assignment excludes a partition count and replication factor", ErrInvalidRequest)
		}
		if len(manual) == 0 {
			return nil, fmt.Errorf("%w: empty assignment", ErrInvalidAssignment)
		}
		out := make([][]int32, len(manual))
		for i, reps := range manual {
			if len(reps) == 0 {
				return nil, fmt.Errorf("%w: partition %d has no replicas", ErrInvalidAssignment, start+i)
			}
			if len(reps) != len(manual[0]) {
				return nil, fmt.Errorf("%w: all partitions must have the same number of replicas", ErrInvalidAssignment)
			}
			for j, b := range reps {
				if s.brokers[b] == nil {
					return nil, fmt.Errorf("%w: broker %d of partition %d is not registered", ErrInvalidAssignment, b, start+i)
				}
				if slices.Contains(reps[:j], b) {
					return nil, fmt.Errorf("%w: duplicate replica %d in partition %d", ErrInvalidAssignment, b, start+i)
				}
			}
			if len(s.initialISR(reps, false)) == 0 {
				return nil, fmt.Errorf("%w: all brokers of partition %d are fenced or in controlled shutdown", ErrInvalidAssignment, start+i)
			}
			out[i] = slices.Clone(reps)
		}
		return out, nil
	}
	if count == 0 {
		count = max(s.cfg.NumPartitions, 1)
	}
	if rf == 0 {
		rf = max(s.cfg.DefaultReplicationFactor, 1)
	}
	if count < 0 {
		return nil, fmt.Errorf("%w: %d partitions", ErrInvalidPartitions, count)
	}
	if count > maxRecordsPerBatch && s.release >= Kafka40 {
		return nil, fmt.Errorf("%w: %d partitions exceed %d per request", ErrPolicyViolation, count, maxRecordsPerBatch)
	}
	out, err := placeReplicas(s.placeRnd, s.brokerCache(), count, rf)
	if err != nil {
		return nil, fmt.Errorf("%w: unable to replicate the partition %d time(s): %v", ErrInvalidReplication, rf, err)
	}
	for i, reps := range out {
		if len(s.initialISR(reps, true)) == 0 {
			return nil, fmt.Errorf("%w: all brokers of partition %d are currently fenced or in controlled shutdown", ErrInvalidReplication, start+i)
		}
	}
	return out, nil
}

func validateTopicName(name string) error {
	if name == "" || name == "." || name == ".." || len(name) > 249 {
		return fmt.Errorf("%w: topic name %q is illegal", ErrInvalidTopic, name)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("%w: topic name %q contains an illegal character", ErrInvalidTopic, name)
		}
	}
	return nil
}

// CreatePartitions grows a topic to count partitions
// (ReplicationControlManager.createPartitions): PartitionRecords
// for the new ids only. assignment, if non-nil, gives the replicas of the
// new partitions.
func (s *Simulator) CreatePartitions(name string, count int, assignment [][]int32) error {
	t, err := s.topicByName(name)
	if err != nil {
		return err
	}
	cur := t.numParts()
	switch {
	case count == cur:
		return fmt.Errorf("%w: topic already has %d partition(s)", ErrInvalidPartitions, cur)
	case count < cur:
		return fmt.Errorf("%w: the topic %s currently has %d partition(s); %d would not be an increase", ErrInvalidPartitions, name, cur, count)
	}
	rf := t.part(0).NumReplicas()
	var a [][]int32
	if assignment != nil {
		if len(assignment) != count-cur {
			return fmt.Errorf("%w: %d assignments for %d new partitions", ErrInvalidAssignment, len(assignment), count-cur)
		}
		for _, reps := range assignment {
			if len(reps) != rf {
				return fmt.Errorf("%w: the manual partition assignment includes a partition with %d replica(s), but this is not consistent with previous partitions, which have %d replica(s)", ErrInvalidAssignment, len(reps), rf)
			}
		}
		if a, err = s.assign(assignment, cur, 0, 0); err != nil {
			return err
		}
	} else if a, err = s.assign(nil, cur, count-cur, rf); err != nil {
		return err
	}
	return s.commit(s.appendPartitionRecords(nil, t.id, cur, a, assignment == nil), true)
}

// DeleteTopic is DeleteTopics with one topic: one
// RemoveTopicRecord; partitions and configs go with it.
func (s *Simulator) DeleteTopic(name string) error {
	t, err := s.topicByName(name)
	if err != nil {
		return err
	}
	r := record.NewRemoveTopicRecord()
	r.TopicID = t.id
	return s.commit([]image.VersionedRecord{vr(r, 0)}, true)
}
