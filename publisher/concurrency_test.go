package publisher

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kmeta-go/kmeta/record"
)

// TestConcurrentReadersSeeWholeCommits: 8 goroutines read the cache while
// the loader publishes 10 000 commits. Every commit moves the leader of
// partition 0 of two topics together (two PartitionChangeRecords in one
// batch), so a reader that ever sees the two leaders or leader epochs
// differ has seen half a commit. Readers also check that the log position
// never goes back, and a Watch reader that it is woken for new images.
func TestConcurrentReadersSeeWholeCommits(t *testing.T) {
	const commits = 10000
	const readers = 8
	l := NewLoader(Config{})
	cache := NewCache("")
	must(t, l.Install(cache))
	l.SetHighWatermark(0)
	f := &feed{epoch: 1}
	must(t, l.HandleCommit(f.batch(topicRec("left", 1), partRec(1, 0, 0), topicRec("right", 2), partRec(2, 0, 0))))

	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, readers+1)
	reads := make([]int, readers)
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			var err error
			if reads[r], err = readWholeCommits(cache, r, &stop); err != nil {
				errs <- err
			}
		}(r)
	}
	// A watcher that follows every publication without polling.
	wg.Add(1)
	woken := 0
	go func() {
		defer wg.Done()
		img, next := cache.Watch()
		for !stop.Load() {
			<-next
			n, ch := cache.Watch()
			if n.Provenance().LastContainedOffset <= img.Provenance().LastContainedOffset {
				errs <- fmt.Errorf("woken without a newer image")
				return
			}
			img, next = n, ch
			woken++
		}
	}()
	waited := make(chan int64, 1)
	go func() {
		img, err := l.WaitForOffset(context.Background(), int64(2*commits+3))
		if err != nil {
			waited <- -1
			return
		}
		waited <- img.Provenance().LastContainedOffset
	}()
	for i := 1; i <= commits; i++ {
		ld := int32(i % 3)
		must(t, l.HandleCommit(f.batch(leaderChange(1, 0, ld), leaderChange(2, 0, ld))))
	}
	if off := <-waited; off != int64(2*commits+3) {
		t.Errorf("WaitForOffset returned offset %d", off)
	}
	stop.Store(true)
	must(t, l.HandleCommit(f.batch(record.NewNoOpRecord()))) // wake the watcher
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	_, ep := leaderOf(t, cache.Load(), "left", 0)
	if ep != commits-1 {
		t.Errorf("leader epoch %d after %d changes", ep, commits)
	}
	total := 0
	for _, n := range reads {
		total += n
	}
	t.Logf("%d reads, watcher woken %d times", total, woken)
	if woken == 0 {
		t.Errorf("watcher never woken")
	}
}

// readWholeCommits is reader r of TestConcurrentReadersSeeWholeCommits: it
// reads cache until stop, checking that every image holds both topics of a
// commit at the same leader and epoch and that offsets never go back, and
// returns the number of images read.
func readWholeCommits(cache *Cache, r int, stop *atomic.Bool) (int, error) {
	last, reads := int64(-1), 0
	for !stop.Load() {
		img := cache.Load()
		a, _ := img.Topic("left")
		b, _ := img.Topic("right")
		pa, _ := a.Partition(0)
		pb, _ := b.Partition(0)
		if pa.Leader() != pb.Leader() || pa.LeaderEpoch() != pb.LeaderEpoch() {
			return reads, fmt.Errorf("reader %d at offset %d: left %d/%d, right %d/%d", r, img.Provenance().LastContainedOffset, pa.Leader(), pa.LeaderEpoch(), pb.Leader(), pb.LeaderEpoch())
		}
		off := img.Provenance().LastContainedOffset
		if off < last {
			return reads, fmt.Errorf("reader %d: offset went back from %d to %d", r, last, off)
		}
		last = off
		reads++
	}
	return reads, nil
}

// TestInstallRemoveWhileFeeding: publishers installed and removed through
// the Runner from another goroutine while commits flow through it each see
// the full image first, then every later publication in order without a
// gap, and are closed exactly once after removal.
func TestInstallRemoveWhileFeeding(t *testing.T) {
	const commits = 3000
	l := NewLoader(Config{})
	l.SetHighWatermark(0)
	f := &feed{}
	must(t, l.HandleCommit(f.batch(topicRec("a", 1), partRec(1, 0, 0))))
	run := NewRunner(l, 16)
	done := make(chan struct{})
	var all []*recorder
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			r := newRecorder(fmt.Sprintf("p%d", i))
			all = append(all, r)
			must(t, run.Install(r))
			if i >= 3 {
				must(t, run.Remove(fmt.Sprintf("p%d", i-3)))
			}
		}
	}()
	for i := 0; i < commits; i++ {
		must(t, run.HandleCommit(f.batch(leaderChange(1, 0, int32(i%3)))))
	}
	<-done
	must(t, run.Close())
	if n := len(l.Publishers()); n != 3 {
		t.Errorf("%d publishers left installed, want 3", n)
	}
	must(t, l.Close())
	for _, r := range all {
		ups := r.all()
		if len(ups) == 0 {
			continue
		}
		if ups[0].manifest.Type != SnapshotLoad {
			t.Errorf("%s: first update %v", r.name, ups[0].manifest.Type)
		}
		for i := 1; i < len(ups); i++ {
			if ups[i].manifest.Type != LogDelta || ups[i].manifest.Provenance.LastContainedOffset != ups[i-1].manifest.Provenance.LastContainedOffset+1 {
				t.Errorf("%s: update %d at %d after %d", r.name, i, ups[i].manifest.Provenance.LastContainedOffset, ups[i-1].manifest.Provenance.LastContainedOffset)
				break
			}
		}
		if r.closed != 1 {
			t.Errorf("%s closed %d times", r.name, r.closed)
		}
	}
}
