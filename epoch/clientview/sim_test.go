package clientview

// Client simulations on the real controller simulator and the real answers.
//
// The cluster is a delta/deltatest Simulator: leaders move because the
// controller moves them (reassignments, preferred elections, brokers
// crashing and being fenced after the session timeout, leader balancing),
// with the records and epoch bumps Kafka's QuorumController writes. Every
// broker serves the image of the log it has replayed: Simulator.ImageAsOf its
// own lag behind the controller (a stalled broker's image stops at the
// stall). Every Metadata answer a simulated client receives is built by
// image/answer.Metadata from the image of the broker it asks, and every
// KIP-951 hint by the broker-side check of package epoch (CheckProduce,
// AppendProduceNode) from the image of the broker the client produced to.
// Clients are Schedules and Views driven in virtual time, with no goroutine.
//
// Full sizes run by default and with -kmeta.long; -short and -race shrink
// them (see small).

import (
	"container/heap"
	"flag"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/epoch"
	"github.com/kmeta-go/kmeta/image"
	kanswer "github.com/kmeta-go/kmeta/image/answer"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// long runs the simulations at full size under -race and -short too.
var long = flag.Bool("kmeta.long", false, "run the client simulations at full size even with -short or -race")

// small reports whether the simulations should shrink (go test -short, or
// the race detector's 10× slowdown) unless -kmeta.long.
func small() bool { return !*long && (testing.Short() || raceEnabled) }

const simListener = "PLAINTEXT" // deltatest's default listener

// window is a half-open interval of virtual time.
type window struct{ from, to time.Duration }

func (w window) has(t time.Duration) bool { return t >= w.from && t < w.to }

// simCluster is a finished deltatest log seen through per-broker lags.
// Virtual time d is the simulator's clock minus base.
type simCluster struct {
	sim     *deltatest.Simulator
	base    time.Time
	topics  []string
	brokers []int32
	appends []time.Duration // append time of each committed batch
	lag     map[int32]time.Duration
	stalled map[int32]window // serves its image as of from; still answers
	down    map[int32]window // answers nothing
	images  map[int]*image.Image
	answers map[*image.Image]*kmsg.MetadataResponse
	req     *kmsg.MetadataRequest

	responder *kanswer.Responder // every broker's: one configuration
}

// finish freezes the log: from now on the cluster only serves views of it.
func (c *simCluster) finish() {
	for _, b := range c.sim.Batches() {
		c.appends = append(c.appends, time.UnixMilli(b.AppendTime).Sub(c.base))
	}
	c.images = map[int]*image.Image{}
	c.answers = map[*image.Image]*kmsg.MetadataResponse{}
	c.req = kmsg.NewPtrMetadataRequest()
	c.req.Version = 12
	for _, n := range c.topics {
		rt := kmsg.NewMetadataRequestTopic()
		name := n
		rt.Topic = &name
		c.req.Topics = append(c.req.Topics, rt)
	}
}

// imageAt is the image of the log as committed at virtual time d
// (Simulator.ImageLagging, memoised by the number of batches).
func (c *simCluster) imageAt(t testing.TB, d time.Duration) *image.Image {
	n := sort.Search(len(c.appends), func(i int) bool { return c.appends[i] > d })
	if img, ok := c.images[n]; ok {
		return img
	}
	img, err := c.sim.ImageLagging(len(c.appends) - n)
	if err != nil {
		t.Fatal(err)
	}
	c.images[n] = img
	return img
}

// imageOf is the image broker b serves at d: the log as of its lag, frozen
// during a stall.
func (c *simCluster) imageOf(t testing.TB, b int32, d time.Duration) *image.Image {
	at := d - c.lag[b]
	if w, ok := c.stalled[b]; ok && w.has(d) {
		at = min(at, w.from)
	}
	return c.imageAt(t, at)
}

func (c *simCluster) up(b int32, d time.Duration) bool {
	w, ok := c.down[b]
	return !ok || !w.has(d)
}

// caughtUp is the first time every broker serves the final image.
func (c *simCluster) caughtUp() time.Duration {
	last := c.appends[len(c.appends)-1]
	var at time.Duration
	for _, b := range c.brokers {
		at = max(at, last+c.lag[b])
		if w, ok := c.stalled[b]; ok {
			at = max(at, w.to)
		}
		if w, ok := c.down[b]; ok {
			at = max(at, w.to)
		}
	}
	return at
}

// answer is broker b's Metadata v12 answer at d, built by Responder.Metadata
// from the image b serves.
func (c *simCluster) answer(t testing.TB, b int32, d time.Duration) *kmsg.MetadataResponse {
	img := c.imageOf(t, b, d)
	if r, ok := c.answers[img]; ok {
		return r
	}
	if c.responder == nil {
		c.responder = kanswer.New(kanswer.Config{ClusterID: "kmeta-sim", DisableAutoCreateTopics: true})
	}
	r, _ := c.responder.Metadata(img, c.req, kanswer.Request{Listener: simListener})
	c.answers[img] = r
	return r
}

// produce is a Produce v10 answer broker b gives at d for one record to
// partition p of topic: NOT_LEADER_OR_FOLLOWER with the KIP-951
// CurrentLeader and NodeEndpoints from b's own image when b does not lead p
// there, nil when it accepts the record.
func (c *simCluster) produce(t testing.TB, b int32, d time.Duration, topic string, p int32) *kmsg.ProduceResponse {
	img := c.imageOf(t, b, d)
	tp, _ := img.Topic(topic)
	r := epoch.CheckProduce(tp, p, b)
	if r.ErrorCode == 0 {
		return nil
	}
	resp := kmsg.NewPtrProduceResponse()
	resp.Version = 10
	rt := kmsg.NewProduceResponseTopic()
	rt.Topic = topic
	rp := kmsg.NewProduceResponseTopicPartition()
	rp.Partition, rp.ErrorCode = p, int16(r.ErrorCode)
	if r.HasLeaderHint() {
		rp.CurrentLeader.LeaderID, rp.CurrentLeader.LeaderEpoch = r.LeaderID, r.LeaderEpoch
		resp.Brokers = epoch.AppendProduceNode(resp.Brokers, img, r.LeaderID, simListener)
	}
	rt.Partitions = append(rt.Partitions, rp)
	resp.Topics = append(resp.Topics, rt)
	return resp
}

// simClient is one client: a view, its schedule, and what it has seen.
type simClient struct {
	view     *View
	sched    *Schedule
	rng      *rand.Rand
	maxSeen  map[string][]int32 // highest SeenEpoch per partition so far
	maxLead  map[string][]int32 // highest LeaderEpoch per partition so far
	requests int                // refreshes started (answered or not)
	failed   int                // refreshes to a broker that was down
	progress int
	hints    int // KIP-951 hints taken
	refused  int // partitions of answers refused as stale or suspect
	bound    time.Duration
	wake     time.Duration
	idx      int
	doneAt   time.Duration // first time it held the final leaders, -1 not yet
	// connected holds the brokers the client has a connection to: a
	// successful answer opens one, a failure closes it. Like the Java
	// client's leastLoadedNode, pick prefers connected brokers and then
	// brokers not in reconnect backoff (reconnect.backoff.max.ms, 1 s).
	connected   map[int32]bool
	unreachable map[int32]time.Duration
}

func newSimClient(v *View, p Policy, seed, i uint64) *simClient {
	rng := rand.New(rand.NewPCG(seed, i+1))
	return &simClient{view: v, sched: NewSchedule(ScheduleConfig{Policy: p, Rand: rng.Float64}), rng: rng,
		maxSeen: map[string][]int32{}, maxLead: map[string][]int32{}, doneAt: -1,
		connected: map[int32]bool{}, unreachable: map[int32]time.Duration{}}
}

type wakeHeap []*simClient

func (h wakeHeap) Len() int           { return len(h) }
func (h wakeHeap) Less(i, j int) bool { return h[i].wake < h[j].wake }
func (h wakeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i]; h[i].idx = i; h[j].idx = j }
func (h *wakeHeap) Push(x any)        { c := x.(*simClient); c.idx = len(*h); *h = append(*h, c) }
func (h *wakeHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

func virtual(d time.Duration) time.Time { return t0.Add(d) }

// check fails the test if next shows any partition's epoch lower than the
// client has seen, then takes next.
func (cl *simClient) check(t testing.TB, next *View, rep Report, now time.Duration, what string) {
	if rep.Changed {
		for tp := range next.Topics() {
			seen, lead := cl.maxSeen[tp.Name()], cl.maxLead[tp.Name()]
			for len(seen) < tp.NumPartitions() {
				seen, lead = append(seen, -1), append(lead, -1)
			}
			for p := range tp.Partitions() {
				if p.seenEpoch < seen[p.id] {
					t.Fatalf("t=%v %s %s/%d: SeenEpoch went back %d → %d", now, what, tp.Name(), p.id, seen[p.id], p.seenEpoch)
				}
				if p.leaderEpoch >= 0 && p.leaderEpoch < lead[p.id] {
					t.Fatalf("t=%v %s %s/%d: LeaderEpoch went back %d → %d", now, what, tp.Name(), p.id, lead[p.id], p.leaderEpoch)
				}
				seen[p.id], lead[p.id] = max(seen[p.id], p.seenEpoch), max(lead[p.id], p.leaderEpoch)
			}
			cl.maxSeen[tp.Name()], cl.maxLead[tp.Name()] = seen, lead
		}
		if hasEvent([]Report{rep}, RewindAccepted) {
			t.Fatalf("t=%v %s: rewind accepted from lagging brokers", now, what)
		}
	}
	cl.view = next
}

// pick chooses a random broker of the view (of the bootstrap list before
// the first answer): a connected one if any, else one not in reconnect
// backoff, else any.
func (cl *simClient) pick(c *simCluster, now time.Duration) int32 {
	ids := c.brokers
	if bs := cl.view.brokers; len(bs) > 0 {
		ids = make([]int32, 0, len(bs))
		for _, b := range bs {
			ids = append(ids, b.NodeID())
		}
	}
	var conn, free []int32
	for _, b := range ids {
		switch {
		case cl.connected[b]:
			conn = append(conn, b)
		case cl.unreachable[b] <= now:
			free = append(free, b)
		}
	}
	switch {
	case len(conn) > 0:
		ids = conn
	case len(free) > 0:
		ids = free
	}
	return ids[cl.rng.IntN(len(ids))]
}

func (cl *simClient) unreach(b int32, now time.Duration) {
	cl.connected[b] = false
	cl.unreachable[b] = now + time.Second
}

// refresh asks a broker (pick), merges its answer, and records the outcome
// in the schedule. A broker that is down is a failed refresh.
func (cl *simClient) refresh(t testing.TB, c *simCluster, now time.Duration) {
	cl.sched.Start(virtual(now))
	cl.requests++
	b := cl.pick(c, now)
	if !c.up(b, now) {
		cl.failed++
		cl.unreach(b, now)
		cl.sched.Failed(virtual(now))
		return
	}
	cl.connected[b] = true
	next, rep := cl.view.Merge(c.answer(t, b, now), MergeOptions{Node: b, HasNode: true})
	cl.check(t, next, rep, now, fmt.Sprintf("metadata from %d", b))
	if rep.Progress {
		cl.progress++
	}
	cl.refused += rep.Refused
	cl.sched.Succeeded(virtual(now), rep)
}

// send produces one record to a random partition's leader in the view. A
// leader that is down is a connection error (an update is requested); a
// NOT_LEADER_OR_FOLLOWER answer's KIP-951 hint is applied.
func (cl *simClient) send(t testing.TB, c *simCluster, now time.Duration) {
	topic := c.topics[cl.rng.IntN(len(c.topics))]
	tp, ok := cl.view.Topic(topic)
	if !ok || tp.NumPartitions() == 0 {
		return
	}
	p := int32(cl.rng.IntN(tp.NumPartitions()))
	l, _, ok := cl.view.Leader(topic, p)
	if !ok {
		return
	}
	if !c.up(l, now) {
		cl.unreach(l, now)
		cl.sched.RequestUpdate()
		return
	}
	cl.connected[l] = true
	resp := c.produce(t, l, now, topic, p)
	if resp == nil {
		return
	}
	next, rep := cl.view.ApplyProduce(resp)
	cl.check(t, next, rep, now, fmt.Sprintf("produce hint from %d", l))
	if rep.Progress {
		cl.hints++
	}
}

// converged reports whether the client's leaders and epochs are truth's.
func (cl *simClient) converged(truth *image.Image, topics []string) bool {
	for _, name := range topics {
		tp, _ := truth.Topic(name)
		vt, ok := cl.view.Topic(name)
		if !ok || vt.NumPartitions() != tp.NumPartitions() {
			return false
		}
		for p := range tp.Partitions() {
			l, e, ok := cl.view.Leader(name, p.ID())
			if !ok || l != p.Leader() || e != p.LeaderEpoch() {
				return false
			}
		}
	}
	return true
}

// moveLeaders is the churn of TestSimulationEpochsNeverGoBack: over 30 s of
// controller time, one operation every 200 ms (a reassignment to three live
// brokers, completed, or a preferred-leader election), broker 2 stalled from
// 5 s to 25 s (no heartbeats, no replay, still answering; fenced
// after the session timeout), broker 5 down from 12 s to 23 s (fenced and
// back), and a leader balancing at 27 s.
func moveLeaders(t testing.TB, seed uint64) *simCluster {
	sim := deltatest.MustNew(deltatest.Config{Seed: int64(seed)})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(sim.AddBrokers(6, "rack-a", "rack-b", "rack-c"))
	c := &simCluster{sim: sim, topics: []string{"orders", "clicks"}, brokers: []int32{1, 2, 3, 4, 5, 6},
		lag: map[int32]time.Duration{}, stalled: map[int32]window{2: {5 * time.Second, 25 * time.Second}},
		down: map[int32]window{5: {12 * time.Second, 23 * time.Second}}}
	sim.MustCreateTopic("orders", 48, 3)
	sim.MustCreateTopic("clicks", 12, 3)
	must(sim.Advance(3 * time.Second)) // every broker unfenced
	c.base = sim.Now()
	rng := rand.New(rand.NewPCG(seed, 99))
	for _, b := range c.brokers {
		c.lag[b] = time.Duration(rng.IntN(150)) * time.Millisecond
	}
	live := func() []int32 {
		var ids []int32
		for b := range sim.Image().Cluster().AliveBrokers() {
			ids = append(ids, b.ID())
		}
		return ids
	}
	for step := time.Duration(0); step < 30*time.Second; step += 200 * time.Millisecond {
		must(sim.Advance(200 * time.Millisecond))
		now := sim.Now().Sub(c.base)
		for b, w := range c.stalled {
			if now >= w.from && now < w.from+200*time.Millisecond {
				must(sim.CrashBroker(b))
			}
			if now >= w.to && now < w.to+200*time.Millisecond {
				must(sim.Heartbeat(b))
			}
		}
		for b, w := range c.down {
			if now >= w.from && now < w.from+200*time.Millisecond {
				must(sim.CrashBroker(b))
			}
			if now >= w.to && now < w.to+200*time.Millisecond {
				must(sim.Heartbeat(b))
			}
		}
		if now >= 27*time.Second && now < 27*time.Second+200*time.Millisecond {
			must(sim.BalanceLeaders())
			continue
		}
		topic := c.topics[rng.IntN(len(c.topics))]
		tp, _ := sim.Image().Topic(topic)
		p := int32(rng.IntN(tp.NumPartitions()))
		if rng.IntN(3) == 0 {
			_ = sim.ElectPreferredLeader(topic, p) // not needed or no live replica: nothing written
			continue
		}
		ids := live()
		if len(ids) < 3 {
			continue
		}
		rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		if sim.Reassign(topic, p, ids[:3]) == nil {
			_ = sim.CompleteReassignment(topic, p) // done when the new replicas are in sync
		}
	}
	c.finish()
	return c
}

// TestSimulationEpochsNeverGoBack: 1 000 clients with random start times,
// random metadata.max.age.ms (2 s to 20 s), random wake-ups (200 ms to 1 s),
// random brokers and random sends, while the controller simulator moves
// leaders for 30 s (moveLeaders), brokers replay up to 150 ms behind, broker
// 2 serves a stalled image for 20 s and broker 5 is down for 11 s. Every
// answer comes from answer.Metadata on the image of the broker asked; a send
// to a broker that does not lead the partition in its own image gets
// NOT_LEADER_OR_FOLLOWER with its KIP-951 hint, applied with ApplyProduce.
//
// No client ever sees a partition's SeenEpoch or LeaderEpoch go backwards
// (after a Metadata answer or a hint), no rewind is ever accepted, and every
// client holds the true leaders and epochs within its Policy.ConvergenceBound
// (MaxAge + 1.1 s) of the last broker catching up.
//
// Full size (go test ./epoch/clientview -run SimulationEpochs -v -kmeta.long), seeds 1
// and 2: 135 leader epoch bumps over 281 / 297 batches; every client
// converged, the slowest 16.2 s / 17.0 s after catch-up against its bound of
// 18.4 s / 18.9 s; 8.2 / 8.1 Metadata requests per client (155 to a broker
// that was down); 4 910 / 5 866 stale or suspect partition answers refused;
// 2 211 / 2 036 KIP-951 hints taken.
func TestSimulationEpochsNeverGoBack(t *testing.T) {
	seeds := []uint64{1, 2}
	clients := 1000
	if small() {
		seeds, clients = seeds[:1], 200
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			c := moveLeaders(t, seed)
			caughtUp := c.caughtUp()
			all, end := churnClients(seed, clients, caughtUp)
			truth := c.imageAt(t, end)
			moves := leaderEpochBumps(c.imageAt(t, 0), truth, c.topics)
			if moves < 50 {
				t.Fatalf("only %d leader epoch bumps: the simulation moved too little", moves)
			}
			runChurn(t, c, all, caughtUp, end, truth)
			requests, failed, hints, refused := 0, 0, 0, 0
			var slowest, slowestBound time.Duration
			for i, cl := range all {
				if cl.doneAt < 0 || cl.doneAt-caughtUp > cl.bound {
					t.Fatalf("client %d converged at %v, more than its bound %v after catch-up at %v", i, cl.doneAt, cl.bound, caughtUp)
				}
				if !cl.converged(truth, c.topics) {
					t.Fatalf("client %d lost the true leaders after converging", i)
				}
				if cl.doneAt-caughtUp > slowest {
					slowest, slowestBound = cl.doneAt-caughtUp, cl.bound
				}
				requests += cl.requests
				failed += cl.failed
				hints += cl.hints
				refused += cl.refused
			}
			if hints == 0 || refused == 0 {
				t.Fatalf("%d KIP-951 hints taken, %d stale partition answers refused: the simulation did not exercise both", hints, refused)
			}
			t.Logf("%d clients, %d leader epoch bumps over %d batches; caught up at %v; all converged, slowest %v after (its bound %v); "+
				"%.1f Metadata requests per client (%d to a down broker), %d stale or suspect partition answers refused, %d KIP-951 hints taken",
				clients, moves, len(c.appends), caughtUp, slowest, slowestBound,
				float64(requests)/float64(clients), failed, refused, hints)
		})
	}
}

