package delta_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/datadriven"
	"github.com/kmeta-go/kmeta/record"
)

// simCommands start a simulator and drive its clock and features.
func simCommands() []namedCommand {
	return []namedCommand{
		{"sim", scriptCommand{"[from-image] [seed=N] [mv=4.1-IV1] [release=4.3] [elr=0|1] [min-isr=N] [unclean=true]", (*replayScript).newSim}},
		{"advance", scriptCommand{"DURATION", func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			d, err := time.ParseDuration(pos(t, c, 0))
			if err != nil {
				t.Fatalf("%s: %v", c.Pos, err)
			}
			return s.step(t, c, func(sim *deltatest.Simulator) error { return sim.Advance(d) })
		}}},
		{"failover", scriptCommand{"[CONTROLLER]", func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			var id int32
			if len(c.Positional()) > 0 {
				id = id32(t, c, 0)
			}
			return s.step(t, c, func(sim *deltatest.Simulator) error { sim.Failover(id); return nil })
		}}},
		{"set-feature", scriptCommand{"NAME LEVEL", func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			name, level := pos(t, c, 0), int16(id32(t, c, 1))
			return s.step(t, c, func(sim *deltatest.Simulator) error { return sim.SetFeature(name, level) })
		}}},
		{"mark", scriptCommand{"NAME   (remember the current image as NAME)", func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			s.marks[pos(t, c, 0)] = s.image()
			return "ok"
		}}},
	}
}

// metadataVersion parses a metadata.version by name ("3.3-IV3") or level.
func metadataVersion(t *testing.T, c *datadriven.Case, v string) image.MetadataVersion {
	if n, err := strconv.Atoi(v); err == nil {
		mv, err := image.ParseMetadataVersionLevel(int16(n))
		if err != nil {
			t.Fatalf("%s: %v", c.Pos, err)
		}
		return mv
	}
	for l := image.MV3_0_IV1; l <= image.LatestMetadataVersion; l++ {
		if l.String() == v {
			return l
		}
	}
	t.Fatalf("%s: no metadata.version %q", c.Pos, v)
	return 0
}

func release(t *testing.T, c *datadriven.Case, v string) deltatest.Release {
	for r := deltatest.Kafka32; r <= deltatest.Kafka44; r++ {
		if r.String() == v {
			return r
		}
	}
	t.Fatalf("%s: no release %q", c.Pos, v)
	return 0
}

// newSim starts a simulator: on an empty log, or (from-image) as the
// controller that loaded the current image as a snapshot.
func (s *replayScript) newSim(t *testing.T, c *datadriven.Case) string {
	cfg := deltatest.Config{Seed: 1}
	for _, a := range c.Args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "from-image":
		case "seed":
			cfg.Seed = num(t, c, v)
		case "mv":
			cfg.MetadataVersion = metadataVersion(t, c, v)
		case "release":
			cfg.Release = release(t, c, v)
		case "elr":
			cfg.Features = map[string]int16{image.ELRFeature: int16(num(t, c, v))}
		case "min-isr":
			cfg.MinInSyncReplicas = int(num(t, c, v))
		case "unclean":
			cfg.UncleanLeaderElection = v == "true"
		default:
			t.Fatalf("%s: sim: unknown argument %q", c.Pos, a)
		}
	}
	var sim *deltatest.Simulator
	var err error
	if len(c.Positional()) > 0 && pos(t, c, 0) == "from-image" {
		sim, err = deltatest.FromImage(s.image(), cfg)
	} else {
		sim, err = deltatest.New(cfg)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	s.sim, s.img, s.last, s.lastFrom = sim, nil, nil, 0
	s.levels[sim.MetadataVersion()] = true
	return "ok"
}

