package answer

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/internal/datadriven"
)

// simCommands build the image: the hand-built edge image, or a simulated
// cluster and its operations; config sets the Responder's Config.
func simCommands() map[string]scriptCommand {
	byID := func(op func(sim *deltatest.Simulator, id int32) error) func(*script, *testing.T, *datadriven.Case) string {
		return func(s *script, t *testing.T, c *datadriven.Case) string {
			return result(op(s.simulator(t, c), id(t, c, 0)))
		}
	}
	inPartition := func(op func(sim *deltatest.Simulator, topic string, p, b int32) error) func(*script, *testing.T, *datadriven.Case) string {
		return func(s *script, t *testing.T, c *datadriven.Case) string {
			return result(op(s.simulator(t, c), arg(t, c, 0), id(t, c, 1), id(t, c, 2)))
		}
	}
	return map[string]scriptCommand{
		"load": {"edge   (the hand-built edgeImage of testimage_test.go)", func(s *script, t *testing.T, c *datadriven.Case) string {
			if arg(t, c, 0) != "edge" {
				t.Fatalf("%s: load edge", c.Pos)
			}
			s.sim, s.img = nil, edgeImage(t)
			return "ok"
		}},
		"sim": {"[seed=N] [mv=LEVEL] [elr=0]   (a new deltatest.Simulator)", (*script).newSim},
		"add-brokers": {"N   (registered and unfenced, PLAINTEXT)", func(s *script, t *testing.T, c *datadriven.Case) string {
			return result(s.simulator(t, c).AddBrokers(int(id(t, c, 0))))
		}},
		"register-broker":     {"ID [rack=R] [listeners=NAME:HOST:PORT,...]   (registered, fenced)", (*script).registerBroker},
		"unfence-broker":      {"ID", byID((*deltatest.Simulator).UnfenceBroker)},
		"fence-broker":        {"ID", byID((*deltatest.Simulator).FenceBroker)},
		"crash-broker":        {"ID", byID((*deltatest.Simulator).CrashBroker)},
		"unregister-broker":   {"ID", byID((*deltatest.Simulator).UnregisterBroker)},
		"heartbeat":           {"ID", byID((*deltatest.Simulator).Heartbeat)},
		"controlled-shutdown": {"ID", byID((*deltatest.Simulator).ControlledShutdown)},
		"register-controller": {"ID   (listener CONTROLLER at controller-ID:9093)", byID(func(sim *deltatest.Simulator, id int32) error {
			return sim.RegisterController(deltatest.ControllerSpec{ID: id})
		})},
		"unregister-controller": {"ID", byID((*deltatest.Simulator).UnregisterController)},
		"create-topic": {"NAME PARTITIONS RF", func(s *script, t *testing.T, c *datadriven.Case) string {
			_, err := s.simulator(t, c).CreateTopic(deltatest.TopicSpec{Name: arg(t, c, 0), Partitions: int(id(t, c, 1)), ReplicationFactor: int(id(t, c, 2))})
			return result(err)
		}},
		"delete-topic": {"NAME", func(s *script, t *testing.T, c *datadriven.Case) string {
			return result(s.simulator(t, c).DeleteTopic(arg(t, c, 0)))
		}},
		"shrink-isr": {"TOPIC PARTITION BROKER", inPartition((*deltatest.Simulator).ShrinkISR)},
		"expand-isr": {"TOPIC PARTITION BROKER", inPartition((*deltatest.Simulator).ExpandISR)},
		"elect-unclean": {"TOPIC PARTITION", func(s *script, t *testing.T, c *datadriven.Case) string {
			return result(s.simulator(t, c).ElectUncleanLeader(arg(t, c, 0), id(t, c, 1)))
		}},
		"set-topic-config": {"TOPIC KEY VALUE", func(s *script, t *testing.T, c *datadriven.Case) string {
			return result(s.simulator(t, c).SetTopicConfig(arg(t, c, 0), arg(t, c, 1), arg(t, c, 2)))
		}},
		"set-broker-config": {"BROKER|\"\" KEY VALUE   (\"\" is the cluster default)", func(s *script, t *testing.T, c *datadriven.Case) string {
			v := arg(t, c, 2)
			return result(s.simulator(t, c).AlterConfigs(deltatest.BrokerResource, strings.Trim(arg(t, c, 0), `"`), map[string]*string{arg(t, c, 1): &v}))
		}},
		"set-quota": {"TYPE=NAME|<default>... KEY=VALUE   (TYPE user, client-id, ip)", (*script).setQuota},
		"set-feature": {"NAME LEVEL", func(s *script, t *testing.T, c *datadriven.Case) string {
			return result(s.simulator(t, c).SetFeature(arg(t, c, 0), int16(id(t, c, 1))))
		}},
		"advance": {"DURATION", func(s *script, t *testing.T, c *datadriven.Case) string {
			d, err := time.ParseDuration(arg(t, c, 0))
			if err != nil {
				t.Fatalf("%s: %v", c.Pos, err)
			}
			return result(s.simulator(t, c).Advance(d))
		}},
		"config": {"[cluster-id=S] [auto-create=false] [group-partitions=N] [txn-partitions=N] [share-partitions=N] [max-partitions=N] [num-partitions=N] [rf=N] [internal-rf=N] [authorizer=standard] [super=U,...]   (the Responder's Config from now on)", (*script).config},
	}
}

