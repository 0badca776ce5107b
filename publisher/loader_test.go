package publisher

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// TestMetadataLoaderStillNeedToCatchUp: nothing is published before the
// high watermark is known, before the image reaches HW-1, or before a record
// has been seen (MetadataLoader.stillNeedToCatchUp); then the publishers get
// the caught-up image first, as a full-state snapshot.
func TestMetadataLoaderStillNeedToCatchUp(t *testing.T) {
	tests := []struct {
		name    string
		hw      int64 // -1: never reported
		hwFirst bool  // report the HW before the commits
		want    []int64
	}{
		{"hw unknown", -1, true, nil},
		{"hw beyond the log", 100, true, nil},
		{"hw reached on the last commit", 5, true, []int64{4}},
		{"hw reached midway", 3, true, []int64{2, 3, 4}},
		{"hw reported after the commits", 5, false, []int64{4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLoader(Config{})
			rec := newRecorder("r")
			must(t, l.Install(rec))
			if tc.hwFirst && tc.hw >= 0 {
				l.SetHighWatermark(tc.hw)
			}
			f := &feed{}
			must(t, l.HandleCommit(f.batch(topicRec("a", 1), partRec(1, 0, 0))))     // 0-1
			must(t, l.HandleCommit(f.batch(topicRec("b", 2))))                       // 2
			must(t, l.HandleCommit(f.batch(partRec(2, 0, 1))))                       // 3
			must(t, l.HandleCommit(f.batch(configRec("a", "retention.ms", "1000")))) // 4
			if !tc.hwFirst && tc.hw >= 0 {
				if len(rec.all()) != 0 {
					t.Fatalf("published before the high watermark was known: %v", rec.offsets())
				}
				l.SetHighWatermark(tc.hw)
			}
			if got := rec.offsets(); !slices.Equal(got, tc.want) {
				t.Fatalf("published offsets %v, want %v", got, tc.want)
			}
			if len(tc.want) > 0 {
				first := rec.all()[0]
				if first.manifest.Type != SnapshotLoad {
					t.Errorf("first update is %v, want SNAPSHOT (full state)", first.manifest.Type)
				}
				if img, _ := l.Watch(); img == nil || img.Provenance().LastContainedOffset != 4 {
					t.Errorf("Watch image %v, want offset 4", img)
				}
			} else if img, _ := l.Watch(); img != nil {
				t.Errorf("Watch returned an image while catching up: %v", img.Provenance())
			}
			if got := l.Image().Provenance().LastContainedOffset; got != 4 {
				t.Errorf("loader image at %d, want 4 (tracked while catching up)", got)
			}
		})
	}
}

// TestCatchUpNeedsARecord: an image that holds nothing does not count as
// caught up (Kafka 4.x hasSeenRecord = !image.isEmpty()): a
// log of control batches only publishes nothing.
func TestCatchUpNeedsARecord(t *testing.T) {
	l := NewLoader(Config{})
	rec := newRecorder("r")
	must(t, l.Install(rec))
	f := &feed{epoch: 1}
	lc := record.NewLeaderChangeMessage()
	lc.LeaderID = 3000
	must(t, l.HandleCommit(f.control(lc)))
	l.SetHighWatermark(1)
	if n := len(rec.all()); n != 0 {
		t.Fatalf("published %d updates from a log of control records", n)
	}
	must(t, l.HandleCommit(f.batch(record.NewNoOpRecord())))
	if got := rec.offsets(); !slices.Equal(got, []int64{1}) {
		t.Fatalf("published %v, want [1] once a record was seen", got)
	}
}

