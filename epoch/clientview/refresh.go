package clientview

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	"golang.org/x/sync/singleflight"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// Policy is when a client refreshes its metadata (Kafka's Metadata
// timeToNextUpdate with the producer and consumer defaults), plus
// the jitter and the floor the refresh storms of the field call for. Zero
// fields take the defaults.
type Policy struct {
	// MaxAge is metadata.max.age.ms: a view older than this is refreshed
	// even when nothing asks for it. Default 5 minutes.
	MaxAge time.Duration
	// MaxAgeJitter spreads the periodic refreshes of many clients started
	// together: each deadline is MaxAge·(1 − MaxAgeJitter·U[0,1)). Default
	// 0.1; negative means none.
	MaxAgeJitter float64
	// MinInterval is a floor between the starts of two refreshes, whatever
	// asks for them (Kafka has none: after an answer that made progress a
	// Java client may refresh again at once). Default RetryBackoff; negative
	// means none.
	MinInterval time.Duration
	// RetryBackoff and RetryBackoffMax are retry.backoff.ms (100 ms) and
	// retry.backoff.max.ms (1 s): the KIP-580 exponential backoff after failed
	// refreshes and after answers that told nothing new.
	RetryBackoff    time.Duration
	RetryBackoffMax time.Duration
}

// Defaults of Policy (Kafka's client defaults).
const (
	DefaultMaxAge          = 5 * time.Minute
	DefaultMaxAgeJitter    = 0.1
	DefaultRetryBackoff    = 100 * time.Millisecond
	DefaultRetryBackoffMax = time.Second
)

// WithDefaults returns p with zero fields set to their defaults.
func (p Policy) WithDefaults() Policy {
	if p.MaxAge <= 0 {
		p.MaxAge = DefaultMaxAge
	}
	if p.MaxAgeJitter == 0 {
		p.MaxAgeJitter = DefaultMaxAgeJitter
	} else if p.MaxAgeJitter < 0 {
		p.MaxAgeJitter = 0
	}
	if p.MaxAgeJitter > 1 {
		p.MaxAgeJitter = 1
	}
	if p.RetryBackoff <= 0 {
		p.RetryBackoff = DefaultRetryBackoff
	}
	if p.RetryBackoffMax <= 0 {
		p.RetryBackoffMax = DefaultRetryBackoffMax
	}
	if p.MinInterval == 0 {
		p.MinInterval = p.RetryBackoff
	} else if p.MinInterval < 0 {
		p.MinInterval = 0
	}
	return p
}

// Backoff is Kafka's ExponentialBackoff (KIP-580) for the n-th retry
// (n ≥ 0): min(max, initial·2^min(n, expMax)·jitter) with initial =
// min(RetryBackoff, RetryBackoffMax), expMax = log2(max/initial) and jitter
// uniform in [0.8, 1.2) drawn from u ∈ [0, 1). When max ≤ initial the
// backoff is initial, without jitter. p must have its defaults set.
func (p Policy) Backoff(n int, u float64) time.Duration {
	// Computed in milliseconds with Java's doubles and truncation
	// (ExponentialBackoff.backoff).
	initial := float64(min(p.RetryBackoff, p.RetryBackoffMax).Milliseconds())
	maxB := float64(p.RetryBackoffMax.Milliseconds())
	if maxB <= initial {
		return time.Duration(initial) * time.Millisecond
	}
	expMax := math.Log(maxB/math.Max(initial, 1)) / math.Log(2)
	exp := math.Min(float64(max(n, 0)), expMax)
	term := initial * math.Pow(2, exp)
	b := math.Min(maxB, float64(int64(term*(0.8+0.4*u))))
	return time.Duration(b) * time.Millisecond
}

// MaxRefreshes is the policy's promise: the most refreshes a client
// following a Schedule starts within any window of length d in which at most
// progress answers tell it something new, whatever errors it sees (every
// answer without progress backs the next refresh off, a failure too, and
// MinInterval separates any two). It assumes the least jitter (0.8) and
// treats each progress answer as restarting the backoff from zero. p must
// have its defaults set.
func (p Policy) MaxRefreshes(d time.Duration, progress int) int {
	chain := 1 // the first refresh of a chain starts at once
	var t time.Duration
	for n := 0; ; n++ {
		gap := max(p.Backoff(n, 0), p.MinInterval)
		if gap <= 0 {
			return math.MaxInt
		}
		t += gap
		if t > d {
			break
		}
		chain++
	}
	return chain * (progress + 1)
}

