package history

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kmeta-go/kmeta/record"
)

// Severity ranks a finding.
type Severity int8

// The severities. Check fails (metadump -check exits 1) on Error and
// Warning findings.
const (
	// Info: a state worth knowing that Kafka's own logs hold, explained.
	Info Severity = iota
	// Warning: a state Kafka's controller is meant to avoid, or one
	// that Kafka is known to leave behind (the explanation says which).
	Warning
	// Error: a record Kafka's replay rejects, or a broken invariant of
	// Kafka's partition registrations.
	Error
)

var severityNames = [...]string{"info", "warning", "error"}

// String returns the severity's name.
func (s Severity) String() string {
	if int(s) < len(severityNames) {
		return severityNames[s]
	}
	return "unknown"
}

// Rule names what a finding checks.
type Rule string

// The rules.
const (
	// RuleRejected: the replay rejects the record (delta.Replay's
	// *delta.RecordError: a broker epoch that does not match its
	// registration, a change to an unknown topic or partition, ...).
	// Kafka's broker loader logs and skips such a record.
	RuleRejected Rule = "rejected"
	// RuleLeaderNotInISR: a partition's leader is not in its ISR
	// (PartitionChangeBuilder only elects ISR members, or ELR members
	// which it then puts in the ISR).
	RuleLeaderNotInISR Rule = "leader-not-in-isr"
	// RuleISROutsideReplicas: an ISR member is not a replica.
	RuleISROutsideReplicas Rule = "isr-outside-replicas"
	// RuleELR: an ELR member is not a replica or is also in the ISR
	// (KIP-966: the ELR holds replicas removed from the ISR); the ELR is
	// not empty while the ISR has min.insync.replicas members
	// (PartitionChangeBuilder empties it then); a last known ELR is kept
	// while the partition has a leader (PartitionChangeBuilder clears it
	// when one is elected).
	RuleELR Rule = "elr"
	// RuleEpochBackwards: a partition's leader epoch or partition epoch
	// went back, or its leader changed without a leader epoch bump
	// (PartitionRegistration.merge and PartitionChangeBuilder only bump
	// them).
	RuleEpochBackwards Rule = "epoch-backwards"
	// RuleFencedLeader: at the end of a batch (or transaction) a fenced
	// broker still leads partitions; Kafka's controller moves a broker's
	// leaderships in the batch that fences it
	// (ReplicationControlManager.handleBrokerFenced).
	RuleFencedLeader Rule = "fenced-leader"
	// RuleStaleController: a controller is registered
	// (RegisterControllerRecord) but is not in the raft voter set: the
	// stale registrations that KIP-1312 removes.
	RuleStaleController Rule = "stale-controller"
	// RuleLeaderless: a partition has no leader at the end of the log,
	// since the position given.
	RuleLeaderless Rule = "leaderless"
	// RuleSnapshotMismatch: a snapshot of the directory differs from the
	// image the log replays to at its offset (Kafka's SnapshotGenerator
	// writes the image its loader published there).
	RuleSnapshotMismatch Rule = "snapshot-mismatch"
	// RuleUnreadable: the log could not be read to its end (a damaged
	// batch, a batch cut short at the end of the last segment, a record
	// that does not decode); the findings before it stand, nothing after
	// it was checked. Kafka's log recovery would stop there too
	// (LogSegment.recover truncates at the first invalid batch).
	RuleUnreadable Rule = "unreadable"
)

// Finding is one thing Check reports. At and Record name the record that
// made it (for end-of-log findings, the record that started the state).
type Finding struct {
	Rule     Rule
	Severity Severity
	At       Position
	Record   record.Record
	// Message says what is wrong and the state the record contradicted.
	Message string
	// Explanation, when set, says why a log written by Kafka holds it.
	Explanation string
	// Topic, TopicID and Partition name the partition, if any (Partition
	// -1 otherwise); Broker names the broker or controller, -1 if none.
	Topic     string
	TopicID   record.UUID
	Partition int32
	Broker    int32
}

// String is the finding on one line: severity, rule, file, offset, message.
func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s offset %d", f.Severity, f.Rule, f.At.File, f.At.Offset)
	if f.At.Snapshot {
		b.WriteString(" (snapshot)")
	}
	if f.At.AppendTime > 0 {
		fmt.Fprintf(&b, " %s", f.At.Time().Format("2006-01-02T15:04:05.000Z"))
	}
	b.WriteString(": ")
	b.WriteString(f.Message)
	if f.Explanation != "" {
		b.WriteString(" [")
		b.WriteString(f.Explanation)
		b.WriteString("]")
	}
	return b.String()
}

