package image

import "github.com/kmeta-go/kmeta/record"

// Partition is one partition of a topic in an image, Kafka's
// PartitionRegistration as the image holds it: a handle, one pointer wide,
// to the image's own partition, which is never modified. Copy it and keep
// it freely: it allocates nothing, stays valid forever and keeps its
// topic's block alive (see Topic). The zero Partition is "no partition"
// (lookups return it with false); its methods panic.
//
// A Partition reads what a PartitionRegistration value reads, through the
// same methods; Merge and WithoutELR return the changed partition as a
// PartitionRegistration value, and Registration copies the value out (to
// put it in a TopicBuilder, say). Nothing in a Partition can be changed:
// its field is unexported and no method writes.
type Partition struct{ p *PartitionRegistration }

// IsZero reports whether p is the zero Partition, the "no partition" a
// lookup that fails returns.
func (p Partition) IsZero() bool { return p.p == nil }

// Registration returns a copy of the partition, a value the caller owns.
// Its id lists still point into the image's memory, which they keep alive.
func (p Partition) Registration() PartitionRegistration { return *p.p }

// ID is the partition index.
func (p Partition) ID() int32 { return p.p.ID() }

// Leader is the leader's broker id, or NoLeader (-1).
func (p Partition) Leader() int32 { return p.p.Leader() }

// LeaderEpoch is the leader epoch (bumped on every leader change).
func (p Partition) LeaderEpoch() int32 { return p.p.LeaderEpoch() }

// PartitionEpoch is the partition epoch (bumped on every change).
func (p Partition) PartitionEpoch() int32 { return p.p.PartitionEpoch() }

// LeaderRecoveryState is 0 (RECOVERED) or 1 (RECOVERING), KIP-704.
func (p Partition) LeaderRecoveryState() int8 { return p.p.LeaderRecoveryState() }

// HasLeader reports whether the partition has a leader.
func (p Partition) HasLeader() bool { return p.p.HasLeader() }

// NumReplicas is the replication factor (the length of the replica list).
func (p Partition) NumReplicas() int { return p.p.NumReplicas() }

// Replica returns the i-th replica in preferred order.
func (p Partition) Replica(i int) int32 { return p.p.Replica(i) }

// AppendReplicas appends the replicas, in preferred order, to dst.
func (p Partition) AppendReplicas(dst []int32) []int32 { return p.p.AppendReplicas(dst) }

// Replicas returns a copy of the replica list.
func (p Partition) Replicas() []int32 { return p.p.Replicas() }

// HasReplica reports whether broker is one of the replicas.
func (p Partition) HasReplica(broker int32) bool { return p.p.HasReplica(broker) }

// NumISR is the size of the in-sync replica set.
func (p Partition) NumISR() int { return p.p.NumISR() }

// ISRMember returns the i-th in-sync replica.
func (p Partition) ISRMember(i int) int32 { return p.p.ISRMember(i) }

// AppendISR appends the in-sync replicas to dst.
func (p Partition) AppendISR(dst []int32) []int32 { return p.p.AppendISR(dst) }

// ISR returns a copy of the in-sync replica list.
func (p Partition) ISR() []int32 { return p.p.ISR() }

// InISR reports whether broker is in the ISR.
func (p Partition) InISR(broker int32) bool { return p.p.InISR(broker) }

// AppendRemovingReplicas appends the replicas being removed by a reassignment.
func (p Partition) AppendRemovingReplicas(dst []int32) []int32 {
	return p.p.AppendRemovingReplicas(dst)
}

// RemovingReplicas returns a copy of the replicas being removed.
func (p Partition) RemovingReplicas() []int32 { return p.p.RemovingReplicas() }

// AppendAddingReplicas appends the replicas being added by a reassignment.
func (p Partition) AppendAddingReplicas(dst []int32) []int32 { return p.p.AppendAddingReplicas(dst) }

