package deltatest

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// BrokerSpec is a BrokerRegistrationRequest.
type BrokerSpec struct {
	ID int32
	// Rack is the broker's rack; "" means none.
	Rack string
	// Listeners; nil means one PLAINTEXT listener "broker-<id>:9092".
	Listeners []image.Endpoint
	// LogDirs (MV >= 3.7-IV2); nil means one directory with a random id.
	LogDirs []record.UUID
	// Incarnation; zero means a random id, a new incarnation on every
	// registration.
	Incarnation record.UUID
	// CordonedLogDirs (MV >= 4.3-IV0, KIP-1066) are the log directories the
	// broker's cordoned.log.dirs names at start-up, reported by its
	// heartbeats once it has caught up; each must be one of LogDirs. Nil
	// means none: the heartbeats report an empty list.
	CordonedLogDirs []record.UUID
}

func (s *Simulator) checkPeriod() int64 { return max(s.session/8, 1) }

// RegisterBroker registers a broker (QuorumController.registerBroker →
// ClusterControlManager.registerBroker): a fenced
// RegisterBrokerRecord whose epoch is the offset of the operation's first
// record, preceded in 4.x by the clean-up records of a new incarnation. The
// broker then heartbeats: it is unfenced at its next heartbeat (Advance) or
// by UnfenceBroker.
func (s *Simulator) RegisterBroker(spec BrokerSpec) error {
	if spec.ID < 0 {
		return fmt.Errorf("%w: broker id %d", ErrInvalidRequest, spec.ID)
	}
	old := s.brokers[spec.ID]
	inc := spec.Incarnation
	if inc == (record.UUID{}) {
		inc = randomUUID(s.idRnd)
	}
	if old != nil && old.reg.IncarnationID() != inc && s.validSession(old) {
		return fmt.Errorf("%w: another broker is registered with id %d; it should self-resolve once the heartbeat manager expires its session", ErrDuplicateBroker, spec.ID)
	}
	r := record.NewRegisterBrokerRecord()
	r.BrokerID, r.IncarnationID = spec.ID, inc
	// ClusterControlManager.registerBroker copies the request's rack: null
	// for a broker without broker.rack (BrokerLifecycleManager sends
	// rack.orNull), not the schema default "" that Default() sets.
	r.Rack = nil
	if spec.Rack != "" {
		r.Rack = ptr(spec.Rack)
	}
	ls := spec.Listeners
	if ls == nil {
		ls = []image.Endpoint{{Name: "PLAINTEXT", Host: fmt.Sprintf("broker-%d", spec.ID), Port: 9092}}
	}
	for _, l := range ls {
		r.EndPoints = append(r.EndPoints, record.BrokerEndpoint{Name: l.Name, Host: l.Host, Port: l.Port, SecurityProtocol: l.SecurityProtocol})
	}
	for _, f := range s.supportedFeatures() {
		r.Features = append(r.Features, record.BrokerFeature{Name: f.Name, MinSupportedVersion: f.Min, MaxSupportedVersion: f.Max})
	}
	dirs, err := s.registrationDirs(spec, old, inc)
	if err != nil {
		return err
	}
	r.LogDirs = dirs
	var recs []image.VersionedRecord
	epoch := s.nextOffset
	amend := old != nil && old.reg.IncarnationID() == inc
	if !amend && s.release >= Kafka40 {
		recs = s.previousIncarnationCleanup(spec.ID, old)
	}
	switch {
	case amend && s.release >= Kafka39:
		r.BrokerEpoch, r.Fenced, r.InControlledShutdown = old.reg.Epoch(), old.reg.Fenced(), old.reg.InControlledShutdown()
	case amend && s.release == Kafka38:
		r.BrokerEpoch, r.Fenced, r.InControlledShutdown = epoch, old.reg.Fenced(), old.reg.InControlledShutdown()
	default:
		r.BrokerEpoch, r.Fenced = epoch, true
	}
	recs = append(recs, vr(r, s.mv.RegisterBrokerRecordVersion()))
	if err := s.commit(recs, s.release < Kafka40); err != nil {
		return err
	}
	b := s.brokers[spec.ID]
	b.alive, b.lastContact, b.nextHeartbeat, b.cleanShutdown, b.tracked = true, s.now, s.now+s.heartbeat, false, true
	b.cordoned = javaSetOrder(spec.CordonedLogDirs)
	return nil
}

