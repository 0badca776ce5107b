package deltatest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/image"
)

// randomOps drives a simulator with n random operations: broker
// registrations, crashes, restarts, controlled shutdowns, unregistrations,
// topic creation (placed and manual), partition growth, deletion, ISR
// shrinks and expansions, reassignments started, completed and cancelled,
// preferred and unclean elections, config changes and clock advances. Kafka
// errors the controller would answer with are fine (the request is refused,
// nothing is written); anything else fails the test. after runs after every
// operation with its name. The operations depend on rng alone (and n and
// the metadata.version): a seed gives one sequence
// (TestRandomOpsReproduceFromSeed).
func randomOps(t testing.TB, s *Simulator, rng *rand.Rand, n int, after func(op string)) {
	t.Helper()
	g := &opGen{s: s, rng: rng}
	// From 4.3-IV0, a second source (so that the operations at older levels
	// stay what they were) cordons and uncordons log directories now and
	// then (KIP-1066); from 4.4-IV2 it also registers and unregisters
	// controllers (KIP-1312).
	if s.mv.CordonedLogDirsSupported() {
		g.extra = rand.New(rand.NewPCG(uint64(n), uint64(s.mv)))
	}
	for i := 0; i < n; i++ {
		if g.extra != nil && g.extra.IntN(8) == 0 {
			if op, err := g.extraOp(); op != "" {
				if err != nil && !kafkaError(err) && !errors.Is(err, ErrControllerNotRegistered) {
					t.Fatalf("op %d %s: %v", i, op, err)
				}
				after(op)
				continue
			}
		}
		k := rng.IntN(22)
		var op string
		var err error
		switch {
		case k <= 6:
			op, err = g.brokerOp(k)
		case k <= 10:
			op, err = g.topicOp(k)
		default:
			op, err = g.partitionOp(k)
		}
		if op == "" {
			continue
		}
		if err != nil && !kafkaError(err) {
			t.Fatalf("op %d %s: %v", i, op, err)
		}
		after(op)
	}
}