// brokerCommands register, fence and unfence brokers and controllers.
func brokerCommands() []namedCommand {
	byID := func(op func(sim *deltatest.Simulator, id int32) error) func(*replayScript, *testing.T, *datadriven.Case) string {
		return func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			id := id32(t, c, 0)
			return s.step(t, c, func(sim *deltatest.Simulator) error { return op(sim, id) })
		}
	}
	return []namedCommand{
		{"add-brokers", scriptCommand{"N [racks=a,b]", func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			n := int(id32(t, c, 0))
			var racks []string
			if v, ok := c.Arg("racks"); ok {
				racks = strings.Split(v, ",")
			}
			return s.step(t, c, func(sim *deltatest.Simulator) error { return sim.AddBrokers(n, racks...) })
		}}},
		{"register-broker", scriptCommand{"ID [rack=R] [listeners=NAME:HOST:PORT,...] [dirs=N]", (*replayScript).registerBroker}},
		{"unfence-broker", scriptCommand{"ID", byID((*deltatest.Simulator).UnfenceBroker)}},
		{"fence-broker", scriptCommand{"ID", byID((*deltatest.Simulator).FenceBroker)}},
		{"crash-broker", scriptCommand{"ID", byID((*deltatest.Simulator).CrashBroker)}},
		{"heartbeat", scriptCommand{"ID", byID((*deltatest.Simulator).Heartbeat)}},
		{"begin-controlled-shutdown", scriptCommand{"ID", byID((*deltatest.Simulator).BeginControlledShutdown)}},
		{"controlled-shutdown", scriptCommand{"ID", byID((*deltatest.Simulator).ControlledShutdown)}},
		{"unregister-broker", scriptCommand{"ID", byID((*deltatest.Simulator).UnregisterBroker)}},
		{"cordon-log-dirs", scriptCommand{"ID DIR-INDEX...", (*replayScript).cordon}},
		{"uncordon-log-dirs", scriptCommand{"ID DIR-INDEX...", (*replayScript).cordon}},
		{"register-controller", scriptCommand{"ID", byID(func(sim *deltatest.Simulator, id int32) error {
			return sim.RegisterController(deltatest.ControllerSpec{ID: id})
		})}},
		{"unregister-controller", scriptCommand{"ID", byID((*deltatest.Simulator).UnregisterController)}},
	}
}

func (s *replayScript) registerBroker(t *testing.T, c *datadriven.Case) string {
	spec := deltatest.BrokerSpec{ID: id32(t, c, 0)}
	spec.Rack, _ = c.Arg("rack")
	if v, ok := c.Arg("listeners"); ok {
		for _, l := range strings.Split(v, ",") {
			f := strings.Split(l, ":")
			if len(f) != 3 {
				t.Fatalf("%s: listener %q is not NAME:HOST:PORT", c.Pos, l)
			}
			spec.Listeners = append(spec.Listeners, image.Endpoint{Name: f[0], Host: f[1], Port: uint16(num(t, c, f[2]))})
		}
	}
	if v, ok := c.Arg("dirs"); ok { // directories 01.., 02.. so that scripts can name them
		for i := range num(t, c, v) {
			spec.LogDirs = append(spec.LogDirs, record.UUID{0: byte(spec.ID), 15: byte(i + 1)})
		}
	}
	return s.step(t, c, func(sim *deltatest.Simulator) error { return sim.RegisterBroker(spec) })
}

// cordon cordons or uncordons directories of a broker, named by their index
// in its registration.
func (s *replayScript) cordon(t *testing.T, c *datadriven.Case) string {
	id := id32(t, c, 0)
	br, ok := s.image().Cluster().Broker(id)
	if !ok {
		t.Fatalf("%s: no broker %d", c.Pos, id)
	}
	var dirs []record.UUID
	for _, p := range c.Positional()[1:] {
		dirs = append(dirs, br.Directories()[num(t, c, p)])
	}
	return s.step(t, c, func(sim *deltatest.Simulator) error {
		if c.Cmd == "cordon-log-dirs" {
			return sim.CordonLogDirs(id, dirs...)
		}
		return sim.UncordonLogDirs(id, dirs...)
	})
}

// topicCommands create, grow and delete topics and set their configs.
func topicCommands() []namedCommand {
	return []namedCommand{
		{"create-topic", scriptCommand{"NAME PARTITIONS RF [assign=1:2,2:3] [id=N] [KEY=VALUE configs...]", (*replayScript).createTopic}},
		{"create-partitions", scriptCommand{"NAME COUNT", func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			name, n := pos(t, c, 0), int(id32(t, c, 1))
			return s.step(t, c, func(sim *deltatest.Simulator) error { return sim.CreatePartitions(name, n, nil) })
		}}},
		{"delete-topic", scriptCommand{"NAME", func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			name := pos(t, c, 0)
			return s.step(t, c, func(sim *deltatest.Simulator) error { return sim.DeleteTopic(name) })
		}}},
		{"set-topic-config", scriptCommand{"TOPIC KEY VALUE", func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			tp, k, v := pos(t, c, 0), pos(t, c, 1), pos(t, c, 2)
			return s.step(t, c, func(sim *deltatest.Simulator) error { return sim.SetTopicConfig(tp, k, v) })
		}}},
		{"delete-topic-config", scriptCommand{"TOPIC KEY", func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			tp, k := pos(t, c, 0), pos(t, c, 1)
			return s.step(t, c, func(sim *deltatest.Simulator) error { return sim.DeleteTopicConfig(tp, k) })
		}}},
	}
}

