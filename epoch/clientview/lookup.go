package clientview

import (
	"context"
	"time"

	"github.com/kmeta-go/kmeta/record"
)

// LookupTopic returns the view's topic name, refreshing first when the
// view does not have it: a client is told that a topic does not exist only
// by a view refreshed after it asked (a stale view, e.g. one that could not
// reach the cluster for a while, would otherwise call an existing topic
// unknown). The refresh keeps to the policy: LookupTopic waits, within ctx,
// for what the backoff and MinInterval still forbid, and concurrent lookups
// share one request. A Refresher without AllTopics also starts asking for
// the topic (Need); with AllTopics it asks for an update (RequestUpdate), so
// that names sent by clients do not accumulate. ok is false, with a nil
// error, when the refreshed view does not have the topic either; err is the
// refresh's error or ctx's.
func (r *Refresher) LookupTopic(ctx context.Context, name string) (t *Topic, ok bool, err error) {
	return r.lookup(ctx, name, func(v *View) (*Topic, bool) { return v.Topic(name) })
}

// LookupTopicID is LookupTopic for a topic id (a Produce or Fetch v13+,
// KIP-516, names its topics by id). A Refresher without AllTopics asks
// only for the topics it needs by name, so its refresh finds an id only
// among them; with AllTopics (a proxy's view) it finds any topic the
// cluster has.
func (r *Refresher) LookupTopicID(ctx context.Context, id record.UUID) (t *Topic, ok bool, err error) {
	return r.lookup(ctx, "", func(v *View) (*Topic, bool) { return v.TopicByID(id) })
}

// lookup is LookupTopic and LookupTopicID: find in the view, else one
// refresh started after the call (need, if not empty, is declared needed
// by a Refresher without AllTopics), then find in the refreshed view.
func (r *Refresher) lookup(ctx context.Context, need string, find func(*View) (*Topic, bool)) (*Topic, bool, error) {
	if t, ok := find(r.View()); ok {
		return t, true, nil
	}
	r.mu.Lock()
	asked := r.sched.started // a refresh numbered above it started after the question
	if r.cfg.AllTopics || need == "" {
		r.sched.RequestUpdate()
	}
	r.mu.Unlock()
	if !r.cfg.AllTopics && need != "" {
		r.Need(need)
	}
	sleep := r.cfg.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	for {
		r.mu.Lock()
		fresh := r.sched.answered > asked
		r.mu.Unlock()
		if fresh {
			t, ok := find(r.View())
			return t, ok, nil
		}
		if w := r.Wait(); w > 0 {
			if err := sleep(ctx, min(w, time.Second)); err != nil {
				return nil, false, err
			}
		}
		if _, err := r.MaybeRefresh(ctx); err != nil {
			return nil, false, err
		}
	}
}