// TestMetadataLoaderInitializeNewPublishers: a publisher installed late
// first receives the whole current image as a delta from the empty image
// with a SNAPSHOT manifest, then every later commit; publishers run in
// install order; a duplicate name is refused (installPublishers).
func TestMetadataLoaderInitializeNewPublishers(t *testing.T) {
	l := NewLoader(Config{})
	var order []string
	early := newRecorder("early")
	early.onUp = func(r *recorder, _ Changes, _ *image.Image, _ Manifest) error {
		order = append(order, r.name)
		return nil
	}
	must(t, l.Install(early))
	l.SetHighWatermark(3)
	f := &feed{}
	must(t, l.HandleCommit(f.batch(topicRec("a", 1), partRec(1, 0, 0))))
	must(t, l.HandleCommit(f.batch(topicRec("b", 2), partRec(2, 0, 0))))

	late := newRecorder("late")
	late.onUp = early.onUp
	must(t, l.Install(late))
	ups := late.all()
	if len(ups) != 1 {
		t.Fatalf("late publisher got %d updates at install, want 1", len(ups))
	}
	u := ups[0]
	if u.manifest.Type != SnapshotLoad || u.manifest.Provenance.LastContainedOffset != 3 {
		t.Errorf("first manifest %+v, want SNAPSHOT at offset 3", u.manifest)
	}
	if got := sortStrings(u.created); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("full delta creates %v, want every topic [a b]", got)
	}
	if u.img != l.Image() {
		t.Errorf("first update's image is not the current image")
	}
	if err := l.Install(newRecorder("late")); !errors.Is(err, ErrDuplicateName) {
		t.Errorf("duplicate install: %v, want ErrDuplicateName", err)
	}

	order = nil
	must(t, l.HandleCommit(f.batch(leaderChange(1, 0, 1))))
	if !slices.Equal(order, []string{"early", "late"}) {
		t.Errorf("publish order %v, want install order", order)
	}
	if got := late.last().manifest; got.Type != LogDelta || got.Provenance.LastContainedOffset != 4 {
		t.Errorf("late publisher's second update %+v, want LOG_DELTA at 4", got)
	}
	if early.leaders == nil || late.leaders == nil {
		t.Errorf("controller listeners not told of the leader at install: early %v late %v", early.leaders, late.leaders)
	}
}

// TestPublisherFaultIsolation: a publisher that panics or returns an error
// is counted and reported; the others still get the update, and it keeps
// getting later updates unless the fault handler removes it.
func TestPublisherFaultIsolation(t *testing.T) {
	for _, mode := range []string{"panic", "error", "panic-removed-by-handler"} {
		t.Run(mode, func(t *testing.T) {
			var fs faults
			opts := Config{FaultHandler: fs.handler}
			if mode == "panic-removed-by-handler" {
				opts.FaultHandler = func(l *Loader, f *Fault) {
					fs.handler(l, f)
					if f.Kind == FaultPublisher {
						if err := l.Remove(f.Publisher); err != nil {
							t.Errorf("remove from handler: %v", err)
						}
					}
				}
			}
			l := NewLoader(opts)
			first, bad, last := newRecorder("first"), newRecorder("bad"), newRecorder("last")
			calls := 0
			bad.onUp = func(_ *recorder, _ Changes, _ *image.Image, m Manifest) error {
				calls++
				if m.Type == SnapshotLoad {
					return nil
				}
				if mode == "error" {
					return errors.New("boom")
				}
				panic("boom")
			}
			must(t, l.Install(first, bad, last))
			l.SetHighWatermark(1)
			f := &feed{}
			must(t, l.HandleCommit(f.batch(topicRec("a", 1), partRec(1, 0, 0))))
			must(t, l.HandleCommit(f.batch(leaderChange(1, 0, 1))))
			must(t, l.HandleCommit(f.batch(leaderChange(1, 0, 2))))
			for _, r := range []*recorder{first, last} {
				if got := r.offsets(); !slices.Equal(got, []int64{1, 2, 3}) {
					t.Errorf("%s got %v, want [1 2 3]", r.name, got)
				}
			}
			wantCalls, wantFaults := 3, 2
			if mode == "panic-removed-by-handler" {
				wantCalls, wantFaults = 2, 1
				if bad.closed != 1 {
					t.Errorf("removed publisher closed %d times, want 1", bad.closed)
				}
				if slices.Contains(l.Publishers(), "bad") {
					t.Errorf("removed publisher still installed: %v", l.Publishers())
				}
			}
			if calls != wantCalls {
				t.Errorf("bad publisher called %d times, want %d", calls, wantCalls)
			}
			if got := len(fs.kinds()); got != wantFaults {
				t.Errorf("faults %v, want %d publisher faults", fs.kinds(), wantFaults)
			}
			if got := l.Stats().PublisherErrors; got != int64(wantFaults) {
				t.Errorf("PublisherErrors = %d, want %d", got, wantFaults)
			}
			if mode != "error" {
				var pe *PanicError
				if !errors.As(fs.list[0], &pe) {
					t.Errorf("fault %v does not carry a *PanicError", fs.list[0])
				}
			}
		})
	}
}

