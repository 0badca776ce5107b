package main

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kmeta-go/kmeta/epoch/proxy"
	"github.com/kmeta-go/kmeta/publisher"
)

// statMetric is one counter or gauge read from an atomic of the server's
// or forwarder's Stats at each scrape.
type statMetric struct {
	name, help string
	gauge      bool
	v          *atomic.Int64
}

func registerStats(reg prometheus.Registerer, ms []statMetric) {
	for _, m := range ms {
		v := m.v
		read := func() float64 { return float64(v.Load()) }
		if m.gauge {
			reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: metricsNamespace, Name: m.name, Help: m.help}, read))
		} else {
			reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: metricsNamespace, Name: m.name, Help: m.help}, read))
		}
	}
}

// registerServerStats exports the image mode's proxy.Stats.
func registerServerStats(reg prometheus.Registerer, s *proxy.Stats) {
	registerStats(reg, []statMetric{
		{"connections_accepted_total", "Client connections accepted.", false, &s.Accepted},
		{"connections_open", "Client connections open now.", true, &s.Open},
		{"connections_refused_total", "Connections closed at once for max.connections.per.ip, and accept errors retried.", false, &s.Refused},
		{"connections_invalid_total", "Connections closed on a request that could not be decoded or served.", false, &s.Invalid},
		{"connections_panics_total", "Connections closed after a panic while serving them.", false, &s.Panics},
		{"connections_idle_total", "Connections closed after connections.max.idle.ms without a request.", false, &s.Idle},
		{"connections_slow_total", "Connections closed on a request or answer slower than request.read.timeout.ms.", false, &s.Slow},
	})
}

// registerForwarderStats exports the forwarding mode's proxy.FwdStats and
// the size of its cluster view.
func registerForwarderStats(reg prometheus.Registerer, f *proxy.Forwarder) {
	s := f.Stats()
	registerStats(reg, []statMetric{
		{"connections_accepted_total", "Client connections accepted.", false, &s.Accepted},
		{"connections_open", "Client connections open now.", true, &s.Open},
		{"connections_refused_total", "Connections closed at once for max.connections.per.ip, and accept errors retried.", false, &s.ConnRefused},
		{"connections_idle_total", "Connections closed after connections.max.idle.ms without a request.", false, &s.Idle},
		{"connections_slow_total", "Connections closed on a request or answer slower than request.read.timeout.ms.", false, &s.Slow},
		{"forwarded_requests_total", "Requests forwarded upstream.", false, &s.Forwarded},
		{"rewritten_responses_total", "Forwarded answers whose broker addresses were rewritten.", false, &s.Rewritten},
		{"local_answers_total", "Requests answered from the cluster view.", false, &s.Local},
		{"refused_requests_total", "Requests refused with UNSUPPORTED_VERSION or by closing the connection.", false, &s.Refused},
		{"upstream_failures_total", "Client connections closed on an upstream failure.", false, &s.UpstreamFails},
		{"view_refreshes_total", "Metadata refreshes of the cluster view that reached upstream.", false, &s.Refreshes},
		{"upstream_budget_refused_total", "Upstream answers refused for upstream.buffer.max.bytes.", false, &s.BudgetRefused},
		{"upstream_bad_brokers_total", "Upstream brokers refused (invalid, or over max.brokers), counted per refresh.", false, &s.BadBrokers},
		{"authorization_denied_resources_total", "Resources denied by authorization.", false, &s.Denied},
	})
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: metricsNamespace, Name: "view_brokers", Help: "Brokers in the cluster view."},
			func() float64 { return float64(len(f.View().Brokers())) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: metricsNamespace, Name: "view_topics", Help: "Topics in the cluster view."},
			func() float64 { return float64(f.View().NumTopics()) }),
	)
}

// loaderCollector exports a metadata loader's Stats under Kafka's metric
// names (publisher.Stats.Metrics, which documents the mapping), read once
// per scrape.
type loaderCollector struct {
	l     *publisher.Loader
	names []string
	descs []*prometheus.Desc
}

func newLoaderCollector(l *publisher.Loader) *loaderCollector {
	c := &loaderCollector{l: l}
	for _, m := range (publisher.Stats{}).Metrics(time.Time{}) {
		help := m.Help
		if m.Kafka != "" {
			help += " Kafka: " + m.Kafka + "."
		}
		c.names = append(c.names, m.Name)
		c.descs = append(c.descs, prometheus.NewDesc(m.Name, help, nil, nil))
	}
	return c
}

// Describe sends the descriptors of every metric Stats.Metrics returns.
func (c *loaderCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect sends the loader's current Stats as metrics.
func (c *loaderCollector) Collect(ch chan<- prometheus.Metric) {
	for i, m := range c.l.Stats().Metrics(time.Now()) {
		if i >= len(c.names) || m.Name != c.names[i] {
			continue // Metrics' list is fixed; a name not described is not sent
		}
		kind := prometheus.GaugeValue
		if m.Kind == publisher.Counter {
			kind = prometheus.CounterValue
		}
		ch <- prometheus.MustNewConstMetric(c.descs[i], kind, m.Value)
	}
}