// registrationDirs is the log directories of a registration
// (ClusterControlManager.registerBroker, MV >= 3.7-IV2; nil below): the
// request's, those of the same incarnation, or one new directory; sorted,
// each owned by no other broker, holding the cordoned ones (4.3-IV0,
// KIP-1066).
func (s *Simulator) registrationDirs(spec BrokerSpec, old *broker, inc record.UUID) ([]record.UUID, error) {
	var out []record.UUID
	if s.mv.DirectoryAssignmentSupported() {
		dirs := spec.LogDirs
		if dirs == nil {
			if old != nil && old.reg.IncarnationID() == inc {
				dirs = old.reg.Directories()
			} else {
				dirs = []record.UUID{randomDirID(s.idRnd)}
			}
		}
		if len(dirs) == 0 {
			return nil, fmt.Errorf("%w: no log directories", ErrInvalidRequest)
		}
		for id, b := range s.brokers {
			if id == spec.ID {
				continue
			}
			for _, d := range dirs {
				if slices.Contains(b.reg.Directories(), d) {
					return nil, fmt.Errorf("%w: log directory %s belongs to broker %d", ErrInvalidRequest, d, id)
				}
			}
		}
		out = slices.Clone(dirs)
		slices.SortFunc(out, func(a, b record.UUID) int { return compareUUID(a, b) })
	}
	if len(spec.CordonedLogDirs) > 0 {
		if !s.mv.CordonedLogDirsSupported() {
			return nil, fmt.Errorf("%w: cordoned log directories need metadata.version 4.3-IV0, not %s", ErrUnsupportedVersion, s.mv)
		}
		for _, d := range spec.CordonedLogDirs {
			if !slices.Contains(out, d) {
				return nil, fmt.Errorf("%w: cordoned log directory %s is not a log directory of broker %d", ErrInvalidRequest, d, spec.ID)
			}
		}
	}
	return out, nil
}

// previousIncarnationCleanup is handleBrokerShutdown for the previous
// incarnation of a broker that registers anew (4.x, KAFKA-18106,
// KAFKA-18635): it leaves the ISRs (with ELR on and an unclean shutdown,
// as an unclean shutdown of the ISR and ELR members).
func (s *Simulator) previousIncarnationCleanup(id int32, old *broker) []image.VersionedRecord {
	var recs []image.VersionedRecord
	clean := old != nil && old.cleanShutdown
	if s.elrEnabled() && !clean {
		recs = append(recs, s.generateLeaderAndIsrUpdates(-1, -1, id, inISR(id))...)
		return append(recs, s.generateLeaderAndIsrUpdates(-1, -1, id, inELR(id))...)
	}
	return append(recs, s.generateLeaderAndIsrUpdates(id, -1, -1, inISR(id))...)
}

// supportedFeatures are the feature ranges a simulated node registers with
// (BrokerRegistrationRequest and ControllerRegistrationRequest features):
// metadata.version up to the release's newest level (and at least the
// cluster's), then 0 up to the finalized level of every finalized feature
// by name. Kafka 4.3 and 4.4 nodes register as the real 4.3 files show:
// metadata.version from 3.3-IV3 (MetadataVersion.MINIMUM_VERSION),
// kraft.version 0-1 as well, in the Java HashMap order of the names (the
// order of the real RegisterControllerRecords).
func (s *Simulator) supportedFeatures() []image.VersionRange {
	lo, hi := image.MV3_0_IV1, image.MV4_2_IV1
	switch {
	case s.release >= Kafka44:
		lo, hi = image.MV3_3_IV3, image.MV4_4_IV2
	case s.release >= Kafka43:
		lo, hi = image.MV3_3_IV3, image.MV4_3_IV0
	}
	mv := image.VersionRange{Name: image.MetadataVersionFeature, Min: int16(lo), Max: int16(max(s.mv, hi))}
	var rest []image.VersionRange
	if s.release >= Kafka43 {
		rest = append(rest, image.VersionRange{Name: image.KRaftVersionFeature, Min: 0, Max: 1})
	}
	for k, v := range s.features {
		if k != image.KRaftVersionFeature {
			rest = append(rest, image.VersionRange{Name: k, Min: 0, Max: v})
		}
	}
	slices.SortFunc(rest, func(a, b image.VersionRange) int { return strings.Compare(a.Name, b.Name) })
	if s.release < Kafka43 {
		return append([]image.VersionRange{mv}, rest...)
	}
	return hashOrder(append(rest, mv), func(f image.VersionRange) int32 { return javaStringHash(f.Name) }, 16)
}