// TestPublisherInitFailureDropped: a publisher that fails on the full image
// is reported and dropped (MetadataLoader.initializeNewPublishers), and
// closed.
func TestPublisherInitFailureDropped(t *testing.T) {
	var fs faults
	l := NewLoader(Config{FaultHandler: fs.handler})
	l.SetHighWatermark(1)
	must(t, l.HandleCommit((&feed{}).batch(topicRec("a", 1), partRec(1, 0, 0))))
	bad := newRecorder("bad")
	bad.onUp = func(*recorder, Changes, *image.Image, Manifest) error { return errors.New("no") }
	must(t, l.Install(bad))
	if len(l.Publishers()) != 0 || bad.closed != 1 {
		t.Errorf("publishers %v, closed %d: want dropped and closed", l.Publishers(), bad.closed)
	}
	if k := fs.kinds(); len(k) != 1 || k[0] != "publisher-init@1" {
		t.Errorf("faults %v", k)
	}
}

// TestInstallAndRemoveFromAPublisher: a publisher may install and remove
// publishers while being called; the new one is initialized when the
// publication ends, the removed one gets nothing more and is closed.
func TestInstallAndRemoveFromAPublisher(t *testing.T) {
	l := NewLoader(Config{})
	victim, added := newRecorder("victim"), newRecorder("added")
	boss := newRecorder("boss")
	boss.onUp = func(_ *recorder, _ Changes, _ *image.Image, m Manifest) error {
		if m.Provenance.LastContainedOffset == 2 {
			must(t, l.Remove("victim"))
			must(t, l.Install(added))
		}
		return nil
	}
	must(t, l.Install(boss, victim))
	l.SetHighWatermark(1)
	f := &feed{}
	must(t, l.HandleCommit(f.batch(topicRec("a", 1), partRec(1, 0, 0))))
	must(t, l.HandleCommit(f.batch(leaderChange(1, 0, 1))))
	must(t, l.HandleCommit(f.batch(leaderChange(1, 0, 2))))
	if got := victim.offsets(); !slices.Equal(got, []int64{1}) {
		t.Errorf("victim got %v, want [1] (removed before it was called at 2)", got)
	}
	if victim.closed != 1 {
		t.Errorf("victim closed %d times", victim.closed)
	}
	if got := added.all(); len(got) != 2 || got[0].manifest.Type != SnapshotLoad || got[0].manifest.Provenance.LastContainedOffset != 2 {
		t.Errorf("added got %+v, want full image at 2 then 3", added.offsets())
	}
	if got := l.Publishers(); !slices.Equal(got, []string{"boss", "added"}) {
		t.Errorf("publishers %v", got)
	}
	must(t, l.Remove("added"))
	if err := l.Remove("added"); !errors.Is(err, ErrUnknownPublisher) {
		t.Errorf("second remove: %v", err)
	}
	if added.closed != 1 {
		t.Errorf("idle remove did not close")
	}
}