func (s *replayScript) createTopic(t *testing.T, c *datadriven.Case) string {
	spec := deltatest.TopicSpec{Name: pos(t, c, 0)}
	for _, a := range c.Args {
		k, v, ok := strings.Cut(a, "=")
		switch {
		case !ok:
		case k == "assign":
			for _, r := range strings.Split(v, ",") {
				spec.Assignment = append(spec.Assignment, ids(t, c, strings.ReplaceAll(r, ":", ",")))
			}
		case k == "id":
			spec.ID = record.UUID{0: 0x70, 15: byte(num(t, c, v))}
		default:
			if spec.Configs == nil {
				spec.Configs = map[string]string{}
			}
			spec.Configs[k] = v
		}
	}
	if spec.Assignment == nil {
		spec.Partitions, spec.ReplicationFactor = int(id32(t, c, 1)), int(id32(t, c, 2))
	}
	return s.step(t, c, func(sim *deltatest.Simulator) error { _, err := sim.CreateTopic(spec); return err })
}

// partitionCommands change leaders, ISRs and assignments.
func partitionCommands() []namedCommand {
	byPartition := func(op func(sim *deltatest.Simulator, topic string, p int32) error) func(*replayScript, *testing.T, *datadriven.Case) string {
		return func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			tp, p := pos(t, c, 0), id32(t, c, 1)
			return s.step(t, c, func(sim *deltatest.Simulator) error { return op(sim, tp, p) })
		}
	}
	withBroker := func(op func(sim *deltatest.Simulator, topic string, p, b int32) error) func(*replayScript, *testing.T, *datadriven.Case) string {
		return func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			tp, p, b := pos(t, c, 0), id32(t, c, 1), id32(t, c, 2)
			return s.step(t, c, func(sim *deltatest.Simulator) error { return op(sim, tp, p, b) })
		}
	}
	withList := func(op func(sim *deltatest.Simulator, topic string, p int32, l []int32) error) func(*replayScript, *testing.T, *datadriven.Case) string {
		return func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			tp, p, l := pos(t, c, 0), id32(t, c, 1), ids(t, c, pos(t, c, 2))
			return s.step(t, c, func(sim *deltatest.Simulator) error { return op(sim, tp, p, l) })
		}
	}
	return []namedCommand{
		{"shrink-isr", scriptCommand{"TOPIC PARTITION BROKER", withBroker((*deltatest.Simulator).ShrinkISR)}},
		{"expand-isr", scriptCommand{"TOPIC PARTITION BROKER", withBroker((*deltatest.Simulator).ExpandISR)}},
		{"alter-partition", scriptCommand{"TOPIC PARTITION ISR(1,2,3)", withList((*deltatest.Simulator).AlterPartition)}},
		{"reassign", scriptCommand{"TOPIC PARTITION TARGET(1,2,3)", withList((*deltatest.Simulator).Reassign)}},
		{"complete-reassignment", scriptCommand{"TOPIC PARTITION", byPartition((*deltatest.Simulator).CompleteReassignment)}},
		{"cancel-reassignment", scriptCommand{"TOPIC PARTITION", byPartition((*deltatest.Simulator).CancelReassignment)}},
		{"elect-preferred", scriptCommand{"TOPIC PARTITION", byPartition((*deltatest.Simulator).ElectPreferredLeader)}},
		{"elect-unclean", scriptCommand{"TOPIC PARTITION", byPartition((*deltatest.Simulator).ElectUncleanLeader)}},
		{"balance-leaders", scriptCommand{"", func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			return s.step(t, c, (*deltatest.Simulator).BalanceLeaders)
		}}},
	}
}
