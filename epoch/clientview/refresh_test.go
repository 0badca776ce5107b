package clientview

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func half() float64 { return 0.5 } // jitter factor 1.0

// TestBackoffKIP580: ExponentialBackoff with Kafka's client defaults
// (retry.backoff.ms 100, retry.backoff.max.ms 1000), computed
// in milliseconds with doubles and truncation as Java does.
func TestBackoffKIP580(t *testing.T) {
	p := Policy{}.WithDefaults()
	for n, want := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		if got := p.Backoff(n, 0.5); got != want*time.Millisecond {
			t.Fatalf("Backoff(%d) = %v, want %v", n, got, want*time.Millisecond)
		}
	}
	if got := p.Backoff(0, 0); got != 80*time.Millisecond {
		t.Fatalf("least jitter: %v", got)
	}
	if got := p.Backoff(10, 0.999); got != time.Second {
		t.Fatalf("capped: %v", got)
	}
	flat := Policy{RetryBackoff: time.Second, RetryBackoffMax: 500 * time.Millisecond}.WithDefaults()
	if got := flat.Backoff(3, 0.9); got != 500*time.Millisecond {
		t.Fatalf("max ≤ initial: %v, want the constant initial", got)
	}
}

// scheduleRule is one rule of Kafka's Metadata.timeToNextUpdate and friends:
// a schedule driven by hand against an empty view v.
type scheduleRule struct {
	name string
	run  func(t *testing.T, v *View)
}

