package clientview

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// Defaults of RebootstrapConfig (Kafka's client defaults).
const (
	// DefaultReconnectBackoff and DefaultReconnectBackoffMax are
	// reconnect.backoff.ms (50 ms) and reconnect.backoff.max.ms (1 s).
	DefaultReconnectBackoff    = 50 * time.Millisecond
	DefaultReconnectBackoffMax = time.Second
)

// SendFunc sends one Metadata request to one address ("host:port") and
// returns the answer and the id of the broker that answered (-1 if
// unknown). It is the embedder's networking: dialling, ApiVersions, the
// request itself.
type SendFunc func(ctx context.Context, addr string, req *kmsg.MetadataRequest) (resp *kmsg.MetadataResponse, node int32, err error)

// RebootstrapConfig configures a Rebootstrap for its life. Bootstrap and
// Send are required; every other zero field means Kafka's client defaults.
type RebootstrapConfig struct {
	// Bootstrap is bootstrap.servers, "host:port" each.
	Bootstrap []string
	// Send sends the request to one address. Required.
	Send SendFunc
	// View returns the current view, whose brokers are the known
	// addresses (Refresher.View). Nil: only the bootstrap servers are
	// known.
	View func() *View
	// ReconnectBackoff and ReconnectBackoffMax bound the wait after an
	// attempt in which every address failed: Kafka's ExponentialBackoff
	// (KIP-580, jitter ±20 %) from ReconnectBackoff up to
	// ReconnectBackoffMax.
	ReconnectBackoff, ReconnectBackoffMax time.Duration
	// Now is the clock, Sleep waits (returning ctx's error if it ends
	// first) and Rand draws jitter in [0, 1); nil means time.Now, a timer
	// and math/rand/v2.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	Rand  func() float64
}

// Rebootstrap is KIP-899's metadata recovery as a policy: it chooses where
// each Metadata request goes, and its Fetch is a FetchFunc for a Refresher.
//
// One attempt dials the known brokers (the view's, each distinct address
// once, starting one further along each attempt) and, when every one of
// them fails, goes back to the bootstrap servers within the same attempt
// (NetworkClient.DefaultMetadataUpdater.maybeUpdate: rebootstrap when no
// known node is available). An address is never dialled twice in one
// attempt. When every address fails, Fetch returns a *DialError and the
// next attempt waits the reconnect backoff (capped, exponential, jittered)
// and starts at the bootstrap servers, then the known brokers: a cluster
// whose every node moved is found again through its bootstrap servers. An
// answer resets the backoff. The next attempt starts at the bootstrap
// servers as well after an answer with REBOOTSTRAP_REQUIRED (KIP-1102,
// initiateRebootstrap). Kafka's metadata.recovery.rebootstrap.trigger.ms
// (KIP-1102's needsRebootstrap, for a client whose requests hang) has no
// counterpart: Send's errors, timeouts included, end each attempt, and an
// attempt without an answer already ends at the bootstrap servers.
//
// It is safe for concurrent use; attempts run one at a time.
type Rebootstrap struct {
	cfg    RebootstrapConfig
	policy Policy // the reconnect backoff as a KIP-580 backoff

	mu        sync.Mutex
	attempt   sync.Mutex // held for a whole attempt
	failures  int        // consecutive attempts with no answer
	notBefore time.Time
	bootstrap bool // the next attempt starts at the bootstrap servers
	rotate    int
	stats     RebootstrapStats
}

// RebootstrapStats are a Rebootstrap's counters.
type RebootstrapStats struct {
	// Attempts started, Failures among them (every address failed),
	// Rebootstraps (attempts that reached the bootstrap servers after the
	// known brokers, or started there), Dials (Send calls).
	Attempts, Failures, Rebootstraps, Dials int64
	// Backoff is the wait before the next attempt, 0 after an answer.
	Backoff time.Duration
}

// DialError is an attempt in which every address failed. Addrs are the
// addresses dialled, in order, each once; Errs their errors.
type DialError struct {
	Addrs []string
	Errs  []error
}

// Error names the addresses and the first error.
func (e *DialError) Error() string {
	if len(e.Addrs) == 0 {
		return "clientview: no broker address to send metadata to"
	}
	return "clientview: metadata from none of " + strings.Join(e.Addrs, ", ") + ": " + e.Errs[0].Error()
}

// Unwrap returns the errors of every address.
func (e *DialError) Unwrap() []error { return e.Errs }

// ErrNoSend is returned by a Rebootstrap without a Send function.
var ErrNoSend = errors.New("clientview: RebootstrapConfig.Send is nil")

