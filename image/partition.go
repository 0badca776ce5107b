package image

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/kmeta-go/kmeta/record"
)

// Sentinels of Kafka's LeaderConstants and LeaderRecoveryState.
const (
	// NoLeader is the leader of a partition that has none (LeaderConstants.NO_LEADER).
	NoLeader int32 = -1
	// NoLeaderChange is PartitionChangeRecord.Leader's "unchanged" value
	// (LeaderConstants.NO_LEADER_CHANGE).
	NoLeaderChange int32 = -2
	// LeaderRecovered and LeaderRecovering are LeaderRecoveryState values (KIP-704).
	LeaderRecovered  int8 = 0
	LeaderRecovering int8 = 1
	// noRecoveryStateChange is PartitionChangeRecord.LeaderRecoveryState's
	// "unchanged" value.
	noRecoveryStateChange int8 = -1
)

// The id lists of a partition, in the order they sit in its backing array.
const (
	listReplicas = iota
	listISR
	listRemoving
	listAdding
	listELR
	listLastKnownELR
	numLists
)

// inlineIDs is how many ids a Partition holds in its own struct: replicas
// and ISR of replication factor 3. Partitions whose lists fit there hold no
// pointer at all, which keeps an image of a million partitions cheap for the
// garbage collector to mark and saves an allocation per partition.
const inlineIDs = 6

// PartitionRegistration is one partition of a topic as a value, Kafka's
// PartitionRegistration: what NewPartition builds, Merge and WithoutELR
// derive, and a TopicBuilder takes. An image hands out its partitions as
// Partition handles; Partition.Registration copies one out as a value.
//
// It is a compact, read-only value: every id list lives in one array
// (replicas, ISR, removing, adding, ELR, last known ELR, then the replica
// directories as four int32 words each when any is not MIGRATING), held in
// the struct itself when it has at most six ids and in a backing array
// otherwise. Nothing in a PartitionRegistration can be changed through its
// methods; lists are read with the indexed accessors (Replica(i),
// NumReplicas()), appended to a caller's slice (AppendReplicas), or copied
// (Replicas). A value is the caller's own: assigning one over another
// changes only the caller's memory.
type PartitionRegistration struct {
	ids            []int32          // the lists when they do not fit in inline, else nil
	_              [wordPad]byte    // 32-bit platforms: keeps the size a multiple of 8
	inline         [inlineIDs]int32 // the lists when they fit, then zeros
	n              [numLists]uint16
	id             int32
	leader         int32
	leaderEpoch    int32
	partitionEpoch int32
	recovery       int8
	hasDirs        bool
	total          uint16 // ids in the lists and directories, when inline
}

// all returns the array holding every list.
func (p *PartitionRegistration) all() []int32 {
	if p.ids != nil {
		return p.ids
	}
	return p.inline[:p.total:p.total]
}

// setAll stores ids as the partition's array, inline when it fits. ids is
// retained when it does not fit. Inline slots past the ids are zero, so that
// partitions can compare and hash the whole inline array
// (SameAssignment).
func (p *PartitionRegistration) setAll(ids []int32) {
	p.inline = [inlineIDs]int32{}
	if len(ids) <= inlineIDs {
		p.ids = nil
		p.total = uint16(copy(p.inline[:], ids))
		return
	}
	p.ids, p.total = ids, 0
}

// ID is the partition index.
func (p *PartitionRegistration) ID() int32 { return p.id }

// Leader is the leader's broker id, or NoLeader (-1).
func (p *PartitionRegistration) Leader() int32 { return p.leader }

// LeaderEpoch is the leader epoch (bumped on every leader change).
func (p *PartitionRegistration) LeaderEpoch() int32 { return p.leaderEpoch }

// PartitionEpoch is the partition epoch (bumped on every change).
func (p *PartitionRegistration) PartitionEpoch() int32 { return p.partitionEpoch }

// LeaderRecoveryState is 0 (RECOVERED) or 1 (RECOVERING), KIP-704.
func (p *PartitionRegistration) LeaderRecoveryState() int8 { return p.recovery }