// scheduleRules is TestScheduleRules' table, one rule per case.
var scheduleRules = []scheduleRule{
	{"first refresh is due at once", func(t *testing.T, v *View) {
		s := NewSchedule(ScheduleConfig{Policy: Policy{}, Rand: half})
		if w := s.Wait(t0, v); w != 0 {
			t.Fatalf("wait %v", w)
		}
	}},
	{"max age with jitter", func(t *testing.T, v *View) {
		s := NewSchedule(ScheduleConfig{Policy: Policy{MaxAge: time.Minute, MaxAgeJitter: 0.2}, Rand: half})
		s.Start(t0)
		s.Succeeded(t0, Report{Progress: true})
		if w := s.Wait(t0, v); w != 54*time.Second { // 60 s · (1 − 0.2·0.5)
			t.Fatalf("wait %v", w)
		}
	}},
	{"requested update waits for the equivalence backoff (KIP-580)", func(t *testing.T, v *View) {
		s := NewSchedule(ScheduleConfig{Policy: Policy{}, Rand: half})
		s.Start(t0)
		s.Succeeded(t0, Report{}) // equivalent: backoff(0) = 100 ms
		s.RequestUpdate()
		if w := s.Wait(t0.Add(10*time.Millisecond), v); w != 90*time.Millisecond {
			t.Fatalf("wait %v", w)
		}
		s.Start(t0.Add(100 * time.Millisecond))
		s.Succeeded(t0.Add(100*time.Millisecond), Report{}) // backoff(1) = 200 ms
		s.RequestUpdate()
		if w := s.Wait(t0.Add(100*time.Millisecond), v); w != 200*time.Millisecond {
			t.Fatalf("second equivalent answer: wait %v", w)
		}
	}},
	{"progress resets the equivalence backoff; MinInterval remains", func(t *testing.T, v *View) {
		s := NewSchedule(ScheduleConfig{Policy: Policy{}, Rand: half})
		s.Start(t0)
		s.Succeeded(t0, Report{})
		s.Start(t0.Add(time.Second))
		s.Succeeded(t0.Add(time.Second), Report{Progress: true})
		s.RequestUpdate()
		if w := s.Wait(t0.Add(time.Second+30*time.Millisecond), v); w != 70*time.Millisecond {
			t.Fatalf("wait %v, want the 100 ms MinInterval's rest", w)
		}
	}},
	{"failures back off by attempts", func(t *testing.T, v *View) {
		s := NewSchedule(ScheduleConfig{Policy: Policy{}, Rand: half})
		for i, want := range []time.Duration{100, 200, 400} {
			now := t0.Add(time.Duration(i) * time.Hour)
			s.Start(now)
			s.Failed(now)
			if w := s.Wait(now, v); w != want*time.Millisecond {
				t.Fatalf("after %d failures wait %v", i+1, w)
			}
		}
	}},
	{"sarama#3514/last refreshed is stamped only on success", func(t *testing.T, v *View) {
		s := NewSchedule(ScheduleConfig{Policy: Policy{MaxAge: time.Minute, MaxAgeJitter: -1}, Rand: half})
		s.Start(t0)
		s.Succeeded(t0, Report{Progress: true})
		later := t0.Add(59 * time.Second)
		s.Start(later)
		s.Failed(later)
		// Past max age 60 s after the success (not the failure), and past the
		// failure's 100 ms backoff: due.
		if w := s.Wait(later.Add(time.Second), v); w != 0 {
			t.Fatalf("wait %v", w)
		}
	}},
	{"sarama#3514/an all-leaderless answer is asked again after the backoff, not at max age", func(t *testing.T, v *View) {
		s := NewSchedule(ScheduleConfig{Policy: Policy{}, Rand: half})
		leaderless := answer(12, topicAnswer("t", 1, part(0, -1, -1), part(1, -1, -1)))
		s.Start(t0)
		v1, rep := NewView(ViewConfig{}).Merge(leaderless, MergeOptions{})
		s.Succeeded(t0, rep)
		if w := s.Wait(t0, v1); w != 100*time.Millisecond { // MinInterval
			t.Fatalf("after the first leaderless answer: wait %v", w)
		}
		now := t0.Add(100 * time.Millisecond)
		s.Start(now)
		v2, rep := v1.Merge(leaderless, MergeOptions{})
		s.Succeeded(now, rep) // nothing new: backoff(0) = 100 ms
		if w := s.Wait(now, v2); w != 100*time.Millisecond {
			t.Fatalf("after an equivalent leaderless answer: wait %v, want the backoff", w)
		}
	}},
	{"sarama#3224/errors on many partitions ask for one refresh", func(t *testing.T, v *View) {
		s := NewSchedule(ScheduleConfig{Policy: Policy{}, Rand: half})
		s.Start(t0)
		s.Succeeded(t0, Report{Progress: true})
		now := t0.Add(time.Second)
		for range 1000 { // 1000 partitions failing at once
			s.RequestUpdate()
		}
		if w := s.Wait(now, v); w != 0 {
			t.Fatalf("wait %v", w)
		}
		s.Start(now)
		s.Succeeded(now, Report{})
		for range 1000 {
			s.RequestUpdate()
		}
		if w := s.Wait(now, v); w != 100*time.Millisecond {
			t.Fatalf("second round: wait %v, want one backed-off refresh", w)
		}
		if s.Started() != 2 {
			t.Fatalf("%d refreshes started", s.Started())
		}
	}},
	{"a failure and an equivalent answer grow one backoff (unlike Java)", func(t *testing.T, v *View) {
		s := NewSchedule(ScheduleConfig{Policy: Policy{}, Rand: half})
		s.Start(t0)
		s.Succeeded(t0, Report{}) // 100 ms
		now := t0.Add(100 * time.Millisecond)
		s.Start(now)
		s.Failed(now) // 200 ms: Java would reset the equivalent count and wait 100 ms
		s.RequestUpdate()
		if w := s.Wait(now, v); w != 200*time.Millisecond {
			t.Fatalf("wait %v", w)
		}
		now = now.Add(200 * time.Millisecond)
		s.Start(now)
		s.Succeeded(now, Report{}) // 400 ms
		s.RequestUpdate()
		if w := s.Wait(now, v); w != 400*time.Millisecond {
			t.Fatalf("wait %v", w)
		}
	}},
	{"an update requested during a refresh stays requested", func(t *testing.T, v *View) {
		s := NewSchedule(ScheduleConfig{Policy: Policy{MinInterval: -1}, Rand: half})
		s.Start(t0)
		s.RequestUpdate() // the answer in flight predates the error
		s.Succeeded(t0.Add(time.Millisecond), Report{Progress: true})
		if w := s.Wait(t0.Add(time.Millisecond), v); w != 0 {
			t.Fatalf("wait %v, want due", w)
		}
	}},
	{"a view needing refresh makes it due", func(t *testing.T, v *View) {
		s := NewSchedule(ScheduleConfig{Policy: Policy{}, Rand: half})
		s.Start(t0)
		s.Succeeded(t0, Report{Progress: true})
		stale, _ := v.Merge(answer(12, topicAnswer("t", 1, part(0, -1, -1))), MergeOptions{})
		if w := s.Wait(t0.Add(time.Second), stale); w != 0 {
			t.Fatalf("wait %v", w)
		}
	}},
	{"new topics skip the backoff (requestUpdateForNewTopics)", func(t *testing.T, v *View) {
		s := NewSchedule(ScheduleConfig{Policy: Policy{}, Rand: half})
		s.Start(t0)
		s.Succeeded(t0, Report{})
		s.RequestNewTopics()
		if w := s.Wait(t0, v); w != 100*time.Millisecond {
			t.Fatalf("wait %v, want only MinInterval", w)
		}
	}},
}