// ConvergenceBound is the policy's promise on staleness: once every broker
// answers with the true leaders, a client following a Schedule holds them
// (leader and epoch of every partition) at most MaxAge + RetryBackoffMax +
// MinInterval later, with or without traffic. Its view expires MaxAge after
// the last success at the latest; past expiry the equivalence backoff no
// longer applies (Metadata.timeToAllowUpdate), a failure backoff is at most
// RetryBackoffMax and MinInterval separates two starts; and the true answer
// carries epochs at least as high as any the view has seen, so it is
// accepted. p must have its defaults set.
func (p Policy) ConvergenceBound() time.Duration {
	return p.MaxAge + p.RetryBackoffMax + p.MinInterval
}

// Schedule is the refresh policy's state for one client: pure, with no
// clock, lock or goroutine of its own. The caller passes the time, starts
// a refresh when Wait says so, and reports how it ended. Refresher wraps a
// Schedule for concurrent callers.
type Schedule struct {
	p    Policy
	rand func() float64

	lastStart   time.Time
	lastSuccess time.Time
	expiry      time.Time
	notBefore   time.Time // end of the backoff after the last refresh
	streak      int       // refreshes without progress since the last progress (failures and equivalent answers)
	lastFailed  bool      // the last refresh got no answer
	requested   uint64
	served      uint64
	startedAt   uint64
	newTopics   bool
	inFlight    bool
	started     int
	answered    int // the number (Started) of the last refresh that succeeded
}

// ScheduleConfig configures a Schedule for its life. The zero value is
// Kafka's client defaults with jitter from math/rand/v2.
type ScheduleConfig struct {
	// Policy is when to refresh; zero fields take Kafka's defaults.
	Policy Policy
	// Rand draws the jitter, uniform in [0, 1); nil uses math/rand/v2.
	Rand func() float64
}

// NewSchedule returns a schedule following cfg.Policy (defaults applied).
func NewSchedule(cfg ScheduleConfig) *Schedule {
	rand := cfg.Rand
	if rand == nil {
		rand = randFloat
	}
	return &Schedule{p: cfg.Policy.WithDefaults(), rand: rand}
}

func randFloat() float64 { return rand.Float64() }

// Policy returns the schedule's policy with its defaults.
func (s *Schedule) Policy() Policy { return s.p }

// RequestUpdate asks for a refresh as soon as the backoff allows (Java's
// requestUpdate(false), called on invalid-metadata errors). Repeated
// requests before the next refresh starts are one.
func (s *Schedule) RequestUpdate() { s.requested++ }

// RequestNewTopics asks for a refresh now, without backoff, because the
// client needs a topic the view does not hold (requestUpdateForNewTopics).
// Call it once per newly needed topic, not per send.
func (s *Schedule) RequestNewTopics() {
	s.newTopics = true
	s.requested++
}

// InFlight reports whether a refresh has started and not ended.
func (s *Schedule) InFlight() bool { return s.inFlight }

// Started counts the refreshes started.
func (s *Schedule) Started() int { return s.started }

// Wait returns how long to wait before the next refresh, 0 meaning now:
// max(time to expiry, time the backoff and MinInterval still forbid), where
// the expiry is 0 when something asks for a refresh (a requested update, a
// view with partitions needing refresh, a new topic) and otherwise the
// jittered max age since the last success (Metadata.timeToNextUpdate). v may
// be nil. A view never refreshed successfully is due at once. While a
// refresh is in flight the answer is meaningless; check InFlight.
func (s *Schedule) Wait(now time.Time, v *View) time.Duration {
	if s.newTopics || s.lastSuccess.IsZero() && s.streak == 0 {
		return s.allow(now, false, true)
	}
	need := s.requested > s.served || (v != nil && v.NeedsRefresh())
	expired := !now.Before(s.expiry)
	var expire time.Duration
	if !need && !expired {
		expire = s.expiry.Sub(now)
	}
	return max(expire, s.allow(now, expired, false))
}

func (s *Schedule) allow(now time.Time, expired, newTopics bool) time.Duration {
	var d time.Duration
	// Java resets equivalentResponseCount once the metadata is past its max
	// age: the backoff after an answer then no longer applies; the one after
	// a failure does.
	if !newTopics && s.streak > 0 && (s.lastFailed || !expired) {
		d = max(d, s.notBefore.Sub(now))
	}
	if !s.lastStart.IsZero() {
		d = max(d, s.lastStart.Add(s.p.MinInterval).Sub(now))
	}
	return max(d, 0)
}

// Start records that a refresh starts now.
func (s *Schedule) Start(now time.Time) {
	s.inFlight = true
	s.lastStart = now
	s.startedAt = s.requested
	s.newTopics = false
	s.started++
}