// Failed reports whether any finding is an Error or a Warning.
func (h *History) Failed() bool {
	for _, f := range h.Findings {
		if f.Severity >= Warning {
			return true
		}
	}
	return false
}

// FirstRejection returns the first record the replay rejected.
func (h *History) FirstRejection() (Finding, bool) {
	for _, f := range h.Findings {
		if f.Rule == RuleRejected {
			return f, true
		}
	}
	return Finding{}, false
}

// Check reads path as Read does and returns its findings in log order:
// every record the replay rejects (the first is the one a broker would
// fail on first), every broken invariant, every later snapshot of a
// directory that differs from the log replayed to its offset, and at the
// end the stale controller registrations and the partitions left without
// a leader.
func Check(path string, opts Options) ([]Finding, error) {
	h, err := Read(path, opts)
	if h == nil {
		return nil, err
	}
	return h.Findings, err
}

type controllerReg struct {
	at Position
	r  *record.RegisterControllerRecord
}

type checker struct {
	b *Builder
	// partitions each broker leads
	leads map[int32]map[TopicPartition]struct{}
	// partitions without a leader, since when
	leaderless map[TopicPartition]*PartitionEvent
	// brokers and partitions touched since the last commit
	touchedBrokers map[int32]struct{}
	touchedParts   map[TopicPartition]struct{}
	// fencings already reported, per broker
	reported map[int32]int
	// controller registrations, and the voter set
	controllers map[int32]controllerReg
	voters      []int32
	votersAt    Position
	votersKnown bool
	votersExact bool // from a VotersRecord
	// from is the first offset whose findings are kept: the files before a
	// segment that starts mid-log are replayed for their state only.
	from int64
	// ending is set while the end-of-log checks run.
	ending bool
	// off is set when the checks do not run (a lean Builder).
	off bool
}

func (c *checker) init(b *Builder) {
	c.b = b
	c.leads = map[int32]map[TopicPartition]struct{}{}
	c.leaderless = map[TopicPartition]*PartitionEvent{}
	c.touchedBrokers = map[int32]struct{}{}
	c.touchedParts = map[TopicPartition]struct{}{}
	c.reported = map[int32]int{}
	c.controllers = map[int32]controllerReg{}
}

func (c *checker) add(f Finding) {
	if c.off || !c.ending && c.b.lastPos.Offset < c.from {
		return
	}
	h := c.b.h
	h.Findings = push(h.Findings, f, c.b.lim, &h.DroppedFindings)
}

func (c *checker) rejected(rej Rejection) {
	c.add(Finding{Rule: RuleRejected, Severity: Error, At: rej.At, Record: rej.Record, Partition: -1, Broker: -1,
		Message: fmt.Sprintf("%s: %v", recordJSON(rej.Record, rej.At.RecordVersion), rej.Err)})
}

// recordJSON is r's envelope at version v, the version its file holds.
func recordJSON(r record.Record, v int16) string {
	if r == nil {
		return "<none>"
	}
	js, err := record.AppendEnvelopeJSON(nil, r, v)
	if err != nil {
		return r.Type().String()
	}
	return string(js)
}

func partName(ph *PartitionHistory) string { return fmt.Sprintf("%s-%d", ph.Topic, ph.Partition) }

// elrContext is what the ELR rules depend on at an event.
type elrContext struct {
	enabled bool
	minISR  int // -1: unknown
}

