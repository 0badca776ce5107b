package deltatest

import (
	"fmt"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/image"

	"github.com/kmeta-go/kmeta/record"
)

func leaderships(img *image.Image, broker int32) int {
	n := 0
	for t := range img.Topics().All() {
		for p := range t.Partitions() {
			if p.Leader() == broker {
				n++
			}
		}
	}
	return n
}

// TestReconnectionStorm: a broker crash. Broker 4 led about 500
// partitions; it is fenced one session timeout (9 s, detected by the
// periodic check every 9 s / 8) after its last heartbeat, in one operation
// that moves every leadership to the first live ISR member in replica order
// (ReplicationControlManager.handleBrokerFenced).
func TestReconnectionStorm(t *testing.T) {
	for seed := range int64(3) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			sc, err := ReconnectionStorm(seed, 500)
			if err != nil {
				t.Fatal(err)
			}
			led := leaderships(sc.Before, 4)
			if led < 450 || led > 550 {
				t.Fatalf("broker 4 led %d partitions, want about 500", led)
			}
			if n := leaderships(sc.After, 4); n != 0 {
				t.Fatalf("broker 4 still leads %d partitions", n)
			}
			if b, _ := sc.After.Cluster().Broker(4); !b.Fenced() {
				t.Fatal("broker 4 not fenced")
			}
			lastBeat := sc.Before.Provenance().LastContainedLogTimeMs // the crash follows the last heartbeat closely
			wait := sc.Detected.UnixMilli() - lastBeat
			if wait < 9000 || wait > 9000+2000+1125 {
				t.Fatalf("fenced %d ms after the crash, want just past the 9 s session timeout", wait)
			}
			// every partition broker 4 led has its first live ISR member as leader
			for tp := range sc.Before.Topics().All() {
				for p := range tp.Partitions() {
					if p.Leader() != 4 {
						continue
					}
					q, _ := sc.After.TopicByID(tp.ID())
					np, _ := q.Partition(p.ID())
					var want int32 = -1
					for _, r := range p.Replicas() {
						if r != 4 && p.InISR(r) {
							want = r
							break
						}
					}
					if np.Leader() != want || np.LeaderEpoch() != p.LeaderEpoch()+1 || np.InISR(4) {
						t.Fatalf("%s-%d: %s, want leader %d", tp.Name(), p.ID(), np.String(), want)
					}
				}
			}
			if got := len(sc.Delta.LocalChanges(1).ElectedLeaders) + len(sc.Delta.LocalChanges(2).ElectedLeaders) +
				len(sc.Delta.LocalChanges(3).ElectedLeaders) + len(sc.Delta.LocalChanges(5).ElectedLeaders) +
				len(sc.Delta.LocalChanges(6).ElectedLeaders); got != led {
				t.Fatalf("surviving brokers became leader of %d partitions, want %d", got, led)
			}
		})
	}
}

// TestBrokerFallsBehind: a stalled broker. The stalled broker's own image
// still says it leads; the controller fenced it after the session timeout
// and moved its leaderships; the lagging view's leader epochs are older.
func TestBrokerFallsBehind(t *testing.T) {
	sc, err := BrokerFallsBehind(1, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if leaderships(sc.Lagging, 2) == 0 {
		t.Fatal("broker 2 led nothing before the stall")
	}
	if leaderships(sc.After, 2) != 0 {
		t.Fatal("broker 2 still leads after being fenced")
	}
	if sc.Lagging.Provenance().LastContainedOffset >= sc.After.Provenance().LastContainedOffset {
		t.Fatal("the lagging view is not behind")
	}
	// per-broker lag as a view: lagging by the batches written since the stall
	lag, err := sc.Sim.ImageAsOf(time.UnixMilli(sc.Lagging.Provenance().LastContainedLogTimeMs))
	if err != nil {
		t.Fatal(err)
	}
	requireSameImage(t, sc.Lagging, lag)
	if got := sc.Sim.Now().Sub(time.UnixMilli(sc.Before.Provenance().LastContainedLogTimeMs)); got < 20*time.Second {
		t.Fatalf("stall lasted %v", got)
	}
}

// TestDoublePartitions: a topic doubles its partitions; the delta reports the growth.
func TestDoublePartitions(t *testing.T) {
	sc, err := DoublePartitions(1)
	if err != nil {
		t.Fatal(err)
	}
	g := sc.Delta.PartitionGrowth()
	if len(g) != 1 || g[0].Name != "orders" || g[0].Before != 6 || g[0].After != 12 {
		t.Fatalf("growth %+v", g)
	}
}

// TestControllerFailover: a QuorumController failover: a new raft leader epoch and a
// LeaderChange control batch, no data change.
func TestControllerFailover(t *testing.T) {
	sc, err := ControllerFailover(1)
	if err != nil {
		t.Fatal(err)
	}
	last := sc.Sim.Batches()[len(sc.Sim.Batches())-1]
	if lc, ok := last.Control[0].(*record.LeaderChangeMessage); len(last.Control) != 1 || !ok || lc.LeaderID != 3001 || last.LeaderEpoch != 2 {
		t.Fatalf("last batch %+v", last)
	}
	tc := sc.Delta.Topics()
	if len(tc.Created)+len(tc.Changed)+len(tc.Deleted) != 0 || len(sc.Delta.Brokers().Changed) != 0 {
		t.Fatal("the failover changed metadata")
	}
	a, b := imageLines(t, sc.Before), imageLines(t, sc.After)
	if fmt.Sprint(a[1:]) != fmt.Sprint(b[1:]) {
		t.Fatal("images differ beyond provenance")
	}
	if sc.After.Provenance().LastContainedEpoch != 2 {
		t.Fatalf("provenance %v", sc.After.Provenance())
	}
}