// HasLeader reports whether the partition has a leader.
func (p *PartitionRegistration) HasLeader() bool { return p.leader != NoLeader }

func (p *PartitionRegistration) list(k int) []int32 {
	off := 0
	for i := 0; i < k; i++ {
		off += int(p.n[i])
	}
	return p.all()[off : off+int(p.n[k]) : off+int(p.n[k])]
}

// NumReplicas is the replication factor (the length of the replica list).
func (p *PartitionRegistration) NumReplicas() int { return int(p.n[listReplicas]) }

// Replica returns the i-th replica in preferred order.
func (p *PartitionRegistration) Replica(i int) int32 { return p.all()[:p.n[listReplicas]][i] }

// AppendReplicas appends the replicas, in preferred order, to dst.
func (p *PartitionRegistration) AppendReplicas(dst []int32) []int32 {
	return append(dst, p.list(listReplicas)...)
}

// Replicas returns a copy of the replica list.
func (p *PartitionRegistration) Replicas() []int32 {
	return p.AppendReplicas(make([]int32, 0, p.n[listReplicas]))
}

// HasReplica reports whether broker is one of the replicas.
func (p *PartitionRegistration) HasReplica(broker int32) bool {
	return contains(p.list(listReplicas), broker)
}

// NumISR is the size of the in-sync replica set.
func (p *PartitionRegistration) NumISR() int { return int(p.n[listISR]) }

// ISRMember returns the i-th in-sync replica.
func (p *PartitionRegistration) ISRMember(i int) int32 { return p.list(listISR)[i] }

// AppendISR appends the in-sync replicas to dst.
func (p *PartitionRegistration) AppendISR(dst []int32) []int32 {
	return append(dst, p.list(listISR)...)
}

// ISR returns a copy of the in-sync replica list.
func (p *PartitionRegistration) ISR() []int32 { return p.AppendISR(make([]int32, 0, p.n[listISR])) }

// InISR reports whether broker is in the ISR.
func (p *PartitionRegistration) InISR(broker int32) bool { return contains(p.list(listISR), broker) }

// AppendRemovingReplicas appends the replicas being removed by a reassignment.
func (p *PartitionRegistration) AppendRemovingReplicas(dst []int32) []int32 {
	return append(dst, p.list(listRemoving)...)
}

// RemovingReplicas returns a copy of the replicas being removed.
func (p *PartitionRegistration) RemovingReplicas() []int32 {
	return p.AppendRemovingReplicas([]int32{})
}

// AppendAddingReplicas appends the replicas being added by a reassignment.
func (p *PartitionRegistration) AppendAddingReplicas(dst []int32) []int32 {
	return append(dst, p.list(listAdding)...)
}

// AddingReplicas returns a copy of the replicas being added.
func (p *PartitionRegistration) AddingReplicas() []int32 { return p.AppendAddingReplicas([]int32{}) }

// AppendELR appends the eligible leader replicas (KIP-966).
func (p *PartitionRegistration) AppendELR(dst []int32) []int32 {
	return append(dst, p.list(listELR)...)
}

// ELR returns a copy of the eligible leader replicas (empty, never nil).
func (p *PartitionRegistration) ELR() []int32 { return p.AppendELR([]int32{}) }

// AppendLastKnownELR appends the last known eligible leader replicas.
func (p *PartitionRegistration) AppendLastKnownELR(dst []int32) []int32 {
	return append(dst, p.list(listLastKnownELR)...)
}

// LastKnownELR returns a copy of the last known ELR (empty, never nil).
func (p *PartitionRegistration) LastKnownELR() []int32 { return p.AppendLastKnownELR([]int32{}) }

// Directory returns the log directory of the i-th replica; DirectoryMigrating
// for every replica of a partition assigned before KIP-858.
func (p *PartitionRegistration) Directory(i int) record.UUID {
	_ = p.all()[:p.n[listReplicas]][i] // bounds check against the replica count
	if !p.hasDirs {
		return record.DirectoryMigrating
	}
	return p.dirAt(i)
}