// TestMetadataBatchLoaderTransactions: a metadata transaction (KIP-868)
// defers publication until its End, even across commits; records before a
// Begin in the same commit are published on their own.
func TestMetadataBatchLoaderTransactions(t *testing.T) {
	l := NewLoader(Config{})
	rec := newRecorder("r")
	must(t, l.Install(rec))
	l.SetHighWatermark(0)
	f := &feed{epoch: 1}
	must(t, l.HandleCommit(f.batch(topicRec("pre", 9), partRec(9, 0, 0)))) // 0-1, published
	// One commit: a record, then Begin in the same batch: the record is
	// published alone, cut before the Begin (not batch-aligned).
	must(t, l.HandleCommit(f.batch(configRec("pre", "k", "v"), begin(), topicRec("a", 1)))) // 2,3,4
	must(t, l.HandleCommit(f.batch(partRec(1, 0, 0))))                                      // 5
	if got := rec.offsets(); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("published %v, want [1 2] while the transaction is open", got)
	}
	if p := rec.last().manifest.Provenance; p.BatchAligned {
		t.Errorf("delta cut before a BeginTransaction inside a batch is batch-aligned: %+v", p)
	}
	if img, _ := l.Watch(); slices.Contains(topicNames(img), "a") {
		t.Fatalf("transaction's topic visible before its end")
	}
	must(t, l.HandleCommit(f.batch(topicRec("b", 2), partRec(2, 0, 0), end()))) // 6,7,8
	if got := rec.offsets(); !slices.Equal(got, []int64{1, 2, 8}) {
		t.Fatalf("published %v, want [1 2 8]", got)
	}
	u := rec.last()
	if got := sortStrings(u.created); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("transaction delta creates %v, want [a b] in one update", got)
	}
	if !u.manifest.Provenance.BatchAligned || u.manifest.NumBatches != 3 {
		t.Errorf("manifest %+v, want batch-aligned over 3 batches", u.manifest)
	}
	// A Begin as the first record of a later batch of the same commit:
	// the earlier batch is published alone, batch-aligned.
	must(t, l.HandleCommit(f.batch(configRec("a", "k", "1")), f.batch(begin(), configRec("a", "k", "2"), end())))
	if got := rec.offsets(); !slices.Equal(got, []int64{1, 2, 8, 9, 12}) {
		t.Fatalf("published %v, want [... 9 12]", got)
	}
	if p := rec.all()[3].manifest.Provenance; !p.BatchAligned {
		t.Errorf("cut at a batch boundary is not batch-aligned: %+v", p)
	}
}

// TestAbortedTransactionLeavesNoTrace: an aborted transaction's records are
// never published, also when more records follow the Abort in the same
// commit (Kafka's MetadataBatchLoader keeps them then; kmeta
// discards them on purpose). The offsets still advance.
func TestAbortedTransactionLeavesNoTrace(t *testing.T) {
	tests := []struct {
		name    string
		commits [][]record.Record
	}{
		{"abort ends the commit", [][]record.Record{{begin(), topicRec("x", 1), partRec(1, 0, 0), abort()}}},
		{"abort in a later commit", [][]record.Record{{begin(), topicRec("x", 1)}, {partRec(1, 0, 0)}, {abort()}}},
		{"records follow the abort in the commit (Kafka quirk)", [][]record.Record{{begin(), topicRec("x", 1), partRec(1, 0, 0), abort(), topicRec("y", 2), partRec(2, 0, 0)}}},
		{"a new transaction follows the abort", [][]record.Record{{begin(), topicRec("x", 1), partRec(1, 0, 0), abort(), begin(), topicRec("y", 2), partRec(2, 0, 0), end()}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLoader(Config{})
			rec := newRecorder("r")
			must(t, l.Install(rec))
			l.SetHighWatermark(0)
			f := &feed{}
			must(t, l.HandleCommit(f.batch(topicRec("base", 9), partRec(9, 0, 0))))
			before := l.Image()
			for _, c := range tc.commits {
				must(t, l.HandleCommit(f.batch(c...)))
			}
			img, _ := l.Watch()
			if img.Provenance().LastContainedOffset != f.next-1 {
				t.Errorf("published offset %d, want %d", img.Provenance().LastContainedOffset, f.next-1)
			}
			if slices.Contains(topicNames(img), "x") {
				t.Errorf("aborted topic x is in the image: %v", topicNames(img))
			}
			for _, u := range rec.all() {
				if slices.Contains(u.created, "x") || slices.Contains(topicNames(u.img), "x") {
					t.Errorf("aborted topic x was published at %d", u.manifest.Provenance.LastContainedOffset)
				}
			}
			wantY := tc.name != "abort ends the commit" && tc.name != "abort in a later commit"
			if got := slices.Contains(topicNames(img), "y"); got != wantY {
				t.Errorf("topic y present = %v, want %v", got, wantY)
			}
			if !wantY && img.Topics() != before.Topics() {
				t.Errorf("topics image changed by an aborted transaction")
			}
		})
	}
}