func compareUUID(a, b record.UUID) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// randomDirID is DirectoryId.random: not one of the 100 reserved ids, not
// printing with a leading '-'.
func randomDirID(r *javaRandom) record.UUID {
	for {
		u := randomUUID(r)
		reserved := true
		for i := 0; i < 15; i++ {
			if u[i] != 0 {
				reserved = false
			}
		}
		if !reserved || u[15] >= 100 {
			return u
		}
	}
}

// validSession is ClusterControlManager's "valid session" test for a
// duplicate registration: the controller heard from the broker within the
// session timeout (a crashed broker's session stays valid until then;
// before 4.0 only an unfenced broker has a session).
func (s *Simulator) validSession(b *broker) bool {
	if s.release < Kafka40 && b.reg.Fenced() {
		return false
	}
	return b.lastContact+s.session >= s.now
}

// AddBroker registers a broker and unfences it at once: the usual way to
// build a cluster for a test.
func (s *Simulator) AddBroker(spec BrokerSpec) error {
	if err := s.RegisterBroker(spec); err != nil {
		return err
	}
	return s.UnfenceBroker(spec.ID)
}

// AddBrokers adds brokers 1..n (AddBroker with default listeners), placing
// broker i in rack racks[i mod len(racks)] when racks are given.
func (s *Simulator) AddBrokers(n int, racks ...string) error {
	for i := 1; i <= n; i++ {
		spec := BrokerSpec{ID: int32(i)}
		if len(racks) > 0 {
			spec.Rack = racks[(i-1)%len(racks)]
		}
		if err := s.AddBroker(spec); err != nil {
			return err
		}
	}
	return nil
}

func (s *Simulator) registered(id int32) (*broker, error) {
	b := s.brokers[id]
	if b == nil {
		return nil, fmt.Errorf("%w: broker %d", ErrBrokerNotRegistered, id)
	}
	return b, nil
}

// UnfenceBroker is the heartbeat that takes a fenced broker to UNFENCED
// (ReplicationControlManager.processBrokerHeartbeat, handleBrokerUnfenced):
// the unfence record (UnfenceBrokerRecord below 3.3-IV2,
// BrokerRegistrationChangeRecord v0 Fenced=-1 from it), then leaders for the
// leaderless partitions this broker can lead; from 4.3-IV0 the heartbeat
// also carries the broker's cordoned log directories, and when they differ
// from the registration's (null after a registration) a
// BrokerRegistrationChangeRecord v3 follows in the same operation
// (handleDirectoriesCordoned): the empty cordoned list the real 4.3 logs
// show after each registration. An unfenced broker writes nothing but that.
func (s *Simulator) UnfenceBroker(id int32) error {
	b, err := s.registered(id)
	if err != nil {
		return err
	}
	b.alive, b.lastContact, b.tracked = true, s.now, true
	if !b.reg.Fenced() {
		return s.reportCordoned(b)
	}
	var recs []image.VersionedRecord
	if s.mv < image.MV3_3_IV2 {
		r := record.NewUnfenceBrokerRecord()
		r.ID, r.Epoch = id, b.reg.Epoch()
		recs = append(recs, vr(r, 0))
	} else {
		r := record.NewBrokerRegistrationChangeRecord()
		r.BrokerID, r.BrokerEpoch, r.Fenced = id, b.reg.Epoch(), -1
		recs = append(recs, vr(r, 0))
	}
	recs = append(recs, s.generateLeaderAndIsrUpdates(-1, id, -1, leaderless)...)
	if c, ok := s.cordonRecord(b); ok {
		recs = append(recs, c)
	}
	return s.commit(recs, false)
}