// TestScheduleRules: Metadata.timeToNextUpdate and friends, one rule per
// case of scheduleRules.
func TestScheduleRules(t *testing.T) {
	v := NewView(ViewConfig{})
	for _, r := range scheduleRules {
		t.Run(r.name, func(t *testing.T) { r.run(t, v) })
	}
}

// TestMaxRefreshesPromise: a schedule driven by an error on every tick and
// answers that never make progress starts no more refreshes than
// MaxRefreshes promises.
func TestMaxRefreshesPromise(t *testing.T) {
	p := Policy{}.WithDefaults()
	for _, window := range []time.Duration{time.Second, 9 * time.Second, time.Minute} {
		s := NewSchedule(ScheduleConfig{Policy: p, Rand: func() float64 { return 0 }}) // least jitter: the worst case
		v := NewView(ViewConfig{})
		now := t0
		s.Start(now)
		s.Succeeded(now, Report{Progress: true})
		start := now
		n := 0
		for now.Sub(start) < window {
			s.RequestUpdate()
			if s.Wait(now, v) == 0 {
				s.Start(now)
				s.Succeeded(now, Report{})
				n++
			}
			now = now.Add(time.Millisecond)
		}
		if max := p.MaxRefreshes(window, 0); n > max {
			t.Fatalf("window %v: %d refreshes, promise %d", window, n, max)
		}
	}
}

func TestRefresherCoalescesConcurrentCallers(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	fetch := func(ctx context.Context, req *kmsg.MetadataRequest) (*kmsg.MetadataResponse, int32, error) {
		calls.Add(1)
		<-release
		return answer(12, topicAnswer("t", 1, part(0, 1, 1))), 1, nil
	}
	r := NewRefresher(RefresherConfig{Fetch: fetch})
	r.Need("t")
	var wg sync.WaitGroup
	views := make([]*View, 50)
	for i := range views {
		wg.Add(1)
		go func() {
			defer wg.Done()
			views[i], _ = r.MaybeRefresh(context.Background())
		}()
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d Metadata requests for 50 concurrent callers", n)
	}
	for _, v := range views {
		if _, _, ok := v.Leader("t", 0); !ok {
			t.Fatal("a caller got a view without the answer")
		}
	}
	// A caller arriving right after the flight does not start a second one.
	if _, err := r.MaybeRefresh(context.Background()); err != nil || calls.Load() != 1 {
		t.Fatalf("second refresh: calls %d err %v", calls.Load(), err)
	}
}

func TestRefresherFailureKeepsView(t *testing.T) {
	now := t0
	fail := false
	fetch := func(ctx context.Context, req *kmsg.MetadataRequest) (*kmsg.MetadataResponse, int32, error) {
		if fail {
			return nil, -1, errors.New("broker down")
		}
		if len(req.Topics) != 1 || *req.Topics[0].Topic != "t" {
			t.Fatalf("request topics %v", req.Topics)
		}
		return answer(12, topicAnswer("t", 1, part(0, 1, 1))), 1, nil
	}
	r := NewRefresher(RefresherConfig{Fetch: fetch, Now: func() time.Time { return now }, Rand: half})
	r.Need("t")
	v, err := r.MaybeRefresh(context.Background())
	if err != nil || v.NumTopics() != 1 {
		t.Fatal(err)
	}
	fail = true
	now = now.Add(10 * time.Minute)
	v2, err := r.MaybeRefresh(context.Background())
	if err == nil || v2 != v {
		t.Fatal("failed refresh replaced the view or returned no error")
	}
	if w := r.Wait(); w != 100*time.Millisecond {
		t.Fatalf("after a failure wait %v", w)
	}
}
