package epoch

// A small cluster simulator for the client view: a controller writes
// PartitionChangeRecords through package delta (each leader move bumps the
// leader epoch, PartitionRegistration.merge), every broker applies the
// images with its own lag, and Metadata answers are built from the image of
// the broker asked (the answer builder below follows spec §6.2 for the
// fields a client reads; the answers branch will replace it). Clients are
// Schedules and Views driven in virtual time, with no goroutine.

import (
	"container/heap"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// long runs the simulations at full size under -race and -short too.
var long = flag.Bool("kmeta.long", false, "run the client simulations at full size even with -short or -race")

// small reports whether the simulations should shrink (go test -short, or
// the race detector's 10× slowdown) unless -kmeta.long.
func small() bool { return !*long && (testing.Short() || raceEnabled) }

const simTopic = "orders"

var simTopicID = record.UUID{1, 2, 3}

type simCluster struct {
	brokers int
	history []*image.Image
	commit  []time.Duration   // commit time of history[i]
	applied [][]time.Duration // applied[b][i]: when broker b applies history[i]
	answers map[*image.Image]*kmsg.MetadataResponse
	dead    map[int32]time.Duration // broker → crash time
}

func newSimCluster(t testing.TB, brokers, partitions int) *simCluster {
	d := delta.New(nil)
	replay := func(r record.Record) {
		if err := d.Replay(r); err != nil {
			t.Fatal(err)
		}
	}
	for b := range brokers {
		r := record.NewRegisterBrokerRecord()
		r.BrokerID, r.BrokerEpoch, r.IncarnationID = int32(b), int64(b)+1, record.UUID{15: byte(b + 1)}
		r.EndPoints = []record.BrokerEndpoint{{Name: "PLAINTEXT", Host: fmt.Sprintf("b%d", b), Port: 9092}}
		r.Rack, r.Fenced = nil, false
		replay(r)
	}
	tr := record.NewTopicRecord()
	tr.Name, tr.TopicID = simTopic, simTopicID
	replay(tr)
	for p := range partitions {
		r := record.NewPartitionRecord()
		r.TopicID, r.PartitionID = simTopicID, int32(p)
		l := int32(p % brokers)
		r.Replicas = []int32{l, (l + 1) % int32(brokers), (l + 2) % int32(brokers)}
		r.ISR = r.Replicas
		r.RemovingReplicas, r.AddingReplicas = []int32{}, []int32{}
		r.Leader = l
		replay(r)
	}
	img, err := d.Apply(image.EmptyProvenance)
	if err != nil {
		t.Fatal(err)
	}
	c := &simCluster{brokers: brokers, history: []*image.Image{img}, commit: []time.Duration{0},
		answers: map[*image.Image]*kmsg.MetadataResponse{}, dead: map[int32]time.Duration{}}
	c.applied = make([][]time.Duration, brokers)
	for b := range c.applied {
		c.applied[b] = []time.Duration{0}
	}
	return c
}

// commitChanges appends an image made by changing the leaders of parts
// (each to the next replica of its replica list, or away from avoid) at time
// at; broker b applies it lag(b) later, never before its previous image.
func (c *simCluster) commitChanges(t testing.TB, at time.Duration, parts []int32, avoid int32, lag func(b int) time.Duration) {
	head := c.history[len(c.history)-1]
	d := delta.New(head)
	tp, _ := head.Topic(simTopic)
	for _, p := range parts {
		cur, _ := tp.Partition(p)
		reps := cur.Replicas()
		next := cur.Leader()
		for i := range reps {
			if reps[i] == cur.Leader() {
				next = reps[(i+1)%len(reps)]
				if next == avoid {
					next = reps[(i+2)%len(reps)]
				}
				break
			}
		}
		r := record.NewPartitionChangeRecord()
		r.TopicID, r.PartitionID, r.Leader = simTopicID, p, next
		if err := d.Replay(r); err != nil {
			t.Fatal(err)
		}
	}
	img, err := d.Apply(image.EmptyProvenance)
	if err != nil {
		t.Fatal(err)
	}
	c.history = append(c.history, img)
	c.commit = append(c.commit, at)
	for b := range c.applied {
		prev := c.applied[b][len(c.applied[b])-1]
		c.applied[b] = append(c.applied[b], max(prev, at+lag(b)))
	}
}

// image returns the image broker b serves at time now.
func (c *simCluster) image(b int32, now time.Duration) *image.Image {
	ap := c.applied[b]
	i := len(ap) - 1
	for i > 0 && ap[i] > now {
		i--
	}
	return c.history[i]
}

// truth is the controller's image at time now.
func (c *simCluster) truth(now time.Duration) *image.Image {
	i := len(c.commit) - 1
	for i > 0 && c.commit[i] > now {
		i--
	}
	return c.history[i]
}

func (c *simCluster) alive(b int32, now time.Duration) bool {
	at, ok := c.dead[b]
	return !ok || now < at
}

// answer is the Metadata v12 answer broker b gives at time now (spec §6.2:
// leader, leader epoch, replicas, ISR; brokers alive with the listener).
func (c *simCluster) answer(b int32, now time.Duration) *kmsg.MetadataResponse {
	img := c.image(b, now)
	if r, ok := c.answers[img]; ok {
		return r
	}
	r := kmsg.NewPtrMetadataResponse()
	r.Version = 12
	r.ControllerID = b
	for br := range img.Cluster().AliveBrokers() {
		ep, ok := br.Listener("PLAINTEXT")
		if !ok {
			continue
		}
		mb := kmsg.NewMetadataResponseBroker()
		mb.NodeID, mb.Host, mb.Port = br.ID(), ep.Host, int32(ep.Port)
		r.Brokers = append(r.Brokers, mb)
	}
	tp, _ := img.Topic(simTopic)
	rt := kmsg.NewMetadataResponseTopic()
	name := simTopic
	rt.Topic, rt.TopicID = &name, tp.ID()
	for p := range tp.Partitions() {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition, mp.Leader, mp.LeaderEpoch = p.ID(), p.Leader(), p.LeaderEpoch()
		mp.Replicas, mp.ISR = p.Replicas(), p.ISR()
		rt.Partitions = append(rt.Partitions, mp)
	}
	r.Topics = append(r.Topics, rt)
	c.answers[img] = r
	return r
}

// simClient is one client: a view, its schedule, and what it has seen.
type simClient struct {
	view     *View
	sched    *Schedule
	rng      *rand.Rand
	maxSeen  []int32 // highest SeenEpoch per partition so far
	maxLead  []int32 // highest LeaderEpoch per partition so far
	requests int
	progress int
	wake     time.Duration
	idx      int
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

// refresh asks a random alive broker, merges, checks that no epoch went
// backwards, and records the outcome in the schedule.
func (cl *simClient) refresh(t testing.TB, c *simCluster, now time.Duration) {
	cl.sched.Start(virtual(now))
	cl.requests++
	var b int32
	for {
		b = int32(cl.rng.IntN(c.brokers))
		if c.alive(b, now) {
			break
		}
	}
	next, rep := cl.view.Merge(c.answer(b, now), MergeOptions{Node: b, HasNode: true})
	if rep.Changed {
		tp, _ := next.Topic(simTopic)
		for p := range tp.Partitions() {
			if p.SeenEpoch < cl.maxSeen[p.ID] {
				t.Fatalf("t=%v partition %d: SeenEpoch went back %d → %d", now, p.ID, cl.maxSeen[p.ID], p.SeenEpoch)
			}
			if p.LeaderEpoch >= 0 && p.LeaderEpoch < cl.maxLead[p.ID] {
				t.Fatalf("t=%v partition %d: LeaderEpoch went back %d → %d", now, p.ID, cl.maxLead[p.ID], p.LeaderEpoch)
			}
			cl.maxSeen[p.ID] = max(cl.maxSeen[p.ID], p.SeenEpoch)
			cl.maxLead[p.ID] = max(cl.maxLead[p.ID], p.LeaderEpoch)
		}
		if hasEvent([]Report{rep}, RewindAccepted) {
			t.Fatalf("t=%v: rewind accepted from lagging brokers", now)
		}
	}
	if rep.Progress {
		cl.progress++
	}
	cl.view = next
	cl.sched.Succeeded(virtual(now), rep)
}

// converged reports whether the client's leaders are the true ones.
func (cl *simClient) converged(truth *image.Image) bool {
	tp, _ := truth.Topic(simTopic)
	vt, ok := cl.view.Topic(simTopic)
	if !ok || vt.NumPartitions() != tp.NumPartitions() {
		return false
	}
	for p := range tp.Partitions() {
		l, e, ok := cl.view.Leader(simTopic, p.ID())
		if !ok || l != p.Leader() || e != p.LeaderEpoch() {
			return false
		}
	}
	return true
}

// TestSimulationEpochsNeverGoBack: 1 000 clients with random start times,
// random brokers and random sends, while the controller moves leaders every
// 200 ms for 30 s, brokers lag up to 150 ms, and broker 2 stalls for 20 s
// (scenarios 2). No client ever sees a partition's epoch go backwards, and
// every client holds the true leaders within the documented bound after the
// last broker catches up.
func TestSimulationEpochsNeverGoBack(t *testing.T) {
	seeds := []uint64{1, 2}
	clients := 1000
	if small() {
		seeds, clients = seeds[:1], 200
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0))
			const partitions = 60
			c := newSimCluster(t, 6, partitions)
			stallFrom, stallTo := 5*time.Second, 25*time.Second
			lag := func(b int) time.Duration { return time.Duration(rng.IntN(150)) * time.Millisecond }
			var last time.Duration
			for at := 200 * time.Millisecond; at <= 30*time.Second; at += 200 * time.Millisecond {
				parts := []int32{int32(rng.IntN(partitions)), int32(rng.IntN(partitions)), int32(rng.IntN(partitions))}
				c.commitChanges(t, at, parts, -1, func(b int) time.Duration {
					d := lag(b)
					if b == 2 && at >= stallFrom && at < stallTo {
						d = stallTo - at + d
					}
					return d
				})
				last = at
			}
			caughtUp := last
			for b := range c.applied {
				caughtUp = max(caughtUp, c.applied[b][len(c.applied[b])-1])
			}
			policy := Policy{MaxAge: 20 * time.Second}
			bound := policy.WithDefaults().ConvergenceBound()
			end := caughtUp + bound

			h := &wakeHeap{}
			all := make([]*simClient, clients)
			for i := range all {
				crng := rand.New(rand.NewPCG(seed, uint64(i)+1))
				cl := &simClient{view: NewView(ViewConfig{}), sched: NewSchedule(policy, crng.Float64), rng: crng,
					maxSeen: make([]int32, partitions), maxLead: make([]int32, partitions)}
				for p := range partitions {
					cl.maxSeen[p], cl.maxLead[p] = -1, -1
				}
				cl.wake = time.Duration(crng.IntN(3000)) * time.Millisecond
				all[i] = cl
				heap.Push(h, cl)
			}
			// Each wake: maybe send one record to a random partition (a
			// NOT_LEADER_OR_FOLLOWER when the broker addressed does not lead it
			// in its own image asks for an update), then refresh if due.
			for h.Len() > 0 {
				cl := (*h)[0]
				now := cl.wake
				if now > end {
					break
				}
				if now < 35*time.Second && cl.rng.IntN(4) == 0 {
					p := int32(cl.rng.IntN(partitions))
					if l, _, ok := cl.view.Leader(simTopic, p); ok {
						if il, _, _ := c.image(l, now).Leader(simTopic, p); il != l {
							cl.sched.RequestUpdate()
						}
					}
				}
				if cl.sched.Wait(virtual(now), cl.view) == 0 {
					cl.refresh(t, c, now)
				}
				w := cl.sched.Wait(virtual(now), cl.view)
				cl.wake = now + min(max(w, time.Millisecond), time.Duration(200+cl.rng.IntN(800))*time.Millisecond)
				heap.Fix(h, 0)
			}
			truth := c.truth(end)
			requests, stale := 0, 0
			for i, cl := range all {
				if !cl.converged(truth) {
					t.Fatalf("client %d not converged %v after the last broker caught up (bound %v)", i, bound, bound)
				}
				requests += cl.requests
			}
			_ = stale
			t.Logf("%d clients, %d leader moves, all converged within %v of catch-up at %v; %.1f requests per client",
				clients, len(c.history)-1, bound, caughtUp, float64(requests)/float64(clients))
		})
	}
}