func (p *PartitionRegistration) dirAt(i int) record.UUID {
	ids := p.all()
	base := len(ids) - 4*int(p.n[listReplicas]) + 4*i
	var u record.UUID
	for k := 0; k < 4; k++ {
		binary.BigEndian.PutUint32(u[4*k:], uint32(ids[base+k]))
	}
	return u
}

// DirectoryOf returns the directory of broker's replica, and false when broker
// is not a replica (PartitionRegistration.directory).
func (p *PartitionRegistration) DirectoryOf(broker int32) (record.UUID, bool) {
	for i, r := range p.list(listReplicas) {
		if r == broker {
			return p.Directory(i), true
		}
	}
	return record.UUID{}, false
}

// AppendDirectories appends one directory per replica to dst.
func (p *PartitionRegistration) AppendDirectories(dst []record.UUID) []record.UUID {
	for i := 0; i < int(p.n[listReplicas]); i++ {
		dst = append(dst, p.Directory(i))
	}
	return dst
}

// Directories returns a copy of the replica directories.
func (p *PartitionRegistration) Directories() []record.UUID {
	return p.AppendDirectories(make([]record.UUID, 0, p.n[listReplicas]))
}

// AllDirectoriesMigrating reports whether every replica's directory is
// MIGRATING (no KIP-858 assignment).
func (p *PartitionRegistration) AllDirectoriesMigrating() bool { return !p.hasDirs }

// Equal reports whether p and q hold the same registration (the fields of
// PartitionRegistration.equals plus the partition id).
func (p *PartitionRegistration) Equal(q *PartitionRegistration) bool {
	if p.id != q.id || p.leader != q.leader || p.leaderEpoch != q.leaderEpoch ||
		p.partitionEpoch != q.partitionEpoch || p.recovery != q.recovery ||
		p.hasDirs != q.hasDirs || p.n != q.n {
		return false
	}
	return slices.Equal(p.all(), q.all())
}

// String is Java's PartitionRegistration.toString, so that kmeta's view can
// be compared with Kafka's image printers.
func (p *PartitionRegistration) String() string {
	b := []byte("PartitionRegistration(replicas=")
	b = appendJavaInts(b, p.list(listReplicas))
	b = append(b, ", directories=["...)
	for i := 0; i < p.NumReplicas(); i++ {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, p.Directory(i).String()...)
	}
	b = append(b, "], isr="...)
	b = appendJavaInts(b, p.list(listISR))
	b = append(b, ", removingReplicas="...)
	b = appendJavaInts(b, p.list(listRemoving))
	b = append(b, ", addingReplicas="...)
	b = appendJavaInts(b, p.list(listAdding))
	b = append(b, ", elr="...)
	b = appendJavaInts(b, p.list(listELR))
	b = append(b, ", lastKnownElr="...)
	b = appendJavaInts(b, p.list(listLastKnownELR))
	b = append(b, ", leader="...)
	b = strconv.AppendInt(b, int64(p.leader), 10)
	b = append(b, ", leaderRecoveryState="...)
	if p.recovery == LeaderRecovering {
		b = append(b, "RECOVERING"...)
	} else {
		b = append(b, "RECOVERED"...)
	}
	b = append(b, ", leaderEpoch="...)
	b = strconv.AppendInt(b, int64(p.leaderEpoch), 10)
	b = append(b, ", partitionEpoch="...)
	b = strconv.AppendInt(b, int64(p.partitionEpoch), 10)
	return string(append(b, ')'))
}

func appendJavaInts(b []byte, v []int32) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}

func contains(v []int32, x int32) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

// partitionFields is a partition being assembled.
type partitionFields struct {
	lists [numLists][]int32
	dirs  []record.UUID // nil or len(replicas)
}