// Succeeded records a refresh that returned an answer, merged with report
// rep: "last refreshed" is stamped here, and only here (sarama#3514: a
// stamp before the answer let concurrent refreshes skip each other's
// retries). An answer without progress counts as equivalent and backs the
// next refresh off (equivalentResponseCount); one with progress resets the
// backoff. Updates requested while the refresh was in flight stay requested.
func (s *Schedule) Succeeded(now time.Time, rep Report) {
	s.inFlight = false
	s.lastSuccess = now
	s.answered = s.started
	s.lastFailed = false
	s.served = s.startedAt
	if rep.Progress {
		s.streak = 0
	} else {
		s.streak++
		s.notBefore = now.Add(s.p.Backoff(s.streak-1, s.rand()))
	}
	age := time.Duration(float64(s.p.MaxAge) * (1 - s.p.MaxAgeJitter*s.rand()))
	s.expiry = now.Add(age)
}

// Failed records a refresh that got no answer (Metadata.failedUpdate): it
// grows the backoff like an answer without progress.
//
// Unlike Java, failures and equivalent answers count in one streak that only
// progress resets. Java keeps two counts (attempts, equivalentResponseCount)
// and resets each when the other grows, so a client alternating between a
// broker that is down and brokers answering nothing new refreshes every
// retry.backoff.ms for as long as it lasts: the storm simulation
// (TestSimulationStorm) showed 40 refreshes in 13 s where one backoff chain
// allows 12. One streak keeps MaxRefreshes a true promise.
func (s *Schedule) Failed(now time.Time) {
	s.inFlight = false
	s.lastFailed = true
	s.streak++
	s.notBefore = now.Add(s.p.Backoff(s.streak-1, s.rand()))
}

// FetchFunc sends a Metadata request to a broker of the embedder's choice
// and returns the answer and the id of the broker that answered (-1 if
// unknown). It is the only networking a Refresher does, and it is the
// embedder's.
type FetchFunc func(ctx context.Context, req *kmsg.MetadataRequest) (resp *kmsg.MetadataResponse, node int32, err error)

// RefresherConfig configures a Refresher for its life. Fetch is required;
// every other zero field means Kafka's client defaults.
type RefresherConfig struct {
	// Policy is when to refresh (see Schedule).
	Policy Policy
	// View configures the views the refresher builds.
	View ViewConfig
	// Fetch sends the request. Required.
	Fetch FetchFunc
	// RequestVersion is the Metadata version to ask for (the embedder
	// negotiates it with ApiVersions). Default 12.
	RequestVersion int16
	// AllTopics asks for every topic (a proxy's view) instead of the needed
	// ones.
	AllTopics bool
	// Now is the clock; nil means time.Now. Rand draws jitter in [0,1); nil
	// means math/rand/v2. Sleep waits in LookupTopic (returning ctx's
	// error if it ends first); nil means a timer.
	Now   func() time.Time
	Rand  func() float64
	Sleep func(ctx context.Context, d time.Duration) error
}

// ErrNoFetch is returned by a Refresher without a Fetch function.
var ErrNoFetch = errors.New("clientview: RefresherConfig.Fetch is nil")

// Refresher keeps a View current for concurrent callers. It owns no
// goroutine and no timer: callers ask it when to refresh (Wait) and call
// MaybeRefresh or Refresh from their own goroutines; concurrent calls that
// need a refresh share one Metadata request and wait together
// (golang.org/x/sync/singleflight).
type Refresher struct {
	cfg   RefresherConfig
	now   func() time.Time
	view  atomic.Pointer[View]
	group singleflight.Group

	mu     sync.Mutex
	sched  *Schedule
	needed map[string]struct{}
}

// NewRefresher returns a refresher with an empty view.
func NewRefresher(cfg RefresherConfig) *Refresher {
	if cfg.RequestVersion == 0 {
		cfg.RequestVersion = 12
	}
	r := &Refresher{cfg: cfg, now: cfg.Now, sched: NewSchedule(ScheduleConfig{Policy: cfg.Policy, Rand: cfg.Rand}), needed: map[string]struct{}{}}
	if r.now == nil {
		r.now = time.Now
	}
	r.view.Store(NewView(cfg.View))
	return r
}

// View returns the current view.
func (r *Refresher) View() *View { return r.view.Load() }

// Need declares topics the client uses. A topic not needed before and not in
// the view makes the next refresh due at once.
func (r *Refresher) Need(topics ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := r.view.Load()
	for _, t := range topics {
		if _, ok := r.needed[t]; ok {
			continue
		}
		r.needed[t] = struct{}{}
		if _, ok := v.Topic(t); !ok {
			r.sched.RequestNewTopics()
		}
	}
}

