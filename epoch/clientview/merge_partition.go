package clientview

import (
	"math"
	"runtime"
	"slices"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/epoch"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// mergePartition applies one partition answer to cur and returns the result
// and whether it differs. It allocates only when the replica lists change.
func (m *merger) mergePartition(cur *Partition, ap *kmsg.MetadataResponseTopicPartition, topic string) (Partition, bool) {
	p := *cur
	leader, ep := ap.Leader, ap.LeaderEpoch
	if leader < 0 {
		leader = -1
	}
	// KAFKA-9212: epochs of Metadata answers below v9 are unreliable;
	// Metadata v7-v8 carry one, earlier versions none (-1).
	reliable := m.version >= 9 && ep >= 0
	listsChanged := false
	switch {
	case p.flags&Missing != 0:
		// First description of this partition.
		if leader >= 0 {
			p.leader = leader
		}
		p.leaderEpoch, p.seenEpoch = -1, -1
		if reliable {
			p.seenEpoch = ep
			if leader >= 0 {
				p.leaderEpoch = ep
			}
		}
		p.flags = 0
		if leader < 0 {
			p.flags |= NoLeader
		} else if !reliable {
			p.flags |= EpochUnknown
		}
		listsChanged = m.setLists(&p, ap)
		m.rep.Progress = true
		p.errorCode = ap.ErrorCode
		p.setStreak(streak{})
	case !reliable && leader < 0:
		// twmb/franz-go#1331: "no leader, no epoch" is not a rewind. Keep the
		// last known leader and epoch; ask again soon.
		p.flags |= NoLeader
		p.errorCode = ap.ErrorCode
	case !reliable:
		// KAFKA-9212 / librdkafka#4796: take the leader without an epoch.
		if leader != p.leader || p.flags&NoLeader != 0 {
			if leader != p.leader {
				m.event(Event{Kind: LeaderMoved, Topic: topic, Partition: p.id, Before: p.leader, After: leader, Epoch: -1})
			}
			m.rep.Progress = true
			p.leader, p.leaderEpoch = leader, -1
			p.flags |= EpochUnknown
		}
		p.flags &^= NoLeader | Stale | Suspect
		listsChanged = m.setLists(&p, ap)
		p.errorCode = ap.ErrorCode
		p.setStreak(streak{})
	case ep > p.seenEpoch:
		m.rep.Progress = true
		listsChanged = m.accept(&p, ap, leader, ep, topic)
	case ep == p.seenEpoch:
		switch {
		case leader < 0,
			p.flags&NoLeader != 0, // the view knew no leader at this epoch
			p.leaderEpoch != ep,   // nor had a leader named at this epoch
			leader == p.leader:
			if leader >= 0 && (leader != p.leader || p.leaderEpoch != ep || p.flags&NoLeader != 0) {
				m.rep.Progress = true
			}
			listsChanged = m.accept(&p, ap, leader, ep, topic)
		default:
			listsChanged = m.refuse(&p, ap, leader, ep, Suspect, topic)
		}
	default:
		listsChanged = m.refuse(&p, ap, leader, ep, Stale, topic)
	}
	if p.flags&NoLeader != 0 || epoch.InvalidMetadata(kafkaerr.Code(p.errorCode)) || p.flags&(Stale|Suspect) != 0 {
		p.flags |= NeedsRefresh
	} else {
		p.flags &^= NeedsRefresh
	}
	return p, listsChanged || !p.sameScalars(cur)
}

// accept takes an answer at epoch ep ≥ SeenEpoch (or forced by an escape).
func (m *merger) accept(p *Partition, ap *kmsg.MetadataResponseTopicPartition, leader, ep int32, topic string) bool {
	if leader >= 0 {
		if leader != p.leader {
			m.event(Event{Kind: LeaderMoved, Topic: topic, Partition: p.id, Before: p.leader, After: leader, Epoch: ep})
		}
		p.leader, p.leaderEpoch = leader, ep
		p.flags &^= NoLeader | EpochUnknown
	} else {
		p.flags |= NoLeader
	}
	p.seenEpoch = ep
	p.flags &^= Stale | Suspect
	p.errorCode = ap.ErrorCode
	p.setStreak(streak{})
	return m.setLists(p, ap)
}

// refuse ignores an answer older than the view (flag Stale) or naming
// another leader at the view's epoch (flag Suspect), counting the streak of
// agreeing answers that lets the view escape a cluster that really went back.
func (m *merger) refuse(p *Partition, ap *kmsg.MetadataResponseTopicPartition, leader, ep int32, flag Flags, topic string) bool {
	node := int32(-1)
	if m.opts.HasNode {
		node = m.opts.Node
	}
	s := p.streak()
	if s.n > 0 && s.epoch == ep && s.leader == leader {
		if s.n < 255 {
			s.n++
		}
		if node >= 0 && s.node >= 0 && node != s.node {
			s.multi = true
		}
	} else {
		s = streak{epoch: ep, leader: leader, node: node, n: 1}
	}
	if m.rewind > 0 && int(s.n) >= m.rewind && (s.node < 0 || s.multi) {
		m.event(Event{Kind: RewindAccepted, Topic: topic, Partition: p.id, Before: p.seenEpoch, After: ep})
		m.rep.Progress = true
		return m.accept(p, ap, leader, ep, topic)
	}
	p.setStreak(s)
	p.flags |= flag
	m.rep.Refused++
	if flag == Suspect {
		m.event(Event{Kind: SuspectLeader, Topic: topic, Partition: p.id, Before: p.leader, After: leader, Epoch: ep})
	} else {
		m.event(Event{Kind: StaleAnswer, Topic: topic, Partition: p.id, Before: p.seenEpoch, After: ep})
	}
	return false
}

// settledPrefix returns how many leading entries of aps answer partitions
// 0, 1, 2... of t exactly as t holds them (see unchangedBy): the entries
// Merge skips without a write. It reads plain fields only.
func (t *Topic) settledPrefix(aps []kmsg.MetadataResponseTopicPartition) int {
	n := min(len(aps), len(t.parts))
	return settledRun(t.parts[:n], aps[:n])
}

// unchangedBy is the fast path of an answer identical to a settled
// partition: no flags, no streak, same error, leader and epoch, same lists.
// It is exactly the case where mergePartition would return cur unchanged
// (with no flags set, NeedsRefresh is clear, so the error code is not one of
// epoch.InvalidMetadata's: mergePartition sets NeedsRefresh for those).
func (p *Partition) unchangedBy(ap *kmsg.MetadataResponseTopicPartition) bool {
	return settledRun(unsafe.Slice(p, 1), unsafe.Slice(ap, 1)) == 1
}

// settledRun returns how many leading aps[i] describe parts[i] (same
// partition id) exactly as the view holds it, the partition being settled:
// no flags, no streak, a leader and a reliable epoch that is the highest
// seen, and the answer's error, leader, epoch and lists. parts and aps have
// the same length.
//
// It is the loop every merge runs over every partition of the answer, so it
// is written for speed: the scalar tests are folded into one word by xor and
// or (one branch per partition), the lists are compared without bounds
// checks, and nothing is called.
func settledRun(parts []Partition, aps []kmsg.MetadataResponseTopicPartition) int {
	parts = parts[:len(aps)]
	for i := range aps {
		ap, p := &aps[i], &parts[i]
		// Zero when every scalar agrees and p is settled; the sign bit of
		// leader|leaderEpoch is set when either is -1.
		if uint32(ap.Partition^p.id)|uint32(ap.Leader^p.leader)|uint32(ap.LeaderEpoch^p.leaderEpoch)|
			uint32(p.leaderEpoch^p.seenEpoch)|uint32(uint16(ap.ErrorCode^p.errorCode))|
			uint32(p.flags)|uint32(p.streakN)|uint32(p.leader|p.leaderEpoch)>>31 != 0 {
			return i
		}
		// Lengths beyond a uint16 never match the view's (clipped) ones.
		nr, ni := len(ap.Replicas), len(ap.ISR)
		if nr != int(p.nRep) || ni != int(p.nISR) || len(ap.OfflineReplicas) != int(p.nOff) {
			return i
		}
		// The view's lists end to end: nr + ni + len(OfflineReplicas)
		// entries from p.lists. No address past them is formed.
		base := unsafe.Pointer(p.lists)
		x := diff32(ap.Replicas, base)
		if ni > 0 {
			x |= diff32(ap.ISR, unsafe.Add(base, 4*nr))
		}
		if len(ap.OfflineReplicas) > 0 {
			x |= diff32(ap.OfflineReplicas, unsafe.Add(base, 4*(nr+ni)))
		}
		if x != 0 {
			return i
		}
	}
	return len(aps)
}

// unalignedWords: the architecture loads a uint64 from any 4-byte aligned
// address (diff32 compares two int32s at a time there).
const unalignedWords = runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64"

// diff32 is zero when the len(a) int32s from b equal a. b must point to at
// least len(a) int32s.
func diff32(a []int32, b unsafe.Pointer) uint64 {
	pa := unsafe.Pointer(unsafe.SliceData(a))
	n, i := len(a), 0
	var x uint64
	if unalignedWords {
		for ; i+2 <= n; i += 2 {
			x |= *(*uint64)(unsafe.Add(pa, 4*i)) ^ *(*uint64)(unsafe.Add(b, 4*i))
		}
	}
	for ; i < n; i++ {
		x |= uint64(uint32(*(*int32)(unsafe.Add(pa, 4*i)) ^ *(*int32)(unsafe.Add(b, 4*i))))
	}
	return x
}

// setLists takes the answer's replica lists, keeping the current backing
// array when they are equal. It reports whether they changed. The new array
// is carved from m.lists when that has room (a new topic's lists end to end,
// read in one stream by the next merge), allocated alone otherwise.
func (m *merger) setLists(p *Partition, ap *kmsg.MetadataResponseTopicPartition) bool {
	if slices.Equal(p.replicas(), ap.Replicas) && slices.Equal(p.isr(), ap.ISR) &&
		slices.Equal(p.offline(), ap.OfflineReplicas) {
		return false
	}
	// A replica list longer than 65 535 brokers is bad input: kept clipped.
	rep, isr, off := clip(ap.Replicas), clip(ap.ISR), clip(ap.OfflineReplicas)
	p.lists, p.nRep, p.nISR, p.nOff = nil, uint16(len(rep)), uint16(len(isr)), uint16(len(off))
	n := len(rep) + len(isr) + len(off)
	if n == 0 {
		return true
	}
	var l []int32
	if k := len(m.lists); cap(m.lists)-k >= n {
		l = m.lists[k : k : k+n]
		m.lists = m.lists[:k+n]
	} else {
		l = make([]int32, 0, n)
	}
	l = append(l, rep...)
	l = append(l, isr...)
	l = append(l, off...)
	p.lists = &l[0]
	return true
}

func clip(l []int32) []int32 { return l[:min(len(l), math.MaxUint16)] }

func (p *Partition) sameScalars(q *Partition) bool {
	return p.id == q.id && p.leader == q.leader && p.leaderEpoch == q.leaderEpoch &&
		p.seenEpoch == q.seenEpoch && p.errorCode == q.errorCode && p.flags == q.flags &&
		p.streak() == q.streak() && p.nRep == q.nRep && p.nISR == q.nISR && p.nOff == q.nOff
}