func (f *partitionFields) build(id, leader, leaderEpoch, partitionEpoch int32, recovery int8) (PartitionRegistration, error) {
	p := PartitionRegistration{id: id, leader: leader, leaderEpoch: leaderEpoch, partitionEpoch: partitionEpoch, recovery: recovery}
	total := 0
	for k, l := range f.lists {
		if len(l) > math.MaxUint16 {
			return PartitionRegistration{}, fmt.Errorf("partition %d: %d ids in one list, at most %d are supported", id, len(l), math.MaxUint16)
		}
		p.n[k] = uint16(len(l))
		total += len(l)
	}
	nRep := len(f.lists[listReplicas])
	dirs := f.dirs
	if len(dirs) > 0 && len(dirs) != nRep {
		return PartitionRegistration{}, fmt.Errorf("partition %d: %d directories for %d replicas", id, len(dirs), nRep)
	}
	p.hasDirs = false
	for _, d := range dirs {
		if d != record.DirectoryMigrating {
			p.hasDirs = true
			break
		}
	}
	if p.hasDirs {
		total += 4 * nRep
	}
	if total <= inlineIDs {
		f.fill(p.inline[:total], p.hasDirs)
		p.total = uint16(total)
	} else {
		p.ids = make([]int32, total)
		f.fill(p.ids, p.hasDirs)
	}
	return p, nil
}

// fill writes the lists, then the directories when withDirs, into dst,
// which has room for exactly all of them.
func (f *partitionFields) fill(dst []int32, withDirs bool) {
	k := 0
	for _, l := range f.lists {
		k += copy(dst[k:], l)
	}
	if withDirs {
		for _, d := range f.dirs {
			for j := 0; j < 4; j++ {
				dst[k] = int32(binary.BigEndian.Uint32(d[4*j:]))
				k++
			}
		}
	}
}

// NewPartition builds a partition from a PartitionRecord, as Kafka's
// PartitionRegistration(PartitionRecord) constructor does: directories absent
// or empty mean MIGRATING for every replica; a non-empty directory list must
// have one entry per replica (InvalidReplicaDirectoriesException); the leader
// recovery state must be 0 or 1 (LeaderRecoveryState.of); absent ELR lists
// are empty. The record is not retained.
func NewPartition(r *record.PartitionRecord) (PartitionRegistration, error) {
	if r.LeaderRecoveryState != LeaderRecovered && r.LeaderRecoveryState != LeaderRecovering {
		return PartitionRegistration{}, fmt.Errorf("partition %d: leader recovery state %d is neither 0 (RECOVERED) nor 1 (RECOVERING)", r.PartitionID, r.LeaderRecoveryState)
	}
	if len(r.Directories) > 0 && len(r.Directories) != len(r.Replicas) {
		return PartitionRegistration{}, fmt.Errorf("partition %d: %d directories for %d replicas (InvalidReplicaDirectoriesException)", r.PartitionID, len(r.Directories), len(r.Replicas))
	}
	var f partitionFields
	f.lists = [numLists][]int32{r.Replicas, r.ISR, r.RemovingReplicas, r.AddingReplicas, r.EligibleLeaderReplicas, r.LastKnownELR}
	f.dirs = r.Directories
	return f.build(r.PartitionID, r.Leader, r.LeaderEpoch, r.PartitionEpoch, r.LeaderRecoveryState)
}