// TestTransactionMarkerFaults: markers out of place are replay faults
// (MetadataBatchLoader.replay throws; the loader reports and goes on).
func TestTransactionMarkerFaults(t *testing.T) {
	var fs faults
	l := NewLoader(Config{FaultHandler: fs.handler})
	l.SetHighWatermark(0)
	f := &feed{}
	must(t, l.HandleCommit(f.batch(end(), abort(), topicRec("a", 1), partRec(1, 0, 0), begin(), begin(), end())))
	if got := fs.kinds(); !slices.Equal(got, []string{"replay@0", "replay@1", "replay@5"}) {
		t.Errorf("faults %v", got)
	}
	if img, _ := l.Watch(); !slices.Equal(topicNames(img), []string{"a"}) {
		t.Errorf("image topics %v", topicNames(img))
	}
}

// TestSnapshotLoadRemovesAbsentTopics: a snapshot is a delta from the
// current image that deletes whatever it does not re-assert
// (MetadataLoader.handleLoadSnapshot, MetadataDelta.finishSnapshot); the
// publishers see the deletions and a SNAPSHOT manifest; an open transaction
// is discarded.
func TestSnapshotLoadRemovesAbsentTopics(t *testing.T) {
	l := NewLoader(Config{})
	rec := newRecorder("r")
	must(t, l.Install(rec))
	l.SetHighWatermark(0)
	f := &feed{epoch: 2}
	must(t, l.HandleCommit(f.batch(topicRec("keep", 1), partRec(1, 0, 0), topicRec("gone", 2), partRec(2, 0, 0), configRec("gone", "k", "v"))))
	must(t, l.HandleCommit(f.batch(begin(), topicRec("open", 3))))
	s := Snapshot{LastContainedOffset: 99, LastContainedEpoch: 3, LastContainedLogTime: 1234, Records: []record.Record{topicRec("keep", 1), partRec(1, 0, 2), topicRec("new", 4), partRec(4, 0, 0)}}
	must(t, l.LoadSnapshot(s.Reader()))
	u := rec.last()
	if u.manifest.Type != SnapshotLoad || u.manifest.Provenance != (image.Provenance{LastContainedOffset: 99, LastContainedEpoch: 3, LastContainedLogTimeMs: 1234, BatchAligned: true}) {
		t.Errorf("manifest %+v", u.manifest)
	}
	if got := topicNames(u.img); !slices.Equal(got, []string{"keep", "new"}) {
		t.Errorf("topics after snapshot %v, want [keep new]", got)
	}
	if len(u.topics.Deleted) != 1 || u.topics.Deleted[0] != topicID(2) {
		t.Errorf("deleted %v, want topic gone", u.topics.Deleted)
	}
	if _, ok := u.img.Configs().Get(image.ConfigResource{Type: 2, Name: "gone"}, "k"); ok {
		t.Errorf("config of a topic absent from the snapshot survived")
	}
	if l, _ := leaderOf(t, u.img, "keep", 0); l != 2 {
		t.Errorf("leader %d, want 2 from the snapshot", l)
	}
	// The log continues after the snapshot; the open transaction is gone.
	f.next = 100
	must(t, l.HandleCommit(f.batch(topicRec("after", 5), partRec(5, 0, 0))))
	if got := topicNames(rec.last().img); !slices.Equal(got, []string{"after", "keep", "new"}) {
		t.Errorf("topics %v", got)
	}
	if st := l.Stats(); st.SnapshotLoads != 1 {
		t.Errorf("SnapshotLoads %d", st.SnapshotLoads)
	}
}