// RequestUpdate asks for a refresh as soon as the backoff allows (on an
// error that says the view is out of date, e.g. a broker it cannot reach).
func (r *Refresher) RequestUpdate() {
	r.mu.Lock()
	r.sched.RequestUpdate()
	r.mu.Unlock()
}

// Wait returns how long until the policy wants a refresh (0: now).
func (r *Refresher) Wait() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sched.Wait(r.now(), r.view.Load())
}

// ObserveProduce applies a Produce answer's errors and KIP-951 hints.
func (r *Refresher) ObserveProduce(resp *kmsg.ProduceResponse) Report {
	return r.apply(func(v *View) (*View, Report) { return v.ApplyProduce(resp) })
}

// ObserveFetch applies a Fetch answer's errors and KIP-951 hints.
func (r *Refresher) ObserveFetch(resp *kmsg.FetchResponse) Report {
	return r.apply(func(v *View) (*View, Report) { return v.ApplyFetch(resp) })
}

func (r *Refresher) apply(f func(*View) (*View, Report)) Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	next, rep := f(r.view.Load())
	r.view.Store(next)
	return rep
}

// MaybeRefresh refreshes if the policy says a refresh is due now (joining
// one in flight), and returns the current view.
func (r *Refresher) MaybeRefresh(ctx context.Context) (*View, error) {
	return r.refresh(ctx, false)
}

// Refresh refreshes now, whatever the policy says, joining a refresh in
// flight if there is one.
func (r *Refresher) Refresh(ctx context.Context) (*View, error) {
	return r.refresh(ctx, true)
}

func (r *Refresher) refresh(ctx context.Context, force bool) (*View, error) {
	if r.cfg.Fetch == nil {
		return r.View(), ErrNoFetch
	}
	r.mu.Lock()
	due := r.sched.InFlight() || force || r.sched.Wait(r.now(), r.view.Load()) == 0
	r.mu.Unlock()
	if !due {
		return r.View(), nil
	}
	v, err, _ := r.group.Do("metadata", func() (any, error) { return r.flight(ctx, force) })
	return v.(*View), err
}

// flight runs one refresh. It re-checks the policy first, so that a caller
// arriving just after a flight ended does not start a second, redundant one.
func (r *Refresher) flight(ctx context.Context, force bool) (*View, error) {
	r.mu.Lock()
	now := r.now()
	if !force && r.sched.Wait(now, r.view.Load()) > 0 {
		r.mu.Unlock()
		return r.View(), nil
	}
	r.sched.Start(now)
	req := kmsg.NewPtrMetadataRequest()
	req.Version = r.cfg.RequestVersion
	req.AllowAutoTopicCreation = false
	if !r.cfg.AllTopics {
		names := make(map[string]struct{}, len(r.needed))
		for n := range r.needed {
			names[n] = struct{}{}
		}
		for t := range r.view.Load().tab.all() {
			names[t.name] = struct{}{}
		}
		req.Topics = make([]kmsg.MetadataRequestTopic, 0, len(names))
		for n := range names {
			rt := kmsg.NewMetadataRequestTopic()
			name := n
			rt.Topic = &name
			req.Topics = append(req.Topics, rt)
		}
	}
	r.mu.Unlock()

	resp, node, err := r.cfg.Fetch(ctx, req)

	r.mu.Lock()
	defer r.mu.Unlock()
	now = r.now()
	if err == nil && resp == nil {
		err = errors.New("clientview: Fetch returned no answer and no error")
	}
	if err != nil {
		r.sched.Failed(now)
		return r.view.Load(), err
	}
	next, rep := r.view.Load().Merge(resp, MergeOptions{AllTopics: r.cfg.AllTopics, Node: node, HasNode: node >= 0})
	if rep.ErrorCode != 0 {
		r.sched.Failed(now)
		return next, &AnswerError{Code: rep.ErrorCode}
	}
	r.view.Store(next)
	r.sched.Succeeded(now, rep)
	return next, nil
}

// AnswerError is a Metadata answer's top-level error (v13+,
// REBOOTSTRAP_REQUIRED 129 from KIP-1102).
type AnswerError struct{ Code kafkaerr.Code }

// Unwrap is the code, so that errors.Is(err, kafkaerr.RebootstrapRequired)
// and kafkaerr.CodeOf see it.
func (e *AnswerError) Unwrap() error { return e.Code }

// Error names the answer's error code.
func (e *AnswerError) Error() string {
	return "clientview: metadata answer error code " + strconv.Itoa(int(e.Code))
}
