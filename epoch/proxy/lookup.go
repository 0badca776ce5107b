package proxy

import (
	"context"

	"github.com/kmeta-go/kmeta/epoch/clientview"
	"github.com/kmeta-go/kmeta/image/answer"
	"github.com/kmeta-go/kmeta/record"
)

// lookupMissing is the view a request naming topics (by name or by id) is
// answered from: the current one when it holds every topic named, else the
// view after one lookup (clientview.Refresher.LookupTopic, LookupTopicID)
// of the first topic it lacks: a refresh started after the question,
// within the refresh policy, shared with every concurrent lookup and
// refresh. Every other topic the request names is then answered from that
// refreshed view, so that one request costs at most one refresh. A stale
// view (one that could not reach the cluster while it moved) thus never
// calls an existing topic unknown. Names Topic.validate refuses and the
// zero id are not looked up (their answers do not depend on the cluster).
// looked reports whether a lookup ran.
func (f *Forwarder) lookupMissing(ctx context.Context, names []string, ids []record.UUID) (v *clientview.View, looked bool) {
	v = f.ref.View()
	for _, n := range names {
		if _, ok := v.Topic(n); !ok && answer.ValidTopicName(n) {
			return f.lookupTopic(ctx, n, record.UUID{}), true
		}
	}
	for _, id := range ids {
		if _, ok := v.TopicByID(id); !ok && id != (record.UUID{}) {
			return f.lookupTopic(ctx, "", id), true
		}
	}
	return v, false
}

// lookupTopic looks topic name (or, name empty, id) up with a refresh if
// the view does not hold it, within the upstream timeout, and returns the
// view after it, its brokers given their ports. A failed refresh is logged
// and the view is served as it is (it never goes back).
func (f *Forwarder) lookupTopic(ctx context.Context, name string, id record.UUID) *clientview.View {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	f.stats.Lookups.Add(1)
	var err error
	if name != "" {
		_, _, err = f.ref.LookupTopic(ctx, name)
	} else {
		_, _, err = f.ref.LookupTopicID(ctx, id)
	}
	v := f.ref.View()
	f.observeView(v)
	if err != nil {
		what := name
		if what == "" {
			what = "id " + id.String()
		}
		f.connLog.printf("proxy: topic %s is not in the view and the refresh failed: %v", what, err)
	}
	return v
}

// topicNamer names the topic ids of one request: from the view, and for
// the first id it does not hold after one lookup (lookupMissing); the
// request's later ids are named from the view as that lookup left it.
func (f *Forwarder) topicNamer() func([16]byte) (string, bool) {
	looked := false
	return func(id [16]byte) (string, bool) {
		if n, ok := f.topicName(id); ok || looked {
			return n, ok
		}
		looked = true
		f.lookupMissing(context.Background(), nil, []record.UUID{id})
		return f.topicName(id)
	}
}