func (c *checker) partition(ph *PartitionHistory, ev *PartitionEvent, ec elrContext) {
	tp := TopicPartition{ph.TopicID, ph.Partition}
	if ev.Before.Exists() && ev.Before.Leader >= 0 {
		if m := c.leads[ev.Before.Leader]; m != nil {
			delete(m, tp)
		}
	}
	if !ev.After.Exists() {
		delete(c.leaderless, tp)
		return
	}
	c.touchedParts[tp] = struct{}{}
	if l := ev.After.Leader; l >= 0 {
		m := c.leads[l]
		if m == nil {
			m = map[TopicPartition]struct{}{}
			c.leads[l] = m
		}
		m[tp] = struct{}{}
		delete(c.leaderless, tp)
	} else if _, ok := c.leaderless[tp]; !ok || ev.Before.Leader >= 0 || !ev.Before.Exists() {
		c.leaderless[tp] = ev
	}

	f := Finding{At: ev.At, Record: ev.Record, Topic: ph.Topic, TopicID: ph.TopicID, Partition: ph.Partition, Broker: -1, Severity: Error}
	s := ev.After
	if s.Leader >= 0 && !slices.Contains(s.ISR, s.Leader) {
		f.Rule, f.Broker = RuleLeaderNotInISR, s.Leader
		f.Message = fmt.Sprintf("%s: leader %d is not in the ISR %v", partName(ph), s.Leader, s.ISR)
		c.add(f)
	}
	if out := notIn(s.ISR, s.Replicas); len(out) > 0 {
		f.Rule = RuleISROutsideReplicas
		f.Message = fmt.Sprintf("%s: ISR members %v are not replicas %v", partName(ph), out, s.Replicas)
		c.add(f)
	}
	if out := notIn(s.ELR, s.Replicas); len(out) > 0 {
		f.Rule = RuleELR
		f.Message = fmt.Sprintf("%s: ELR members %v are not replicas %v", partName(ph), out, s.Replicas)
		c.add(f)
	}
	if both := in(s.ELR, s.ISR); len(both) > 0 {
		f.Rule = RuleELR
		f.Message = fmt.Sprintf("%s: %v are in both the ELR %v and the ISR %v", partName(ph), both, s.ELR, s.ISR)
		c.add(f)
	}
	if s.Leader >= 0 && len(s.LastKnownELR) > 0 {
		f.Rule = RuleELR
		f.Message = fmt.Sprintf("%s: last known ELR %v kept while %d leads", partName(ph), s.LastKnownELR, s.Leader)
		c.add(f)
	}
	if ec.enabled && ec.minISR > 0 && len(s.ISR) >= ec.minISR && len(s.ELR) > 0 {
		f.Rule = RuleELR
		f.Message = fmt.Sprintf("%s: ELR %v not empty while the ISR %v has min.insync.replicas (%d) members", partName(ph), s.ELR, s.ISR, ec.minISR)
		c.add(f)
	}
	if p := ev.Before; p.Exists() && !ev.At.Snapshot {
		f.Rule = RuleEpochBackwards
		switch {
		case s.LeaderEpoch < p.LeaderEpoch:
			f.Message = fmt.Sprintf("%s: leader epoch went back from %d to %d", partName(ph), p.LeaderEpoch, s.LeaderEpoch)
			c.add(f)
		case s.Leader != p.Leader && s.LeaderEpoch == p.LeaderEpoch:
			f.Message = fmt.Sprintf("%s: leader changed from %d to %d without a leader epoch bump (epoch %d)", partName(ph), p.Leader, s.Leader, s.LeaderEpoch)
			c.add(f)
		}
		if s.PartitionEpoch < p.PartitionEpoch {
			f.Message = fmt.Sprintf("%s: partition epoch went back from %d to %d", partName(ph), p.PartitionEpoch, s.PartitionEpoch)
			c.add(f)
		}
	}
}

func notIn(a, set []int32) []int32 {
	var out []int32
	for _, x := range a {
		if !slices.Contains(set, x) {
			out = append(out, x)
		}
	}
	return out
}

func in(a, set []int32) []int32 {
	var out []int32
	for _, x := range a {
		if slices.Contains(set, x) {
			out = append(out, x)
		}
	}
	return out
}

func (c *checker) broker(bh *BrokerHistory, ev *BrokerEvent) {
	if c.off {
		return
	}
	c.touchedBrokers[bh.ID] = struct{}{}
}

// commit runs the checks that hold at commit boundaries (the end of a batch
// outside a transaction, the end of a transaction, a snapshot).
func (c *checker) commit(pos Position) {
	if c.off {
		return
	}
	for tp := range c.touchedParts {
		ph := c.b.h.partitions.get(tp)
		if ph == nil {
			continue
		}
		if l := ph.Current().Leader; l >= 0 {
			c.touchedBrokers[l] = struct{}{}
		}
	}
	clear(c.touchedParts)
	ids := make([]int32, 0, len(c.touchedBrokers))
	for id := range c.touchedBrokers {
		ids = append(ids, id)
	}
	clear(c.touchedBrokers)
	slices.Sort(ids)
	for _, id := range ids {
		c.fencedLeader(id)
	}
}

func (c *checker) fencedLeader(id int32) {
	bh := c.b.h.brokers[id]
	if bh == nil || c.b.brokerState[id].state != StateFenced || len(c.leads[id]) == 0 {
		return
	}
	if c.reported[id] == bh.Fencings {
		return
	}
	c.reported[id] = bh.Fencings
	var names []string
	for tp := range c.leads[id] {
		if ph := c.b.h.partitions.get(tp); ph != nil {
			names = append(names, partName(ph))
		}
	}
	sort.Strings(names)
	more := ""
	if len(names) > 10 {
		more = fmt.Sprintf(" and %d more", len(names)-10)
		names = names[:10]
	}
	ev := bh.Events[len(bh.Events)-1]
	f := Finding{Rule: RuleFencedLeader, Severity: Warning, At: ev.At, Record: ev.Record, Partition: -1, Broker: id,
		Message: fmt.Sprintf("broker %d is fenced (epoch %d) but still leads %d partitions: %s%s", id, ev.Epoch, len(c.leads[id]), strings.Join(names, ", "), more)}
	if ev.Kind == BrokerRegistered {
		f.Explanation = "the broker re-registered (a new incarnation starts fenced) while it led them: Kafka 3.x writes the registration alone, so the leaderships stay until the broker is unfenced (ClusterControlManager.registerBroker); Kafka 4.x moves them first (ReplicationControlManager.handleBrokerShutdown)"
		f.Severity = Info
	}
	c.add(f)
}

