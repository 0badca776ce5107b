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
// operation with its name.
func randomOps(t testing.TB, s *Simulator, rng *rand.Rand, n int, after func(op string)) {
	t.Helper()
	kafkaErr := func(err error) bool {
		for _, e := range []error{ErrUnknownTopic, ErrTopicExists, ErrInvalidTopic, ErrInvalidPartitions, ErrInvalidReplication,
			ErrInvalidAssignment, ErrBrokerNotRegistered, ErrDuplicateBroker, ErrInvalidRequest, ErrIneligibleReplica,
			ErrElectionNotNeeded, ErrLeaderNotAvailable, ErrNoReassignment, ErrInvalidConfig, ErrPolicyViolation} {
			if errors.Is(err, e) {
				return true
			}
		}
		return false
	}
	pickTopic := func() (string, bool) {
		var names []string
		for name := range s.byName {
			names = append(names, name)
		}
		if len(names) == 0 {
			return "", false
		}
		slices.Sort(names)
		return names[rng.IntN(len(names))], true
	}
	pickPartition := func() (string, int32, bool) {
		name, ok := pickTopic()
		if !ok {
			return "", 0, false
		}
		return name, int32(rng.IntN(s.topics[s.byName[name]].numParts())), true
	}
	brokerIDs := []int32{1, 2, 3, 4, 5, 6}
	pickBroker := func() int32 { return brokerIDs[rng.IntN(len(brokerIDs))] }
	randomReplicas := func(rf int) []int32 {
		perm := rng.Perm(len(brokerIDs))
		out := make([]int32, 0, rf)
		for _, i := range perm[:rf] {
			out = append(out, brokerIDs[i])
		}
		return out
	}
	racks := []string{"", "a", "b", "c"}
	// From 4.3-IV0, a second source (so that the operations at older levels
	// stay what they were) cordons and uncordons log directories now and
	// then (KIP-1066); from 4.4-IV2 it also registers and unregisters
	// controllers (KIP-1312).
	var extra *rand.Rand
	if s.mv.CordonedLogDirsSupported() {
		extra = rand.New(rand.NewPCG(uint64(n), uint64(s.mv)))
	}
	for i := 0; i < n; i++ {
		var op string
		var err error
		if extra != nil && extra.IntN(8) == 0 {
			id := pickBroker()
			switch k := extra.IntN(4); {
			case k < 2 && s.brokers[id] != nil:
				dirs := s.brokers[id].reg.Directories()
				op = fmt.Sprintf("cordon %d", id)
				err = s.CordonLogDirs(id, dirs[extra.IntN(len(dirs))])
			case k == 2 && s.brokers[id] != nil:
				op = fmt.Sprintf("uncordon %d", id)
				err = s.UncordonLogDirs(id, s.brokers[id].reg.Directories()...)
			case k == 3 && s.mv.ControllerUnregistrationSupported():
				cid := int32(3000 + extra.IntN(3))
				if extra.IntN(2) == 0 {
					op = fmt.Sprintf("register controller %d", cid)
					err = s.RegisterController(ControllerSpec{ID: cid})
				} else {
					op = fmt.Sprintf("unregister controller %d", cid)
					err = s.UnregisterController(cid)
				}
			}
			if op != "" {
				if err != nil && !kafkaErr(err) && !errors.Is(err, ErrControllerNotRegistered) {
					t.Fatalf("op %d %s: %v", i, op, err)
				}
				after(op)
				continue
			}
		}
		switch k := rng.IntN(22); k {
		case 0, 1:
			id := pickBroker()
			op = fmt.Sprintf("register %d", id)
			err = s.RegisterBroker(BrokerSpec{ID: id, Rack: racks[int(id)%len(racks)]})
		case 2:
			id := pickBroker()
			op = fmt.Sprintf("unfence %d", id)
			err = s.UnfenceBroker(id)
		case 3:
			id := pickBroker()
			op = fmt.Sprintf("crash %d", id)
			err = s.CrashBroker(id)
		case 4:
			id := pickBroker()
			op = fmt.Sprintf("controlled shutdown %d", id)
			err = s.ControlledShutdown(id)
		case 5:
			id := pickBroker()
			op = fmt.Sprintf("fence %d", id)
			err = s.FenceBroker(id)
		case 6:
			if rng.IntN(4) == 0 {
				id := pickBroker()
				op = fmt.Sprintf("unregister %d", id)
				err = s.UnregisterBroker(id)
			} else {
				d := time.Duration(rng.IntN(12000)) * time.Millisecond
				op = fmt.Sprintf("advance %v", d)
				err = s.Advance(d)
			}
		case 7, 8:
			name := fmt.Sprintf("t%d", rng.IntN(12))
			op = "create " + name
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
					spec.Assignment = append(spec.Assignment, randomReplicas(rf))
				}
				spec.Partitions, spec.ReplicationFactor = 0, 0
			}
			_, err = s.CreateTopic(spec)
		case 9:
			if name, ok := pickTopic(); ok {
				op = "grow " + name
				err = s.CreatePartitions(name, s.topics[s.byName[name]].numParts()+1+rng.IntN(3), nil)
			}
		case 10:
			if name, ok := pickTopic(); ok && rng.IntN(3) == 0 {
				op = "delete " + name
				err = s.DeleteTopic(name)
			}
		case 11, 12:
			if name, p, ok := pickPartition(); ok {
				b := pickBroker()
				op = fmt.Sprintf("shrink %s-%d %d", name, p, b)
				err = s.ShrinkISR(name, p, b)
			}
		case 13, 14:
			if name, p, ok := pickPartition(); ok {
				b := pickBroker()
				op = fmt.Sprintf("expand %s-%d %d", name, p, b)
				err = s.ExpandISR(name, p, b)
			}
		case 15:
			if name, p, ok := pickPartition(); ok {
				tgt := randomReplicas(1 + rng.IntN(3))
				op = fmt.Sprintf("reassign %s-%d %v", name, p, tgt)
				err = s.Reassign(name, p, tgt)
			}
		case 16:
			if name, p, ok := pickPartition(); ok {
				op = fmt.Sprintf("complete reassignment %s-%d", name, p)
				err = s.CompleteReassignment(name, p)
			}
		case 17:
			if name, p, ok := pickPartition(); ok {
				op = fmt.Sprintf("cancel reassignment %s-%d", name, p)
				err = s.CancelReassignment(name, p)
			}
		case 18:
			if name, p, ok := pickPartition(); ok {
				op = fmt.Sprintf("preferred election %s-%d", name, p)
				err = s.ElectPreferredLeader(name, p)
			}
		case 19:
			if name, p, ok := pickPartition(); ok {
				op = fmt.Sprintf("unclean election %s-%d", name, p)
				err = s.ElectUncleanLeader(name, p)
			}
		case 20:
			if name, ok := pickTopic(); ok {
				v := fmt.Sprint(1 + rng.IntN(3))
				op = fmt.Sprintf("min.insync.replicas=%s on %s", v, name)
				err = s.SetTopicConfig(name, "min.insync.replicas", v)
			}
		case 21:
			if rng.IntN(5) == 0 {
				op = "failover"
				s.Failover(0)
			} else {
				op = "balance leaders"
				err = s.BalanceLeaders()
			}
		}
		if op == "" {
			continue
		}
		if err != nil && !kafkaErr(err) {
			t.Fatalf("op %d %s: %v", i, op, err)
		}
		after(op)
	}
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