// TestWaitForOffset returns when, and only when, an image containing the
// offset is published: not while catching up, not inside an open
// transaction.
func TestWaitForOffset(t *testing.T) {
	l := NewLoader(Config{})
	cache := NewCache("")
	must(t, l.Install(cache))
	type result struct {
		img *image.Image
		err error
	}
	done := make(chan result, 1)
	go func() {
		img, err := l.WaitForOffset(context.Background(), 3)
		done <- result{img, err}
	}()
	notYet := func(step string) {
		t.Helper()
		select {
		case r := <-done:
			t.Fatalf("%s: WaitForOffset returned early: %v %v", step, r.img.Provenance(), r.err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	f := &feed{}
	must(t, l.HandleCommit(f.batch(topicRec("a", 1), partRec(1, 0, 0), record.NewNoOpRecord(), record.NewNoOpRecord()))) // 0-3
	notYet("catching up (no high watermark)")
	must(t, l.HandleCommit(f.batch(begin(), topicRec("b", 2)))) // 4,5
	l.SetHighWatermark(10)
	notYet("catching up to 10")
	_, ch := l.Watch()
	l.SetHighWatermark(4) // caught up at offset 3
	select {
	case <-ch:
	default:
		t.Fatal("Watch channel not closed by the publication")
	}
	r := <-done
	if r.err != nil || r.img.Provenance().LastContainedOffset != 3 {
		t.Fatalf("WaitForOffset(3) = %v, %v", r.img, r.err)
	}
	if cache.Load() != r.img {
		t.Errorf("cache does not hold the image WaitForOffset returned")
	}
	// Inside the open transaction: offset 5 is loaded, not published.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := l.WaitForOffset(ctx, 5); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitForOffset(5) inside a transaction = %v, want deadline", err)
	}
	go func() {
		img, err := l.WaitForOffset(context.Background(), 6)
		done <- result{img, err}
	}()
	must(t, l.HandleCommit(f.batch(partRec(2, 0, 0), end()))) // 6,7
	r = <-done
	if r.err != nil || r.img.Provenance().LastContainedOffset != 7 {
		t.Fatalf("WaitForOffset(6) = %v, %v", r.img.Provenance(), r.err)
	}
	// Close wakes waiters.
	go func() {
		img, err := l.WaitForOffset(context.Background(), 1000)
		done <- result{img, err}
	}()
	time.Sleep(5 * time.Millisecond)
	must(t, l.Close())
	if r := <-done; !errors.Is(r.err, ErrClosed) {
		t.Errorf("after Close: %v", r.err)
	}
	if err := l.HandleCommit(f.batch(record.NewNoOpRecord())); !errors.Is(err, ErrClosed) {
		t.Errorf("HandleCommit after Close: %v", err)
	}
}

// TestReplayErrors: a record the image rejects (delta.Replay's
// *delta.RecordError) is reported with its offset and record. Skip (Kafka's
// broker): the commit is published without it and it is counted. Halt: the
// last good image stays, input is refused until a snapshot resets the
// loader.
func TestReplayErrors(t *testing.T) {
	// A PartitionRecord for an unknown topic is rejected by the delta.
	bad := partRec(77, 0, 0)
	for _, mode := range []ReplayErrorMode{Skip, Halt} {
		name := map[ReplayErrorMode]string{Skip: "skip", Halt: "halt"}[mode]
		t.Run(name, func(t *testing.T) {
			var fs faults
			l := NewLoader(Config{ReplayErrors: mode, FaultHandler: fs.handler})
			rec := newRecorder("r")
			must(t, l.Install(rec))
			l.SetHighWatermark(0)
			f := &feed{}
			must(t, l.HandleCommit(f.batch(topicRec("a", 1), partRec(1, 0, 0)))) // 0,1
			good := l.Image()
			err := l.HandleCommit(f.batch(topicRec("b", 2), bad, partRec(2, 0, 0))) // 2,3,4
			if len(fs.list) != 1 {
				t.Fatalf("faults %v, want one", fs.kinds())
			}
			var re *ReplayError
			if !errors.As(fs.list[0], &re) || re.Offset != 3 || re.Record != bad {
				t.Fatalf("fault %v does not name offset 3 and the record", fs.list[0])
			}
			var de *delta.RecordError
			if !errors.As(re, &de) || !errors.Is(re, delta.ErrRejected) {
				t.Errorf("replay error does not wrap *delta.RecordError: %v", re)
			}
			if got := l.Stats().ReplayErrors; got != 1 {
				t.Errorf("ReplayErrors = %d", got)
			}
			switch mode {
			case Skip:
				must(t, err)
				img, _ := l.Watch()
				if img.Provenance().LastContainedOffset != 4 || !slices.Equal(topicNames(img), []string{"a", "b"}) {
					t.Errorf("published %v %v, want offset 4 with a and b", img.Provenance(), topicNames(img))
				}
				must(t, l.HandleCommit(f.batch(record.NewNoOpRecord())))
			case Halt:
				if !errors.Is(err, ErrHalted) || !errors.As(err, &re) {
					t.Fatalf("HandleCommit = %v, want ErrHalted with the replay error", err)
				}
				if img, _ := l.Watch(); img != good || l.Image() != good {
					t.Errorf("halted loader does not serve the last good image")
				}
				if err := l.HandleCommit(f.batch(record.NewNoOpRecord())); !errors.Is(err, ErrHalted) {
					t.Errorf("input after halt: %v, want ErrHalted", err)
				}
				if l.Stats().Halted == nil {
					t.Errorf("Stats.Halted not set")
				}
				must(t, l.LoadSnapshot(Snapshot{LastContainedOffset: 10, LastContainedEpoch: 1, Records: []record.Record{topicRec("s", 5), partRec(5, 0, 0)}}.Reader()))
				f.next = 11
				must(t, l.HandleCommit(f.batch(record.NewNoOpRecord())))
				if img, _ := l.Watch(); img.Provenance().LastContainedOffset != 11 || !slices.Equal(topicNames(img), []string{"s"}) {
					t.Errorf("after reset: %v %v", img.Provenance(), topicNames(img))
				}
			}
		})
	}
}

// TestControllerFailoverIsInvisible (a QuorumController failover): a new raft
// leader epoch with a LeaderChange control record and no data change leaves
// every topic, broker and partition as it was; the publishers see an update
// with no change and the readers the same answers; the log position and the
// leader advance, and the loader goes on from there.
func TestControllerFailoverIsInvisible(t *testing.T) {
	var fs faults
	l := NewLoader(Config{FaultHandler: fs.handler})
	cache := NewCache("")
	rec := newRecorder("r")
	must(t, l.Install(cache, rec))
	l.SetHighWatermark(0)
	f := &feed{epoch: 5}
	lc := record.NewLeaderChangeMessage()
	lc.LeaderID = 3000
	must(t, l.HandleCommit(f.control(lc)))
	must(t, l.HandleCommit(f.batch(topicRec("a", 1), partRec(1, 0, 1), topicRec("b", 2), partRec(2, 0, 2))))
	before := cache.Load()
	nBefore := len(rec.all())

	// Failover: epoch 6, leader 3001, a LeaderChange and a NoOp.
	f.epoch = 6
	lc2 := record.NewLeaderChangeMessage()
	lc2.LeaderID = 3001
	must(t, l.HandleCommit(f.control(lc2)))
	must(t, l.HandleCommit(f.batch(record.NewNoOpRecord())))
	after := cache.Load()
	if after.Provenance().LastContainedEpoch != 6 || after.Provenance().LastContainedOffset != f.next-1 {
		t.Errorf("provenance %+v, want epoch 6 at %d", after.Provenance(), f.next-1)
	}
	if after.Topics() != before.Topics() || after.Cluster() != before.Cluster() || after.Configs() != before.Configs() || after.Features() != before.Features() {
		t.Errorf("a failover without data changed the image's components")
	}
	for _, name := range []string{"a", "b"} {
		l1, e1 := leaderOf(t, before, name, 0)
		l2, e2 := leaderOf(t, after, name, 0)
		if l1 != l2 || e1 != e2 {
			t.Errorf("%s: leader %d/%d -> %d/%d", name, l1, e1, l2, e2)
		}
	}
	for _, u := range rec.all()[nBefore:] {
		tc := u.topics
		if len(tc.Created)+len(tc.Changed)+len(tc.Deleted) != 0 {
			t.Errorf("failover update at %d reports topic changes %+v", u.manifest.Provenance.LastContainedOffset, tc)
		}
	}
	if got := rec.leaders; len(got) == 0 || got[len(got)-1] != (LeaderAndEpoch{3001, 6}) {
		t.Errorf("controller changes %v, want last {3001 6}", got)
	}
	if st := l.Stats(); st.Leader != (LeaderAndEpoch{3001, 6}) {
		t.Errorf("Stats.Leader %v", st.Leader)
	}
	// The new leader's first change applies normally.
	_, e0 := leaderOf(t, after, "a", 0)
	must(t, l.HandleCommit(f.batch(leaderChange(1, 0, 2))))
	if ld, ep := leaderOf(t, cache.Load(), "a", 0); ld != 2 || ep != e0+1 {
		t.Errorf("after failover: leader %d epoch %d, want 2/%d", ld, ep, e0+1)
	}
	if len(fs.list) != 0 {
		t.Errorf("faults: %v", fs.kinds())
	}
}

// TestOffsetsMustContinue: a batch that repeats or skips offsets is refused
// and changes nothing.
func TestOffsetsMustContinue(t *testing.T) {
	l := NewLoader(Config{})
	f := &feed{}
	must(t, l.HandleCommit(f.batch(topicRec("a", 1), partRec(1, 0, 0))))
	for _, base := range []int64{0, 1, 3} {
		err := l.HandleCommit(record.Batch{BaseOffset: base, Records: versioned(record.NewNoOpRecord())})
		if !errors.Is(err, ErrOffset) {
			t.Errorf("batch at %d: %v, want ErrOffset", base, err)
		}
	}
	must(t, l.HandleCommit(f.batch(record.NewNoOpRecord())))
	if got := l.Image().Provenance().LastContainedOffset; got != 2 {
		t.Errorf("offset %d, want 2", got)
	}
}

// TestSetLeaderRule: only a higher epoch, or a leader becoming known in the
// same epoch, changes the leader (KafkaRaftClient's leader-change rule).
func TestSetLeaderRule(t *testing.T) {
	l := NewLoader(Config{})
	steps := []struct {
		in, want LeaderAndEpoch
	}{
		{LeaderAndEpoch{-1, 3}, LeaderAndEpoch{-1, 3}},
		{LeaderAndEpoch{7, 3}, LeaderAndEpoch{7, 3}},
		{LeaderAndEpoch{8, 3}, LeaderAndEpoch{7, 3}},
		{LeaderAndEpoch{9, 2}, LeaderAndEpoch{7, 3}},
		{LeaderAndEpoch{9, 4}, LeaderAndEpoch{9, 4}},
	}
	for _, s := range steps {
		l.SetLeader(s.in)
		if got := l.Stats().Leader; got != s.want {
			t.Errorf("after %v: leader %v, want %v", s.in, got, s.want)
		}
	}
}