// churnClients makes the clients of TestSimulationEpochsNeverGoBack with
// random refresh timing: each client's metadata.max.age.ms is drawn from 2 s
// to 20 s, its start from 0 to 3 s. end is when the last of them must have
// converged: caughtUp plus the largest Policy.ConvergenceBound.
func churnClients(seed uint64, clients int, caughtUp time.Duration) (all []*simClient, end time.Duration) {
	all = make([]*simClient, clients)
	for i := range all {
		prng := rand.New(rand.NewPCG(seed, uint64(i)+1<<32))
		policy := Policy{MaxAge: time.Duration(2000+prng.IntN(18000)) * time.Millisecond}
		cl := newSimClient(NewView(ViewConfig{}), policy, seed, uint64(i))
		cl.bound = policy.WithDefaults().ConvergenceBound()
		end = max(end, caughtUp+cl.bound)
		cl.wake = time.Duration(cl.rng.IntN(3000)) * time.Millisecond
		all[i] = cl
	}
	return all, end
}

// leaderEpochBumps counts the leader epoch bumps of topics from first to last.
func leaderEpochBumps(first, last *image.Image, topics []string) int {
	moves := 0
	for _, name := range topics {
		a, _ := first.Topic(name)
		b, _ := last.Topic(name)
		for p := range b.Partitions() {
			q, _ := a.Partition(p.ID())
			moves += int(p.LeaderEpoch() - q.LeaderEpoch())
		}
	}
	return moves
}