// FenceBroker fences a broker (ReplicationControlManager.handleBrokerFenced):
// the broker leaves every ISR it can leave, its
// leaderships move to the first acceptable ISR member in replica order,
// then the fence record (FenceBrokerRecord below 3.3-IV2,
// BrokerRegistrationChangeRecord v0 Fenced=1 from it). Like Kafka it writes
// the fence record even for a broker already fenced. The
// broker keeps heartbeating unless it was crashed.
func (s *Simulator) FenceBroker(id int32) error {
	b, err := s.registered(id)
	if err != nil {
		return err
	}
	recs := s.generateLeaderAndIsrUpdates(id, -1, -1, inISR(id))
	recs = append(recs, s.fenceRecord(b))
	return s.commit(recs, false)
}

func (s *Simulator) fenceRecord(b *broker) image.VersionedRecord {
	if s.mv < image.MV3_3_IV2 {
		r := record.NewFenceBrokerRecord()
		r.ID, r.Epoch = b.reg.ID(), b.reg.Epoch()
		return vr(r, 0)
	}
	r := record.NewBrokerRegistrationChangeRecord()
	r.BrokerID, r.BrokerEpoch, r.Fenced = b.reg.ID(), b.reg.Epoch(), 1
	return vr(r, 0)
}

// BeginControlledShutdown is the heartbeat with wantShutDown that takes an
// unfenced broker into CONTROLLED_SHUTDOWN
// (ReplicationControlManager.handleBrokerInControlledShutdown):
// BrokerRegistrationChangeRecord v1 InControlledShutdown=1 (from 3.3-IV3,
// unless already set), then the broker leaves the ISRs and its leaderships
// move.
func (s *Simulator) BeginControlledShutdown(id int32) error {
	b, err := s.registered(id)
	if err != nil {
		return err
	}
	var recs []image.VersionedRecord
	if s.mv >= image.MV3_3_IV3 && !b.reg.InControlledShutdown() {
		r := record.NewBrokerRegistrationChangeRecord()
		r.BrokerID, r.BrokerEpoch, r.InControlledShutdown = id, b.reg.Epoch(), 1
		recs = append(recs, vr(r, 1))
	}
	recs = append(recs, s.generateLeaderAndIsrUpdates(id, -1, -1, inISR(id))...)
	return s.commit(recs, false)
}

// ControlledShutdown runs a broker's whole controlled shutdown: the
// CONTROLLED_SHUTDOWN transition (BeginControlledShutdown) and, once the
// broker leads nothing, the SHUTDOWN_NOW transition, which fences it
// (handleBrokerFenced). A fenced broker asking to shut down goes straight to
// SHUTDOWN_NOW, writing a redundant fence record as Kafka does. The broker
// then stops heartbeating; its shutdown was clean.
func (s *Simulator) ControlledShutdown(id int32) error {
	b, err := s.registered(id)
	if err != nil {
		return err
	}
	if !b.reg.Fenced() {
		if err := s.BeginControlledShutdown(id); err != nil {
			return err
		}
	}
	if err := s.FenceBroker(id); err != nil {
		return err
	}
	b.alive, b.cleanShutdown = false, true
	return nil
}

// CrashBroker stops a broker without telling the controller: no record now;
// the controller fences it once its session times out (Advance).
func (s *Simulator) CrashBroker(id int32) error {
	b, err := s.registered(id)
	if err != nil {
		return err
	}
	b.alive, b.cleanShutdown = false, false
	s.last = nil
	return nil
}

// UnregisterBroker is the UnregisterBroker admin request
// (ReplicationControlManager.handleBrokerUnregistered).
func (s *Simulator) UnregisterBroker(id int32) error {
	b, err := s.registered(id)
	if err != nil {
		return err
	}
	recs := s.generateLeaderAndIsrUpdates(id, -1, -1, inISR(id))
	recs = append(recs, s.generateLeaderAndIsrUpdates(id, -1, -1, inELR(id))...)
	r := record.NewUnregisterBrokerRecord()
	r.BrokerID, r.BrokerEpoch = id, b.reg.Epoch()
	recs = append(recs, vr(r, 0))
	return s.commit(recs, false)
}