func (c *checker) snapshotMismatch(pos Position, msg string) {
	c.add(Finding{Rule: RuleSnapshotMismatch, Severity: Error, At: pos, Partition: -1, Broker: -1, Message: msg})
}

func (c *checker) controller(pos Position, r *record.RegisterControllerRecord) {
	c.controllers[r.ControllerID] = controllerReg{pos, r}
}

func (c *checker) leaderChange(pos Position, m *record.LeaderChangeMessage) {
	if c.votersExact || len(m.Voters) == 0 {
		return
	}
	c.voters = c.voters[:0]
	for _, v := range m.Voters {
		c.voters = append(c.voters, v.VoterID)
	}
	c.votersAt, c.votersKnown = pos, true
}

func (c *checker) votersRecord(pos Position, r *record.VotersRecord) {
	c.voters = c.voters[:0]
	for _, v := range r.Voters {
		c.voters = append(c.voters, v.VoterID)
	}
	c.votersAt, c.votersKnown, c.votersExact = pos, true, true
}

// unreadable adds the RuleUnreadable finding of err, at the last position
// read.
func (c *checker) unreadable(err error) {
	h := c.b.h
	h.Findings = push(h.Findings, Finding{Rule: RuleUnreadable, Severity: Error, At: c.b.lastPos, Partition: -1, Broker: -1,
		Message: "the log cannot be read past this point: " + err.Error()}, c.b.lim, &h.DroppedFindings)
}

// finish runs the end-of-log checks.
func (c *checker) finish(last Position) {
	c.ending = true
	if c.votersKnown {
		ids := make([]int32, 0, len(c.controllers))
		for id := range c.controllers {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		src := "LeaderChange"
		if c.votersExact {
			src = "VotersRecord"
		}
		for _, id := range ids {
			if slices.Contains(c.voters, id) {
				continue
			}
			reg := c.controllers[id]
			c.add(Finding{Rule: RuleStaleController, Severity: Warning, At: reg.at, Record: reg.r, Partition: -1, Broker: id,
				Message: fmt.Sprintf("controller %d is registered but not in the voter set %v (%s at offset %d): a stale registration (KIP-1312)", id, c.voters, src, c.votersAt.Offset)})
		}
	}
	tps := make([]TopicPartition, 0, len(c.leaderless))
	for tp := range c.leaderless {
		tps = append(tps, tp)
	}
	slices.SortFunc(tps, func(a, b TopicPartition) int {
		pa, pb := c.b.h.partitions.get(a), c.b.h.partitions.get(b)
		if r := strings.Compare(pa.Topic, pb.Topic); r != 0 {
			return r
		}
		return int(a.Partition - b.Partition)
	})
	for _, tp := range tps {
		ph, ev := c.b.h.partitions.get(tp), c.leaderless[tp]
		s := ph.Current()
		f := Finding{Rule: RuleLeaderless, Severity: Info, At: ev.At, Record: ev.Record, Topic: ph.Topic, TopicID: ph.TopicID, Partition: ph.Partition, Broker: -1,
			Message: fmt.Sprintf("%s has had no leader since offset %d (%s): replicas %v, ISR %v, ELR %v", partName(ph), ev.At.Offset, ev.At.Time().Format("2006-01-02T15:04:05Z"), s.Replicas, s.ISR, s.ELR)}
		var live []int32
		for _, r := range s.Replicas {
			if st := c.b.brokerState[r].state; st == StateUnfenced {
				live = append(live, r)
			}
		}
		if len(live) == 0 {
			f.Explanation = "every replica is fenced, shutting down or unregistered: Kafka's controller has no replica to elect until one comes back (PartitionChangeBuilder.electLeader)"
		} else {
			f.Severity = Warning
			f.Message += fmt.Sprintf("; replicas %v are unfenced but none is electable", live)
			f.Explanation = "without unclean.leader.election.enable Kafka elects only ISR (or ELR) members (PartitionChangeBuilder.electLeader)"
		}
		c.add(f)
	}
}