// TestSimulationStorm (scenario 1, sarama#3224): 20 000 producers write to
// 120 partitions on 6 brokers; broker 4, leader of 20 of them, crashes. The
// controller notices after the 9 s session timeout and moves its leaders;
// brokers apply the change within 1.5 s. Each producer sends a batch to
// every leader every 100 ms; sends to broker 4 fail. A naive client sends a
// Metadata request for every failed partition (sarama#3224: "1000
// partitions, 1000 refreshes"); a Schedule-driven client coalesces them.
// Every client must stay within Policy.MaxRefreshes and converge.
func TestSimulationStorm(t *testing.T) {
	clients := 20000
	if small() {
		clients = 2000
	}
	const partitions, dead = 120, int32(4)
	c := newSimCluster(t, 6, partitions)
	rng := rand.New(rand.NewPCG(7, 7))
	crash, election := time.Second, time.Second+9*time.Second
	c.dead[dead] = crash
	var moved []int32
	head, _ := c.history[0].Topic(simTopic)
	for p := range head.Partitions() {
		if p.Leader() == dead {
			moved = append(moved, p.ID())
		}
	}
	c.commitChanges(t, election, moved, dead, func(b int) time.Duration {
		return time.Duration(rng.IntN(1500)) * time.Millisecond
	})
	end := election + 5*time.Second
	policy := Policy{}.WithDefaults()

	type naive struct {
		view     *View
		last     *kmsg.MetadataResponse
		requests int
	}
	ours := make([]*simClient, clients)
	naives := make([]naive, clients)
	h := &wakeHeap{}
	for i := range ours {
		crng := rand.New(rand.NewPCG(7, uint64(i)+1))
		cl := &simClient{view: NewView(ViewConfig{}), sched: NewSchedule(policy, crng.Float64), rng: crng,
			maxSeen: make([]int32, partitions), maxLead: make([]int32, partitions)}
		for p := range partitions {
			cl.maxSeen[p], cl.maxLead[p] = -1, -1
		}
		cl.refresh(t, c, 0) // bootstrap before the window
		cl.requests, cl.progress = 0, 0
		naives[i].view = cl.view
		cl.wake = crash + time.Duration(crng.IntN(100))*time.Millisecond
		ours[i] = cl
		heap.Push(h, cl)
	}
	failing := func(v *View, now time.Duration) int {
		n := 0
		for _, p := range moved {
			if l, _, ok := v.Leader(simTopic, p); !ok || !c.alive(l, now) {
				n++
			}
		}
		return n
	}
	for h.Len() > 0 {
		cl := (*h)[0]
		now := cl.wake
		if now > end {
			break
		}
		// Ours: a failed round asks for one update; the schedule decides.
		if failing(cl.view, now) > 0 {
			cl.sched.RequestUpdate()
		}
		if cl.sched.Wait(virtual(now), cl.view) == 0 {
			cl.refresh(t, c, now)
		}
		if failing(cl.view, now) > 0 {
			cl.wake = now + 100*time.Millisecond
		} else {
			cl.wake = now + max(cl.sched.Wait(virtual(now), cl.view), time.Millisecond)
		}
		heap.Fix(h, 0)
	}
	// Naive clients: same rounds, one request per failed partition, the
	// answers of a round merged (they all come back the same).
	for i := range naives {
		n := &naives[i]
		crng := rand.New(rand.NewPCG(7, uint64(i)+1))
		for now := crash + time.Duration(crng.IntN(100))*time.Millisecond; now <= end; now += 100 * time.Millisecond {
			f := failing(n.view, now)
			if f == 0 {
				continue
			}
			n.requests += f
			b := int32(crng.IntN(c.brokers))
			for !c.alive(b, now) {
				b = int32(crng.IntN(c.brokers))
			}
			// Merging the very answer merged last changes nothing; skip it.
			if a := c.answer(b, now); a != n.last {
				n.view, _ = n.view.Merge(a, MergeOptions{})
				n.last = a
			}
		}
	}
	window := end - crash
	total, naiveTotal, worst := 0, 0, 0
	truth := c.truth(end)
	for i, cl := range ours {
		promise := policy.MaxRefreshes(window, cl.progress)
		if cl.requests > promise {
			t.Fatalf("client %d: %d requests in %v, promise %d (progress %d)", i, cl.requests, window, promise, cl.progress)
		}
		if cl.progress > 1 {
			t.Fatalf("client %d: %d answers with progress from one election", i, cl.progress)
		}
		if !cl.converged(truth) {
			t.Fatalf("client %d did not converge", i)
		}
		total += cl.requests
		worst = max(worst, cl.requests)
		naiveTotal += naives[i].requests
	}
	factor := float64(naiveTotal) / float64(total)
	t.Logf("%d clients, broker %d down (%d partitions): %d Metadata requests (max %d per client, promise %d with one progress answer) vs %d naive: %.0f× fewer",
		clients, dead, len(moved), total, worst, policy.MaxRefreshes(window, 1), naiveTotal, factor)
	if factor < 10 {
		t.Fatalf("only %.1f× fewer requests than the naive client", factor)
	}
}