// Merge returns p changed by a PartitionChangeRecord, following Kafka's
// PartitionRegistration.merge: null lists, Leader -2 (NoLeaderChange) and
// LeaderRecoveryState -1 leave a field unchanged; any explicit Leader
// (including -1 and the current leader) bumps the leader epoch; the
// partition epoch is bumped by every record, even one that changes nothing.
// Directories: the record's list if given (its length must match the
// record's replicas when both are given), else the current ones; a result
// that is empty or all MIGRATING becomes MIGRATING for every new replica, and
// any other result whose length differs from the new replica count is an
// error (a replica change must carry directories once they are assigned).
// p is not modified.
func (p *PartitionRegistration) Merge(r *record.PartitionChangeRecord) (PartitionRegistration, error) {
	var f partitionFields
	pick := func(k int, v []int32) {
		if v != nil {
			f.lists[k] = v
		} else {
			f.lists[k] = p.list(k)
		}
	}
	pick(listReplicas, r.Replicas)
	pick(listISR, r.ISR)
	pick(listRemoving, r.RemovingReplicas)
	pick(listAdding, r.AddingReplicas)
	pick(listELR, r.EligibleLeaderReplicas)
	pick(listLastKnownELR, r.LastKnownELR)
	if r.Directories != nil {
		if r.Replicas != nil && len(r.Directories) > 0 && len(r.Directories) != len(r.Replicas) {
			return PartitionRegistration{}, fmt.Errorf("partition %d: %d directories for %d replicas (InvalidReplicaDirectoriesException)", p.id, len(r.Directories), len(r.Replicas))
		}
		f.dirs = r.Directories
	} else if p.hasDirs {
		f.dirs = p.Directories()
	}
	if len(f.dirs) > 0 && len(f.dirs) != len(f.lists[listReplicas]) {
		allMigrating := true
		for _, d := range f.dirs {
			if d != record.DirectoryMigrating {
				allMigrating = false
				break
			}
		}
		if !allMigrating {
			return PartitionRegistration{}, fmt.Errorf("partition %d: %d directories for %d replicas: a replica change must carry directories", p.id, len(f.dirs), len(f.lists[listReplicas]))
		}
		f.dirs = nil
	}
	leader, leaderEpoch := p.leader, p.leaderEpoch
	if r.Leader != NoLeaderChange {
		leader, leaderEpoch = r.Leader, p.leaderEpoch+1
	}
	recovery := p.recovery
	switch r.LeaderRecoveryState {
	case noRecoveryStateChange:
	case LeaderRecovered, LeaderRecovering:
		recovery = r.LeaderRecoveryState
	default:
		return PartitionRegistration{}, fmt.Errorf("partition %d: leader recovery state %d is none of -1 (unchanged), 0, 1", p.id, r.LeaderRecoveryState)
	}
	return f.build(p.id, leader, leaderEpoch, p.partitionEpoch+1, recovery)
}

// HasELR reports whether the ELR or the last known ELR is non-empty.
func (p *PartitionRegistration) HasELR() bool { return p.n[listELR] > 0 || p.n[listLastKnownELR] > 0 }

// WithoutELR returns p with both ELR lists emptied and the partition epoch
// bumped: the merge of the synthetic change record that Kafka's
// TopicDelta.clearElrs replays for ClearElrRecord.
func (p *PartitionRegistration) WithoutELR() PartitionRegistration {
	q := *p
	q.partitionEpoch++
	start := 0
	for k := 0; k < listELR; k++ {
		start += int(p.n[k])
	}
	end := start + int(p.n[listELR]) + int(p.n[listLastKnownELR])
	all := p.all()
	ids := make([]int32, 0, len(all)-(end-start))
	ids = append(ids, all[:start]...)
	q.setAll(append(ids, all[end:]...))
	q.n[listELR], q.n[listLastKnownELR] = 0, 0
	return q
}

// Record returns the PartitionRecord that writes p back (the fields of
// PartitionRegistration.toRecord; ELR lists only when non-empty and withELR,
// directories only when withDirs).
func (p *PartitionRegistration) Record(topicID record.UUID, withELR, withDirs bool) *record.PartitionRecord {
	r := record.NewPartitionRecord()
	r.PartitionID = p.id
	r.TopicID = topicID
	r.Replicas = p.Replicas()
	r.ISR = p.ISR()
	r.RemovingReplicas = p.RemovingReplicas()
	r.AddingReplicas = p.AddingReplicas()
	r.Leader = p.leader
	r.LeaderRecoveryState = p.recovery
	r.LeaderEpoch = p.leaderEpoch
	r.PartitionEpoch = p.partitionEpoch
	if withELR {
		if p.n[listELR] > 0 {
			r.EligibleLeaderReplicas = p.ELR()
		}
		if p.n[listLastKnownELR] > 0 {
			r.LastKnownELR = p.LastKnownELR()
		}
	}
	if withDirs {
		r.Directories = p.Directories()
	}
	return r
}