// runChurn drives the clients in virtual time until end: at each wake-up a
// client sends now and then (until caughtUp), refreshes when its schedule
// says so, notes when it first holds the true leaders, and sleeps until its
// schedule's next deadline or a random 200 ms to 1 s wake-up.
func runChurn(t *testing.T, c *simCluster, all []*simClient, caughtUp, end time.Duration, truth *image.Image) {
	h := &wakeHeap{}
	for _, cl := range all {
		heap.Push(h, cl)
	}
	for h.Len() > 0 {
		cl := (*h)[0]
		now := cl.wake
		if now > end {
			break
		}
		if now < caughtUp && cl.rng.IntN(4) == 0 {
			cl.send(t, c, now)
		}
		if cl.sched.Wait(virtual(now), cl.view) == 0 {
			cl.refresh(t, c, now)
		}
		if now >= caughtUp && cl.doneAt < 0 && cl.converged(truth, c.topics) {
			cl.doneAt = now
		}
		w := cl.sched.Wait(virtual(now), cl.view)
		cl.wake = now + min(max(w, time.Millisecond), time.Duration(200+cl.rng.IntN(800))*time.Millisecond)
		heap.Fix(h, 0)
	}
}

// TestSimulationStorm (sarama#3224, a reconnection storm): the shape of
// deltatest.ReconnectionStorm with 20 leaderships: 120 partitions in three
// topics on six brokers in three racks; broker 4, leader of 20 of them,
// crashes. The simulated controller fences it after the 9 s session timeout
// and moves its leaderships; the other brokers apply that within 1.5 s. Each
// of 20 000 producers sends a batch to every leader every 100 ms; sends to
// broker 4 fail. A naive client sends a Metadata request for every failed
// partition (sarama#3224: "1000 partitions, 1000 refreshes"); a
// Schedule-driven client coalesces them. Every client must stay within
// Policy.MaxRefreshes, converge, and the total must be at least 10× below
// the naive one.
//
// Full size (go test ./epoch/clientview -run SimulationStorm -v -kmeta.long): 20 000
// clients, broker 4 down at 1 s and fenced at 9.3 s; 256 659 Metadata
// requests in all, at most 14 per client against a promise of 40
// (MaxRefreshes over the 13.3 s window with one progress answer), against
// 34 530 520 for the naive clients: 135× fewer.
func TestSimulationStorm(t *testing.T) {
	clients := 20000
	if small() {
		clients = 2000
	}
	const dead = int32(4)
	c, moved, crash, election := stormCluster(t, dead)
	end := election + 5*time.Second
	policy := Policy{}.WithDefaults()

	// Every client bootstraps with the same answer before the crash: one
	// merge, one immutable view shared by all.
	boot, _ := NewView(ViewConfig{}).Merge(c.answer(t, 1, 0), MergeOptions{Node: 1, HasNode: true})
	ours := make([]*simClient, clients)
	for i := range ours {
		cl := newSimClient(boot, policy, 7, uint64(i))
		cl.check(t, boot, Report{Changed: true}, 0, "bootstrap")
		cl.sched.Start(virtual(0))
		cl.sched.Succeeded(virtual(0), Report{Progress: true})
		for _, b := range c.brokers { // producing to every leader
			cl.connected[b] = true
		}
		cl.wake = crash + time.Duration(cl.rng.IntN(100))*time.Millisecond
		ours[i] = cl
	}
	runStorm(t, c, ours, moved, dead, end)
	naive := naiveStorm(t, c, boot, clients, moved, crash, end)

	window := end - crash
	total, naiveTotal, worst, failed := 0, 0, 0, 0
	truth := c.imageAt(t, end)
	for i, cl := range ours {
		promise := policy.MaxRefreshes(window, cl.progress)
		if cl.requests > promise {
			t.Fatalf("client %d: %d requests in %v, promise %d (progress %d)", i, cl.requests, window, promise, cl.progress)
		}
		if cl.progress > 1 {
			t.Fatalf("client %d: %d answers with progress from one election", i, cl.progress)
		}
		if !cl.converged(truth, c.topics) {
			logDivergence(t, cl.view, truth, moved)
			t.Fatalf("client %d did not converge: %d requests, %d failed, progress %d, wait %v", i, cl.requests, cl.failed, cl.progress, cl.sched.Wait(virtual(end), cl.view))
		}
		total += cl.requests
		failed += cl.failed
		worst = max(worst, cl.requests)
		naiveTotal += naive[i]
	}
	factor := float64(naiveTotal) / float64(total)
	t.Logf("%d clients, broker %d down at %v, fenced at %v (%d partitions moved): %d Metadata requests (%d to the dead broker; max %d per client, promise %d with one progress answer) vs %d naive: %.0f× fewer",
		clients, dead, crash, election, len(moved), total, failed, worst, policy.MaxRefreshes(window, 1), naiveTotal, factor)
	if factor < 10 {
		t.Fatalf("only %.1f× fewer requests than the naive client", factor)
	}
}