// kafkaError reports whether err is one the controller answers a request
// with (the request is refused, nothing is written).
func kafkaError(err error) bool {
	for _, e := range []error{ErrUnknownTopic, ErrTopicExists, ErrInvalidTopic, ErrInvalidPartitions, ErrInvalidReplication,
		ErrInvalidAssignment, ErrBrokerNotRegistered, ErrDuplicateBroker, ErrInvalidRequest, ErrIneligibleReplica,
		ErrElectionNotNeeded, ErrLeaderNotAvailable, ErrNoReassignment, ErrInvalidConfig, ErrPolicyViolation} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// opGen picks random operations and their arguments for randomOps.
type opGen struct {
	s     *Simulator
	rng   *rand.Rand
	extra *rand.Rand // the cordon and controller operations, from 4.3-IV0
}

var (
	opBrokerIDs = []int32{1, 2, 3, 4, 5, 6}
	opRacks     = []string{"", "a", "b", "c"}
)

func (g *opGen) pickBroker() int32 { return opBrokerIDs[g.rng.IntN(len(opBrokerIDs))] }

// pickTopic picks a live topic, in name order so that a seed gives one
// choice.
func (g *opGen) pickTopic() (string, bool) {
	var names []string
	for name := range g.s.byName {
		names = append(names, name)
	}
	if len(names) == 0 {
		return "", false
	}
	slices.Sort(names)
	return names[g.rng.IntN(len(names))], true
}

func (g *opGen) pickPartition() (string, int32, bool) {
	name, ok := g.pickTopic()
	if !ok {
		return "", 0, false
	}
	return name, int32(g.rng.IntN(g.s.topics[g.s.byName[name]].numParts())), true
}

func (g *opGen) randomReplicas(rf int) []int32 {
	perm := g.rng.Perm(len(opBrokerIDs))
	out := make([]int32, 0, rf)
	for _, i := range perm[:rf] {
		out = append(out, opBrokerIDs[i])
	}
	return out
}

// extraOp cordons or uncordons a broker's directories, or registers or
// unregisters a controller; "" when the pick applies to nothing.
func (g *opGen) extraOp() (string, error) {
	s, id := g.s, g.pickBroker()
	switch k := g.extra.IntN(4); {
	case k < 2 && s.brokers[id] != nil:
		dirs := s.brokers[id].reg.Directories()
		return fmt.Sprintf("cordon %d", id), s.CordonLogDirs(id, dirs[g.extra.IntN(len(dirs))])
	case k == 2 && s.brokers[id] != nil:
		return fmt.Sprintf("uncordon %d", id), s.UncordonLogDirs(id, s.brokers[id].reg.Directories()...)
	case k == 3 && s.mv.ControllerUnregistrationSupported():
		cid := int32(3000 + g.extra.IntN(3))
		if g.extra.IntN(2) == 0 {
			return fmt.Sprintf("register controller %d", cid), s.RegisterController(ControllerSpec{ID: cid})
		}
		return fmt.Sprintf("unregister controller %d", cid), s.UnregisterController(cid)
	}
	return "", nil
}

// brokerOp is operation k of 0..6: broker lifecycle and the clock.
func (g *opGen) brokerOp(k int) (string, error) {
	s := g.s
	switch k {
	case 0, 1:
		id := g.pickBroker()
		return fmt.Sprintf("register %d", id), s.RegisterBroker(BrokerSpec{ID: id, Rack: opRacks[int(id)%len(opRacks)]})
	case 2:
		id := g.pickBroker()
		return fmt.Sprintf("unfence %d", id), s.UnfenceBroker(id)
	case 3:
		id := g.pickBroker()
		return fmt.Sprintf("crash %d", id), s.CrashBroker(id)
	case 4:
		id := g.pickBroker()
		return fmt.Sprintf("controlled shutdown %d", id), s.ControlledShutdown(id)
	case 5:
		id := g.pickBroker()
		return fmt.Sprintf("fence %d", id), s.FenceBroker(id)
	}
	if g.rng.IntN(4) == 0 {
		id := g.pickBroker()
		return fmt.Sprintf("unregister %d", id), s.UnregisterBroker(id)
	}
	d := time.Duration(g.rng.IntN(12000)) * time.Millisecond
	return fmt.Sprintf("advance %v", d), s.Advance(d)
}

// topicOp is operation k of 7..10: topic creation, growth and deletion.
func (g *opGen) topicOp(k int) (string, error) {
	s, rng := g.s, g.rng
	switch k {
	case 7, 8:
		name := fmt.Sprintf("t%d", rng.IntN(12))
		spec := TopicSpec{Name: name, Partitions: 1 + rng.IntN(6), ReplicationFactor: 1 + rng.IntN(3)}
		if rng.IntN(3) == 0 {
			spec.Configs = map[string]string{"min.insync.replicas": fmt.Sprint(1 + rng.IntN(3)), "cleanup.policy": "compact"}
		}
		if rng.IntN(4) == 0 {
			spec.Configs = map[string]string{"unclean.leader.election.enable": "true"}
		}
		if rng.IntN(3) == 0 {
			rf := 1 + rng.IntN(3)
			for range 1 + rng.IntN(4) {
				spec.Assignment = append(spec.Assignment, g.randomReplicas(rf))
			}
			spec.Partitions, spec.ReplicationFactor = 0, 0
		}
		_, err := s.CreateTopic(spec)
		return "create " + name, err
	case 9:
		if name, ok := g.pickTopic(); ok {
			return "grow " + name, s.CreatePartitions(name, s.topics[s.byName[name]].numParts()+1+rng.IntN(3), nil)
		}
	case 10:
		if name, ok := g.pickTopic(); ok && rng.IntN(3) == 0 {
			return "delete " + name, s.DeleteTopic(name)
		}
	}
	return "", nil
}

// partitionOp is operation k of 11..21: ISR changes, reassignments,
// elections, min.insync.replicas, leader balancing and failover.
func (g *opGen) partitionOp(k int) (string, error) {
	s, rng := g.s, g.rng
	if k == 20 {
		if name, ok := g.pickTopic(); ok {
			v := fmt.Sprint(1 + rng.IntN(3))
			return fmt.Sprintf("min.insync.replicas=%s on %s", v, name), s.SetTopicConfig(name, "min.insync.replicas", v)
		}
		return "", nil
	}
	if k == 21 {
		if rng.IntN(5) == 0 {
			s.Failover(0)
			return "failover", nil
		}
		return "balance leaders", s.BalanceLeaders()
	}
	name, p, ok := g.pickPartition()
	if !ok {
		return "", nil
	}
	switch k {
	case 11, 12:
		b := g.pickBroker()
		return fmt.Sprintf("shrink %s-%d %d", name, p, b), s.ShrinkISR(name, p, b)
	case 13, 14:
		b := g.pickBroker()
		return fmt.Sprintf("expand %s-%d %d", name, p, b), s.ExpandISR(name, p, b)
	case 15:
		tgt := g.randomReplicas(1 + rng.IntN(3))
		return fmt.Sprintf("reassign %s-%d %v", name, p, tgt), s.Reassign(name, p, tgt)
	case 16:
		return fmt.Sprintf("complete reassignment %s-%d", name, p), s.CompleteReassignment(name, p)
	case 17:
		return fmt.Sprintf("cancel reassignment %s-%d", name, p), s.CancelReassignment(name, p)
	case 18:
		return fmt.Sprintf("preferred election %s-%d", name, p), s.ElectPreferredLeader(name, p)
	}
	return fmt.Sprintf("unclean election %s-%d", name, p), s.ElectUncleanLeader(name, p)
}

// checkInvariants checks the invariants of every image the simulator
// reaches (the cluster a broker sees):
//   - leader in ISR and ISR within replicas, except that with ELR a leader
//     may come from the ELR (ISR then [leader]) and an unclean election
//     makes ISR [leader];
//   - leader epoch and partition epoch never decrease (against prev);
//   - no fenced (or unregistered) broker leads a partition (fencing moves
//     leaderships in the same operation), except the staleLeaders;
//   - every topic's partitions are dense 0..n-1.
func checkInvariants(t testing.TB, prev, img *image.Image, op string, staleLeaders map[int32]bool) {
	t.Helper()
	for tp := range img.Topics().All() {
		for i := 0; i < tp.NumPartitions(); i++ {
			p := tp.PartitionAt(i)
			where := fmt.Sprintf("after %q: %s-%d %s", op, tp.Name(), p.ID(), p.String())
			if p.ID() != int32(i) {
				t.Fatalf("%s: partitions not dense (index %d holds %d)", where, i, p.ID())
			}
			for _, r := range p.ISR() {
				if !p.HasReplica(r) {
					t.Fatalf("%s: ISR member %d is not a replica", where, r)
				}
			}
			if l := p.Leader(); l != image.NoLeader {
				if !p.InISR(l) {
					t.Fatalf("%s: leader %d not in the ISR", where, l)
				}
				b, ok := img.Cluster().Broker(l)
				if !ok || (b.Fenced() && !staleLeaders[l]) {
					t.Fatalf("%s: leader %d is fenced or unregistered", where, l)
				}
			}
			if prev == nil {
				continue
			}
			pt, ok := prev.TopicByID(tp.ID())
			if !ok {
				continue
			}
			if q, ok := pt.Partition(p.ID()); ok {
				if p.LeaderEpoch() < q.LeaderEpoch() || p.PartitionEpoch() < q.PartitionEpoch() {
					t.Fatalf("%s: epochs went back from %d/%d", where, q.LeaderEpoch(), q.PartitionEpoch())
				}
			}
		}
	}
}