// Advance moves the clock forward by d. On the way every live broker
// heartbeats every HeartbeatInterval (a fenced, registered broker is unfenced
// by its heartbeat: the simulated brokers are always caught up), the
// controller's periodic check (every SessionTimeout/8, as 4.x's
// maybeFenceStaleBroker) fences each unfenced broker whose last heartbeat is
// more than SessionTimeout old, and NoOpRecords are written if configured.
func (s *Simulator) Advance(d time.Duration) error {
	target := s.now + d.Milliseconds()
	for {
		t := target + 1
		for _, b := range s.brokers {
			if b.alive && b.nextHeartbeat < t {
				t = b.nextHeartbeat
			}
		}
		t = min(t, s.nextCheck)
		if s.noop > 0 && s.mv >= image.MV3_3_IV1 {
			t = min(t, s.nextNoOp)
		}
		if t > target {
			break
		}
		s.now = t
		if s.noop > 0 && s.mv >= image.MV3_3_IV1 && s.nextNoOp == t {
			s.nextNoOp += s.noop
			if err := s.commit([]image.VersionedRecord{vr(record.NewNoOpRecord(), 0)}, false); err != nil {
				return err
			}
		}
		for _, id := range s.brokerIDs() {
			b := s.brokers[id]
			if b == nil || !b.alive || b.nextHeartbeat != t {
				continue
			}
			b.nextHeartbeat += s.heartbeat
			if err := s.Heartbeat(id); err != nil {
				return err
			}
		}
		if s.nextCheck == t {
			s.nextCheck += s.checkPeriod()
			if err := s.fenceStaleBrokers(); err != nil {
				return err
			}
		}
	}
	s.now = target
	return nil
}

// Heartbeat is one heartbeat of a live broker: it refreshes the broker's
// session, unfences it if it is fenced (it is taken to be caught up) and,
// from 4.3-IV0, reports its cordoned log directories (a
// BrokerRegistrationChangeRecord v3 when they changed).
func (s *Simulator) Heartbeat(id int32) error {
	b, err := s.registered(id)
	if err != nil {
		return err
	}
	b.alive, b.lastContact, b.tracked = true, s.now, true
	if b.reg.Fenced() {
		return s.UnfenceBroker(id)
	}
	return s.reportCordoned(b)
}

// fenceStaleBrokers is ReplicationControlManager.maybeFenceOneStaleBroker run
// until it finds nothing: each stale unfenced broker is fenced in an
// operation of its own, by ascending id.
func (s *Simulator) fenceStaleBrokers() error {
	for _, id := range s.brokerIDs() {
		b := s.brokers[id]
		if b.lastContact+s.session >= s.now {
			continue
		}
		if b.reg.Fenced() {
			if err := s.redundantFence(b); err != nil {
				return err
			}
			continue
		}
		b.tracked = false
		if err := s.FenceBroker(id); err != nil {
			return err
		}
	}
	return nil
}

func (s *Simulator) brokerIDs() []int32 {
	ids := make([]int32, 0, len(s.brokers))
	for id := range s.brokers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Failover makes another controller active (QuorumController failover):
// a new raft leader epoch begins with its LeaderChange control batch, and the
// controller's soft state starts over (every registered broker's session
// restarts now). No metadata record is written. newLeader 0 keeps the
// controller id.
func (s *Simulator) Failover(newLeader int32) {
	if newLeader != 0 {
		s.controller = newLeader
	}
	s.raftEpoch++
	s.leaderChange()
	for _, b := range s.brokers {
		b.tracked = !b.reg.Fenced()
		if b.tracked {
			b.lastContact = s.now
		}
	}
	s.last = nil
}

// redundantFence is Kafka 4.x's maybeFenceOneStaleBroker for a fenced
// broker whose heartbeat entry expires: from 4.0 (KAFKA-17793's
// BrokerHeartbeatTracker) the controller tracks the contact time of every
// broker that heartbeats, fenced or not, and fences the one whose session
// times out again (handleBrokerFenced: its ISR updates, none for a fenced
// broker, then a BrokerRegistrationChangeRecord v0 with Fenced=1 although
// the broker is fenced already). Before 4.0 only unfenced brokers expire.
func (s *Simulator) redundantFence(b *broker) error {
	if s.release < Kafka40 || !b.tracked {
		return nil
	}
	b.tracked = false
	recs := s.generateLeaderAndIsrUpdates(b.reg.ID(), -1, -1, inISR(b.reg.ID()))
	return s.commit(append(recs, s.fenceRecord(b)), false)
}