// NewRebootstrap returns the policy; the first attempt starts at the
// bootstrap servers when the view has no broker yet.
func NewRebootstrap(cfg RebootstrapConfig) *Rebootstrap {
	if cfg.ReconnectBackoff <= 0 {
		cfg.ReconnectBackoff = DefaultReconnectBackoff
	}
	if cfg.ReconnectBackoffMax <= 0 {
		cfg.ReconnectBackoffMax = DefaultReconnectBackoffMax
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleepCtx
	}
	if cfg.Rand == nil {
		cfg.Rand = randFloat
	}
	p := Policy{RetryBackoff: cfg.ReconnectBackoff, RetryBackoffMax: cfg.ReconnectBackoffMax}.WithDefaults()
	return &Rebootstrap{cfg: cfg, policy: p}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stats returns the counters.
func (r *Rebootstrap) Stats() RebootstrapStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// Fetch runs one attempt (after the backoff a failed one left), as a
// FetchFunc: the first answer wins, whatever its error code (a Refresher
// turns a top-level error into an *AnswerError).
func (r *Rebootstrap) Fetch(ctx context.Context, req *kmsg.MetadataRequest) (*kmsg.MetadataResponse, int32, error) {
	if r.cfg.Send == nil {
		return nil, -1, ErrNoSend
	}
	r.attempt.Lock()
	defer r.attempt.Unlock()
	if err := r.waitBackoff(ctx); err != nil {
		return nil, -1, err
	}
	phases, bootFirst := r.plan()
	tried := map[string]bool{}
	de := &DialError{}
	for i, phase := range phases {
		if i == 1 && !bootFirst && len(phases[1]) > 0 {
			r.count(func(s *RebootstrapStats) { s.Rebootstraps++ })
		}
		for _, addr := range phase {
			if tried[addr] {
				continue
			}
			tried[addr] = true
			r.count(func(s *RebootstrapStats) { s.Dials++ })
			resp, node, err := r.cfg.Send(ctx, addr, req)
			if err == nil && resp == nil {
				err = errors.New("no answer and no error")
			}
			if err == nil {
				r.answered(resp)
				return resp, node, nil
			}
			if ctx.Err() != nil {
				return nil, -1, ctx.Err()
			}
			de.Addrs, de.Errs = append(de.Addrs, addr), append(de.Errs, err)
		}
	}
	r.failed()
	return nil, -1, de
}

func (r *Rebootstrap) count(f func(*RebootstrapStats)) {
	r.mu.Lock()
	f(&r.stats)
	r.mu.Unlock()
}

func (r *Rebootstrap) waitBackoff(ctx context.Context) error {
	r.mu.Lock()
	wait := r.notBefore.Sub(r.cfg.Now())
	r.mu.Unlock()
	if wait > 0 {
		return r.cfg.Sleep(ctx, wait)
	}
	return ctx.Err()
}

// plan returns the attempt's phases: the known brokers then the bootstrap
// servers, or the other way round (bootFirst) when the attempt rebootstraps
// first.
func (r *Rebootstrap) plan() (phases [][]string, bootFirst bool) {
	var known []string
	if r.cfg.View != nil {
		if v := r.cfg.View(); v != nil {
			known = brokerAddrs(v)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stats.Attempts++
	if n := len(known); n > 0 {
		k := r.rotate % n
		known = append(known[k:], known[:k]...)
		r.rotate++
	}
	boot := distinct(r.cfg.Bootstrap)
	if r.bootstrap || len(known) == 0 {
		r.stats.Rebootstraps++
		return [][]string{boot, known}, true
	}
	return [][]string{known, boot}, false
}

func (r *Rebootstrap) answered(resp *kmsg.MetadataResponse) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures, r.notBefore, r.stats.Backoff = 0, time.Time{}, 0
	r.bootstrap = kafkaerr.FromInt16(resp.ErrorCode) == kafkaerr.RebootstrapRequired
}

func (r *Rebootstrap) failed() {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.policy.Backoff(r.failures, r.cfg.Rand())
	r.failures++
	r.notBefore = r.cfg.Now().Add(b)
	r.bootstrap = true
	r.stats.Failures++
	r.stats.Backoff = b
}

// brokerAddrs returns the view's broker addresses, each once, in the
// view's order.
func brokerAddrs(v *View) []string {
	var out []string
	for _, b := range v.brokers {
		out = append(out, net.JoinHostPort(b.host, strconv.Itoa(int(b.port))))
	}
	return distinct(out)
}

func distinct(addrs []string) []string {
	out := make([]string, 0, len(addrs))
	seen := make(map[string]bool, len(addrs))
	for _, a := range addrs {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}
