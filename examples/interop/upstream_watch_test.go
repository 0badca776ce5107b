package interop

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// upstreamTopicWatch counts the Produce and Fetch requests the upstream
// cluster handles for each topic, named or by topic id (Produce v13 and
// Fetch v13 carry ids): what the proxy forwarded of a client's requests.
type upstreamTopicWatch struct {
	mu     sync.Mutex
	counts map[string]int
}

// watchUpstreamTopics starts counting u's Produce and Fetch requests for
// topics (which must exist); it observes and never answers. It looks the
// topic ids up with a client of its own, before any proxy dials u: the
// connections it made are then dropped from u's accepted ones, which
// fwdProxy.stop checks all came from the proxy.
func watchUpstreamTopics(t *testing.T, u *upstream, topics ...string) *upstreamTopicWatch {
	t.Helper()
	u.mu.Lock()
	before := len(u.accepted)
	u.mu.Unlock()
	cl, err := kgo.NewClient(kgo.SeedBrokers(u.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cl.Close()
		u.mu.Lock()
		u.accepted = u.accepted[:before]
		u.mu.Unlock()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	td, err := kadm.NewClient(cl).ListTopics(ctx, topics...)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[[16]byte]string{}
	for _, name := range topics {
		d, ok := td[name]
		if !ok || d.Err != nil {
			t.Fatalf("upstream topic %s: %v", name, d.Err)
		}
		byID[d.ID] = name
	}
	w := &upstreamTopicWatch{counts: map[string]int{}}
	count := func(name string, id [16]byte) {
		if n, ok := byID[id]; ok {
			name = n
		}
		w.mu.Lock()
		w.counts[name]++
		w.mu.Unlock()
	}
	u.Control(func(req kmsg.Request) (kmsg.Response, error, bool) {
		switch r := req.(type) {
		case *kmsg.ProduceRequest:
			for _, tp := range r.Topics {
				count(tp.Topic, tp.TopicID)
			}
		case *kmsg.FetchRequest:
			for _, tp := range r.Topics {
				count(tp.Topic, tp.TopicID)
			}
		}
		return nil, nil, false
	})
	return w
}

// requests is how many Produce and Fetch requests for topic upstream
// handled.
func (w *upstreamTopicWatch) requests(topic string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.counts[topic]
}

// checkDeniedUnseen fails t when upstream handled a Produce or Fetch for
// denied, or none for allowed (the watch saw nothing at all).
func (w *upstreamTopicWatch) checkDeniedUnseen(t *testing.T, who, allowed, denied string) {
	t.Helper()
	if n := w.requests(allowed); n == 0 {
		t.Errorf("%s: upstream handled no Produce or Fetch for %s", who, allowed)
	}
	if n := w.requests(denied); n != 0 {
		t.Errorf("%s: upstream handled %d Produce or Fetch requests for the denied topic %s", who, n, denied)
	}
}