// AddingReplicas returns a copy of the replicas being added.
func (p Partition) AddingReplicas() []int32 { return p.p.AddingReplicas() }

// AppendELR appends the eligible leader replicas (KIP-966).
func (p Partition) AppendELR(dst []int32) []int32 { return p.p.AppendELR(dst) }

// ELR returns a copy of the eligible leader replicas (empty, never nil).
func (p Partition) ELR() []int32 { return p.p.ELR() }

// AppendLastKnownELR appends the last known eligible leader replicas.
func (p Partition) AppendLastKnownELR(dst []int32) []int32 { return p.p.AppendLastKnownELR(dst) }

// LastKnownELR returns a copy of the last known ELR (empty, never nil).
func (p Partition) LastKnownELR() []int32 { return p.p.LastKnownELR() }

// Directory returns the log directory of the i-th replica; DirectoryMigrating
// for every replica of a partition assigned before KIP-858.
func (p Partition) Directory(i int) record.UUID { return p.p.Directory(i) }

// DirectoryOf returns the directory of broker's replica, and false when broker
// is not a replica (PartitionRegistration.directory).
func (p Partition) DirectoryOf(broker int32) (record.UUID, bool) { return p.p.DirectoryOf(broker) }

// AppendDirectories appends one directory per replica to dst.
func (p Partition) AppendDirectories(dst []record.UUID) []record.UUID {
	return p.p.AppendDirectories(dst)
}

// Directories returns a copy of the replica directories.
func (p Partition) Directories() []record.UUID { return p.p.Directories() }

// AllDirectoriesMigrating reports whether every replica's directory is
// MIGRATING (no KIP-858 assignment).
func (p Partition) AllDirectoriesMigrating() bool { return p.p.AllDirectoriesMigrating() }

// Equal reports whether p and q hold the same registration (the fields of
// PartitionRegistration.equals plus the partition id).
func (p Partition) Equal(q Partition) bool { return p.p.Equal(q.p) }

// String is Java's PartitionRegistration.toString, so that kmeta's view can
// be compared with Kafka's image printers.
func (p Partition) String() string { return p.p.String() }

// Merge returns the registration p becomes after a PartitionChangeRecord,
// as PartitionRegistration.Merge does (Kafka's PartitionRegistration.merge).
// p is not modified.
func (p Partition) Merge(r *record.PartitionChangeRecord) (PartitionRegistration, error) {
	return p.p.Merge(r)
}

// HasELR reports whether the ELR or the last known ELR is non-empty.
func (p Partition) HasELR() bool { return p.p.HasELR() }

// WithoutELR returns p with both ELR lists emptied and the partition epoch
// bumped: the merge of the synthetic change record that Kafka's
// TopicDelta.clearElrs replays for ClearElrRecord.
func (p Partition) WithoutELR() PartitionRegistration { return p.p.WithoutELR() }

// Record returns the PartitionRecord that writes p back (the fields of
// PartitionRegistration.toRecord; ELR lists only when non-empty and withELR,
// directories only when withDirs).
func (p Partition) Record(topicID record.UUID, withELR, withDirs bool) *record.PartitionRecord {
	return p.p.Record(topicID, withELR, withDirs)
}

// SameAssignment reports whether p and q have the same replicas, ISR,
// reassignment lists, ELR, last known ELR, replica directories and leader:
// everything Equal compares but the partition id, the epochs and the leader
// recovery state. Every per-partition field of a Metadata answer other than
// the id and the leader epoch depends only on these (and on the brokers),
// so an answer computes them once per distinct assignment
// (KRaftMetadataCache computes them for every partition).
func (p Partition) SameAssignment(q Partition) bool { return p.p.SameAssignment(q.p) }

// AssignmentHash is a hash of what SameAssignment compares: partitions it
// reports the same have the same hash.
func (p Partition) AssignmentHash() uint32 { return p.p.AssignmentHash() }
