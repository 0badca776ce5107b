package publisher

import (
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/imagetest"
	"github.com/kmeta-go/kmeta/record"
)

var long = flag.Bool("kmeta.long", false, "run the long randomized tests")

// TestModelRandomLogs feeds random logs — topics created, led, configured
// and removed, metadata transactions that end or abort (with records after
// the Abort in the same commit), control batches, commits of several
// batches, snapshots now and then — and checks after every commit that
// leaves no transaction open that the published image equals a model: one
// plain delta over the empty image replaying exactly the records that were
// committed and not aborted. The seed is in the subtest name.
func TestModelRandomLogs(t *testing.T) {
	seeds := 30
	if *long {
		seeds = 1000
	}
	for seed := 1; seed <= seeds; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { runModel(t, uint64(seed)) })
	}
}

type modelGen struct {
	r           *rand.Rand
	committed   map[int]bool // topic number -> exists (outside any transaction)
	work        map[int]bool // the same, as the open transaction sees it
	inTx        bool
	txRecs      []record.Record
	effective   []record.Record // what the model replays
	nextTopic   int
	pendingPart record.Record
}

func (g *modelGen) topics() map[int]bool {
	if g.inTx {
		return g.work
	}
	return g.committed
}

// rec returns one random data record valid against the current view, or a
// transaction marker.
func (g *modelGen) rec() record.Record {
	view := g.topics()
	var present []int
	for n := range view {
		present = append(present, n)
	}
	sortInts(present)
	switch k := g.r.IntN(20); {
	case k == 0 && !g.inTx:
		g.inTx, g.work, g.txRecs = true, maps.Clone(g.committed), nil
		return begin()
	case k == 1 && g.inTx:
		g.inTx, g.committed = false, g.work
		g.effective = append(g.effective, g.txRecs...)
		return end()
	case k == 2 && g.inTx:
		g.inTx, g.work, g.txRecs = false, nil, nil
		return abort()
	case k < 6 || len(present) == 0:
		g.nextTopic++
		n := g.nextTopic
		view[n] = true
		return g.data(topicRec(fmt.Sprintf("t%d", n), n), partRec(n, 0, int32(g.r.IntN(3))))
	case k < 7:
		n := present[g.r.IntN(len(present))]
		delete(view, n)
		return g.data(removeTopic(n))
	case k < 9:
		n := present[g.r.IntN(len(present))]
		return g.data(configRec(fmt.Sprintf("t%d", n), "retention.ms", fmt.Sprint(g.r.IntN(100))))
	case k < 10:
		return g.data(record.NewNoOpRecord())
	default:
		n := present[g.r.IntN(len(present))]
		return g.data(leaderChange(n, 0, int32(g.r.IntN(3))))
	}
}

// data records the records the model replays and returns them as one
// (a TopicRecord is always followed by its PartitionRecord).
func (g *modelGen) data(rs ...record.Record) record.Record {
	if g.inTx {
		g.txRecs = append(g.txRecs, rs...)
	} else {
		g.effective = append(g.effective, rs...)
	}
	if len(rs) == 2 {
		g.pendingPart = rs[1]
	}
	return rs[0]
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func runModel(t *testing.T, seed uint64) {
	var fs faults
	l := NewLoader(Config{ReplayErrors: Halt, FaultHandler: fs.handler})
	cache := NewCache("")
	must(t, l.Install(cache))
	g := &modelGen{r: rand.New(rand.NewPCG(seed, 7)), committed: map[int]bool{}}
	f := &feed{epoch: 1}
	l.SetHighWatermark(0)
	for c := 0; c < 60; c++ {
		if g.r.IntN(15) == 0 && !g.inTx && len(g.effective) > 0 {
			// A snapshot of the model's image, a little further on in the log.
			want := modelImage(t, g.effective)
			recs, err := want.Records(image.WriteOptions{})
			must(t, err)
			s := Snapshot{LastContainedOffset: f.next + 5, LastContainedEpoch: f.epoch}
			for _, r := range recs {
				s.Records = append(s.Records, r.Record)
			}
			must(t, l.LoadSnapshot(s.Reader()))
			f.next += 6
		}
		var batches []record.Batch
		for b := 1 + g.r.IntN(3); b > 0; b-- {
			if g.r.IntN(10) == 0 {
				f.epoch++
				lc := record.NewLeaderChangeMessage()
				lc.LeaderID = 3000 + f.epoch%3
				batches = append(batches, f.control(lc))
				continue
			}
			var recs []record.Record
			for n := 1 + g.r.IntN(4); n > 0; n-- {
				recs = append(recs, g.rec())
				if g.pendingPart != nil {
					recs = append(recs, g.pendingPart)
					g.pendingPart = nil
				}
			}
			batches = append(batches, f.batch(recs...))
		}
		if err := l.HandleCommit(batches...); err != nil {
			t.Fatalf("commit %d: %v", c, err)
		}
		if g.inTx {
			continue
		}
		img, _ := l.Watch()
		if img == nil && l.Image().IsEmpty() {
			continue // nothing but control batches and aborted records yet: still catching up
		}
		if img == nil || img.Provenance().LastContainedOffset != f.next-1 {
			t.Fatalf("commit %d: published %v, want offset %d", c, img, f.next-1)
		}
		imagetest.CompareImage(t, img, imagetest.ImageLines(t, modelImage(t, g.effective)))
		if t.Failed() {
			t.Fatalf("commit %d differs", c)
		}
	}
	if img, _ := l.Watch(); img == nil {
		t.Errorf("nothing published")
	}
	if len(fs.list) != 0 {
		t.Errorf("faults: %v", fs.kinds())
	}
}

func modelImage(t *testing.T, recs []record.Record) *image.Image {
	d := delta.New(nil)
	for _, r := range recs {
		if err := d.Replay(r); err != nil {
			t.Fatalf("model: %v", err)
		}
	}
	img, err := d.Apply(image.EmptyProvenance)
	must(t, err)
	return img
}
