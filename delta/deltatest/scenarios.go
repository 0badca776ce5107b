package deltatest

import (
	"fmt"
	"time"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
)

// MustCluster is a simulator (Config{}: Kafka 4.1 at metadata.version
// 4.1-IV1) with brokers 1..n registered and unfenced. It panics on error,
// for tests and examples.
func MustCluster(n int) *Simulator {
	s := MustNew(Config{})
	if err := s.AddBrokers(n); err != nil {
		panic(err)
	}
	return s
}

// ImageLagging returns the image of a broker that has replayed all but the
// last n batches of the log: a per-broker replay lag in batches.
func (s *Simulator) ImageLagging(n int) (*image.Image, error) {
	if n <= 0 {
		return s.Image(), nil
	}
	if n >= len(s.batches) {
		return s.startImage(), nil
	}
	return s.ImageAt(s.batches[len(s.batches)-n-1].LastOffset())
}

// ImageAsOf returns the image of a broker that has replayed every batch
// appended at or before t: a per-broker replay lag in time.
func (s *Simulator) ImageAsOf(t time.Time) (*image.Image, error) {
	ms := t.UnixMilli()
	n := 0
	for i := len(s.batches) - 1; i >= 0 && s.batches[i].AppendTime > ms; i-- {
		n++
	}
	return s.ImageLagging(n)
}

// Scenario is one of the stories below (a crash, a stalled broker, doubled
// partitions, a controller failover) played on a
// simulator: the image just before the event, the image after it, and the
// delta between them as a metadata publisher would receive it.
type Scenario struct {
	Sim    *Simulator
	Before *image.Image
	After  *image.Image
	Delta  *delta.Delta
	// Broker is the broker at the centre of the story (the one that crashes
	// or falls behind), -1 if none.
	Broker int32
	// Lagging is the image of the broker that fell behind
	// (BrokerFallsBehind): its view when it stalled.
	Lagging *image.Image
	// Detected is when the controller acted (the fencing after the session
	// timeout), zero if not applicable.
	Detected time.Time
}

func (s *Simulator) finish(sc *Scenario) (*Scenario, error) {
	d, after, err := s.Changes(sc.Before)
	if err != nil {
		return nil, err
	}
	sc.Sim, sc.Delta, sc.After = s, d, after
	return sc, nil
}

// ReconnectionStorm is scenario 1: six brokers in three racks, topics
// placed so that broker 4 leads about leaderships partitions (500 if 0);
// broker 4 crashes, the controller notices after the session timeout and
// moves its leaderships to the first live ISR member of each partition.
// Before is the cluster just before the crash; the delta holds the fencing.
func ReconnectionStorm(seed int64, leaderships int) (*Scenario, error) {
	if leaderships <= 0 {
		leaderships = 500
	}
	s, err := New(Config{Seed: seed})
	if err != nil {
		return nil, err
	}
	if err := s.AddBrokers(6, "rack-a", "rack-b", "rack-c"); err != nil {
		return nil, err
	}
	// Striping spreads leaderships evenly: 6 × leaderships partitions in
	// topics of 50 partitions, RF 3.
	total := 6 * leaderships
	for i := 0; total > 0; i++ {
		n := min(50, total)
		if _, err := s.CreateTopic(TopicSpec{Name: fmt.Sprintf("events-%03d", i), Partitions: n, ReplicationFactor: 3}); err != nil {
			return nil, err
		}
		total -= n
	}
	if err := s.Advance(time.Second); err != nil {
		return nil, err
	}
	sc := &Scenario{Broker: 4, Before: s.Image()}
	if err := s.CrashBroker(4); err != nil {
		return nil, err
	}
	for !s.fenced(4) {
		if err := s.Advance(100 * time.Millisecond); err != nil {
			return nil, err
		}
	}
	sc.Detected = s.Now()
	return s.finish(sc)
}

func (s *Simulator) fenced(id int32) bool {
	b := s.brokers[id]
	return b != nil && b.reg.Fenced()
}

// BrokerFallsBehind is scenario 2: broker 2's disk stalls for stall (20 s
// if 0). It stops heartbeating and stops applying the log; the controller
// fences it after the session timeout and moves its leaderships. Lagging is
// broker 2's image (the log as it was when the stall began: it still
// believes it leads), After the cluster's. When the stall ends broker 2
// heartbeats again and is unfenced (the simulator's Advance).
func BrokerFallsBehind(seed int64, stall time.Duration) (*Scenario, error) {
	if stall <= 0 {
		stall = 20 * time.Second
	}
	s, err := New(Config{Seed: seed})
	if err != nil {
		return nil, err
	}
	if err := s.AddBrokers(3); err != nil {
		return nil, err
	}
	if _, err := s.CreateTopic(TopicSpec{Name: "orders", Partitions: 6, ReplicationFactor: 3}); err != nil {
		return nil, err
	}
	sc := &Scenario{Broker: 2, Before: s.Image()}
	sc.Lagging = sc.Before
	stalled := s.Now()
	if err := s.CrashBroker(2); err != nil { // stalled: no heartbeats, no replay
		return nil, err
	}
	for !s.fenced(2) {
		if err := s.Advance(100 * time.Millisecond); err != nil {
			return nil, err
		}
	}
	sc.Detected = s.Now()
	if rest := stall - s.Now().Sub(stalled); rest > 0 {
		if err := s.Advance(rest); err != nil {
			return nil, err
		}
	}
	return s.finish(sc)
}

// ordersCluster is the small cluster scenarios 3 and 4 start from: three
// brokers and the topic "orders" with 6 partitions, RF 3; the scenario's
// Before image is taken.
func ordersCluster(seed int64) (*Simulator, *Scenario, error) {
	s, err := New(Config{Seed: seed})
	if err != nil {
		return nil, nil, err
	}
	if err := s.AddBrokers(3); err != nil {
		return nil, nil, err
	}
	if _, err := s.CreateTopic(TopicSpec{Name: "orders", Partitions: 6, ReplicationFactor: 3}); err != nil {
		return nil, nil, err
	}
	return s, &Scenario{Broker: -1, Before: s.Image()}, nil
}

// DoublePartitions is scenario 3: topic "orders" grows from 6 to 12
// partitions; the delta reports the growth (delta.PartitionGrowth).
func DoublePartitions(seed int64) (*Scenario, error) {
	s, sc, err := ordersCluster(seed)
	if err != nil {
		return nil, err
	}
	if err := s.CreatePartitions("orders", 12, nil); err != nil {
		return nil, err
	}
	return s.finish(sc)
}

// ControllerFailover is scenario 4: the active controller fails over; the
// log gains a new raft leader epoch and its LeaderChange control batch, and
// no metadata record: the delta is empty.
func ControllerFailover(seed int64) (*Scenario, error) {
	s, sc, err := ordersCluster(seed)
	if err != nil {
		return nil, err
	}
	if err := s.Advance(3 * time.Second); err != nil {
		return nil, err
	}
	s.Failover(3001)
	return s.finish(sc)
}

// Step runs op (any operations on the simulator) and returns the delta from
// the image before it to the image after it, as a metadata publisher
// receives it.
func (s *Simulator) Step(op func() error) (*delta.Delta, *image.Image, error) {
	before := s.Image()
	if err := op(); err != nil {
		return nil, nil, err
	}
	return s.Changes(before)
}
