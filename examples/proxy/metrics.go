package main

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/epoch/proxy"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// The proxy's own metrics are named kmeta_proxy_*, after Prometheus'
// conventions (snake case, base units, _total on counters); the labels of
// the per-request ones are Kafka's RequestMetrics tags: request (the API's
// name, kmsg.NameForKey) and version, and error (the error's name) on the
// errors. The metadata loader's are publisher.Stats.Metrics' names
// (kafka_server_*, Kafka's JMX metrics in Prometheus form). The metric list
// is in the README.
const metricsNamespace = "kmeta_proxy"

// promObserver is the proxy.Observer (and proxy.TrafficObserver) that
// counts requests, errors, authorization denials, bytes and upstream
// latency into Prometheus vectors. Connections are counted from the
// server's or forwarder's Stats instead (statsCollectors).
type promObserver struct {
	proxy.NopObserver
	requests *prometheus.CounterVec
	errors   *prometheus.CounterVec
	denials  *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	in, out  *prometheus.CounterVec
}

func newPromObserver(reg prometheus.Registerer) *promObserver {
	o := &promObserver{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metricsNamespace, Name: "requests_total",
			Help: "Requests answered or forwarded, and requests that closed their connection unanswered (Kafka's RequestsPerSec)."}, []string{"request", "version"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metricsNamespace, Name: "request_errors_total",
			Help: "Requests the proxy answered itself with an error, or closed the connection on (INVALID_REQUEST), by error (Kafka's ErrorsPerSec; forwarded answers' errors are upstream's)."}, []string{"request", "version", "error"}),
		denials: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metricsNamespace, Name: "authorization_denials_total",
			Help: "Requests refused in whole or in part by authorization."}, []string{"request", "version"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: metricsNamespace, Name: "upstream_latency_seconds",
			Help: "Time from writing a forwarded request upstream to the last byte of its answer.", Buckets: latencyBuckets()}, []string{"request"}),
		in: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metricsNamespace, Name: "received_bytes_total",
			Help: "Bytes of request frames read from clients, size prefix included (Kafka's RequestBytes)."}, []string{"request"}),
		out: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metricsNamespace, Name: "sent_bytes_total",
			Help: "Bytes of answer frames written to clients, size prefix included (Kafka's ResponseBytes)."}, []string{"request"}),
	}
	reg.MustRegister(o.requests, o.errors, o.denials, o.latency, o.in, o.out)
	return o
}

// Request counts a request, and its error when it has one.
func (o *promObserver) Request(key, version int16, code int16) {
	name, ver := apiLabels(key, version)
	o.requests.WithLabelValues(name, ver).Inc()
	if code != 0 {
		o.errors.WithLabelValues(name, ver, kafkaerr.FromInt16(code).String()).Inc()
	}
}

// AuthDenied counts a denial (the principal is not a label: unbounded).
func (o *promObserver) AuthDenied(key, version int16, _ string) {
	name, ver := apiLabels(key, version)
	o.denials.WithLabelValues(name, ver).Inc()
}

// UpstreamLatency observes a forwarded request's upstream time.
func (o *promObserver) UpstreamLatency(key, _ int16, d time.Duration) {
	o.latency.WithLabelValues(apiName(key)).Observe(d.Seconds())
}

// BytesIn counts a request frame's bytes.
func (o *promObserver) BytesIn(key, _ int16, n int) {
	o.in.WithLabelValues(apiName(key)).Add(float64(n))
}

// BytesOut counts an answer frame's bytes.
func (o *promObserver) BytesOut(key, _ int16, n int) {
	o.out.WithLabelValues(apiName(key)).Add(float64(n))
}

// apiName is the request label of an API key: its Kafka name, "Unknown"
// for a key Kafka does not define, "None" for a frame naming none (a bare
// SASL token).
func apiName(key int16) string {
	if key < 0 {
		return "None"
	}
	return kmsg.NameForKey(key)
}

// apiLabels are the request and version labels: a version no Kafka release
// defines for the API is "unknown", so that a client cannot make a series
// per version number.
func apiLabels(key, version int16) (name, ver string) {
	name = apiName(key)
	req := kmsg.RequestForKey(key)
	if req == nil || version < 0 || version > req.MaxVersion() {
		return name, "unknown"
	}
	return name, strconv.Itoa(int(version))
}

// latencyBuckets are the upstream latency histogram's buckets, in seconds:
// 0.5 ms doubling to about 16 s.
func latencyBuckets() []float64 { return prometheus.ExponentialBuckets(0.0005, 2, 16) }