// topicPartition names one partition.
type topicPartition struct {
	topic string
	p     int32
}

// stormCluster is TestSimulationStorm's cluster: 120 partitions in three
// topics on six brokers in three racks, broker dead crashing at 1 s and
// fenced (its leaderships moved) after the session timeout; the other
// brokers replay up to 1.5 s behind. moved are the partitions dead led.
func stormCluster(t *testing.T, dead int32) (c *simCluster, moved []topicPartition, crash, election time.Duration) {
	sim := deltatest.MustNew(deltatest.Config{Seed: 7})
	if err := sim.AddBrokers(6, "rack-a", "rack-b", "rack-c"); err != nil {
		t.Fatal(err)
	}
	c = &simCluster{sim: sim, brokers: []int32{1, 2, 3, 4, 5, 6}, lag: map[int32]time.Duration{},
		down: map[int32]window{}}
	for i, n := range []int{50, 50, 20} {
		name := fmt.Sprintf("events-%03d", i)
		sim.MustCreateTopic(name, n, 3)
		c.topics = append(c.topics, name)
	}
	if err := sim.Advance(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	c.base = sim.Now().Add(-time.Second) // the crash is at 1 s
	before := sim.Image()
	if err := sim.CrashBroker(dead); err != nil {
		t.Fatal(err)
	}
	for {
		if b, _ := sim.Image().Cluster().Broker(dead); b.Fenced() {
			break
		}
		if err := sim.Advance(100 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	crash, election = time.Second, sim.Now().Sub(c.base)
	c.down[dead] = window{crash, 1 << 62}
	rng := rand.New(rand.NewPCG(7, 7))
	for _, b := range c.brokers {
		c.lag[b] = time.Duration(rng.IntN(1500)) * time.Millisecond
	}
	c.finish()
	for _, name := range c.topics {
		tp, _ := before.Topic(name)
		for p := range tp.Partitions() {
			if p.Leader() == dead {
				moved = append(moved, topicPartition{name, p.ID()})
			}
		}
	}
	return c, moved, crash, election
}

// failingSends counts the moved partitions a client with view v cannot
// produce to at now: no leader known, or a leader that is down.
func failingSends(c *simCluster, v *View, moved []topicPartition, now time.Duration) int {
	n := 0
	for _, m := range moved {
		if l, _, ok := v.Leader(m.topic, m.p); !ok || !c.up(l, now) {
			n++
		}
	}
	return n
}

// runStorm drives the Schedule-driven clients until end: a round with a
// failed send asks for one update and retries 100 ms later; the schedule
// decides when to refresh.
func runStorm(t *testing.T, c *simCluster, ours []*simClient, moved []topicPartition, dead int32, end time.Duration) {
	h := &wakeHeap{}
	for _, cl := range ours {
		heap.Push(h, cl)
	}
	for h.Len() > 0 {
		cl := (*h)[0]
		now := cl.wake
		if now > end {
			break
		}
		if failingSends(c, cl.view, moved, now) > 0 {
			cl.unreach(dead, now)
			cl.sched.RequestUpdate()
		}
		if cl.sched.Wait(virtual(now), cl.view) == 0 {
			cl.refresh(t, c, now)
		}
		if failingSends(c, cl.view, moved, now) > 0 {
			cl.wake = now + 100*time.Millisecond
		} else {
			cl.wake = now + max(cl.sched.Wait(virtual(now), cl.view), time.Millisecond)
		}
		heap.Fix(h, 0)
	}
}

// naiveStorm returns the Metadata requests of each naive client
// (sarama#3224): the same 100 ms rounds as runStorm's clients, one request
// per failed partition, to a random live broker, the answers of a round
// merged once (they all come back the same).
func naiveStorm(t *testing.T, c *simCluster, boot *View, clients int, moved []topicPartition, crash, end time.Duration) []int {
	live := []int32{1, 2, 3, 5, 6}
	requests := make([]int, clients)
	for i := range requests {
		view := boot
		var last *kmsg.MetadataResponse
		crng := rand.New(rand.NewPCG(7, uint64(i)+1))
		for now := crash + time.Duration(crng.IntN(100))*time.Millisecond; now <= end; now += 100 * time.Millisecond {
			f := failingSends(c, view, moved, now)
			if f == 0 {
				continue
			}
			requests[i] += f
			b := live[crng.IntN(len(live))]
			// Merging the very answer merged last changes nothing; skip it.
			if a := c.answer(t, b, now); a != last {
				view, _ = view.Merge(a, MergeOptions{Node: b, HasNode: true})
				last = a
			}
		}
	}
	return requests
}

// logDivergence logs the moved partitions where view differs from truth.
func logDivergence(t *testing.T, view *View, truth *image.Image, moved []topicPartition) {
	for _, m := range moved {
		l, e, ok := view.Leader(m.topic, m.p)
		tl, te, _ := truth.Leader(m.topic, m.p)
		if l != tl || e != te {
			tp, _ := view.Topic(m.topic)
			pp, _ := tp.Partition(m.p)
			t.Logf("%v: view %d/%d %v flags %b, truth %d/%d", m, l, e, ok, pp.flags, tl, te)
		}
	}
}