func (s *script) simulator(t *testing.T, c *datadriven.Case) *deltatest.Simulator {
	if s.sim == nil {
		t.Fatalf("%s: %s needs a simulator (sim first)", c.Pos, c.Cmd)
	}
	return s.sim
}

func (s *script) newSim(t *testing.T, c *datadriven.Case) string {
	cfg := deltatest.Config{Seed: 1}
	if v, ok := c.Arg("seed"); ok {
		n, _ := strconv.ParseInt(v, 10, 64)
		cfg.Seed = n
	}
	if v, ok := c.Arg("mv"); ok {
		n, _ := strconv.Atoi(v)
		mv, err := image.ParseMetadataVersionLevel(int16(n))
		if err != nil {
			t.Fatalf("%s: %v", c.Pos, err)
		}
		cfg.MetadataVersion = mv
	}
	if v, ok := c.Arg("elr"); ok {
		n, _ := strconv.Atoi(v)
		cfg.Features = map[string]int16{image.ELRFeature: int16(n)}
	}
	sim, err := deltatest.New(cfg)
	if err != nil {
		t.Fatalf("%s: %v", c.Pos, err)
	}
	s.sim, s.img = sim, nil
	return "ok"
}

func (s *script) registerBroker(t *testing.T, c *datadriven.Case) string {
	spec := deltatest.BrokerSpec{ID: id(t, c, 0)}
	spec.Rack, _ = c.Arg("rack")
	if v, ok := c.Arg("listeners"); ok {
		for _, l := range strings.Split(v, ",") {
			f := strings.Split(l, ":")
			if len(f) != 3 {
				t.Fatalf("%s: listener %q is not NAME:HOST:PORT", c.Pos, l)
			}
			port, _ := strconv.Atoi(f[2])
			spec.Listeners = append(spec.Listeners, image.Endpoint{Name: f[0], Host: f[1], Port: uint16(port)})
		}
	}
	return result(s.simulator(t, c).RegisterBroker(spec))
}

// setQuota sets one client quota key of an entity (AlterClientQuotas).
func (s *script) setQuota(t *testing.T, c *datadriven.Case) string {
	var entity []image.QuotaEntityPart
	var key string
	var value float64
	for _, a := range c.Args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "user", "client-id", "ip":
			part := image.QuotaEntityPart{Type: k}
			if v != "<default>" {
				part.Name = &v
			}
			entity = append(entity, part)
		default:
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", c.Pos, err)
			}
			key, value = k, f
		}
	}
	return result(s.simulator(t, c).AlterClientQuota(entity, key, &value))
}

func (s *script) config(t *testing.T, c *datadriven.Case) string {
	s.cfg, s.std = Config{}, nil
	i32 := func(v string) int32 {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			t.Fatalf("%s: %v", c.Pos, err)
		}
		return int32(n)
	}
	for _, a := range c.Args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "cluster-id":
			s.cfg.ClusterID = v
		case "auto-create":
			s.cfg.DisableAutoCreateTopics = v == "false"
		case "group-partitions":
			s.cfg.GroupCoordinatorPartitions = i32(v)
		case "txn-partitions":
			s.cfg.TransactionCoordinatorPartitions = i32(v)
		case "share-partitions":
			s.cfg.ShareCoordinatorPartitions = i32(v)
		case "max-partitions":
			s.cfg.MaxRequestPartitionSizeLimit = i32(v)
		case "num-partitions":
			s.cfg.NumPartitions = i32(v)
		case "rf":
			s.cfg.DefaultReplicationFactor = int16(i32(v))
		case "internal-rf":
			s.cfg.InternalTopicReplicationFactor = int16(i32(v))
		case "authorizer":
			if v != "standard" {
				t.Fatalf("%s: authorizer=standard", c.Pos)
			}
			if s.std == nil {
				s.std = &authz.Config{}
			}
		case "super":
			if s.std == nil {
				s.std = &authz.Config{}
			}
			s.std.SuperUsers = strings.Split(v, ",")
		default:
			t.Fatalf("%s: unknown config %q", c.Pos, k)
		}
	}
	return "ok"
}
