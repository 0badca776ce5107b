package main

import (
	"strconv"
	"sync"
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
	series   sync.Map // seriesID -> *apiSeries
	maxVer   []int16  // by API key: the highest version kmsg knows, -1 for none
}

// apiSeries are the series of one API key and version, resolved once: a
// request then costs no label lookup.
type apiSeries struct {
	requests prometheus.Counter
	latency  prometheus.Observer
	in, out  prometheus.Counter
}

// of returns the series of key and version.
func (o *promObserver) of(key, version int16) *apiSeries {
	id := o.seriesID(key, version)
	if s, ok := o.series.Load(id); ok {
		return s.(*apiSeries)
	}
	name, ver := o.labels(key, version)
	s := &apiSeries{requests: o.requests.WithLabelValues(name, ver), latency: o.latency.WithLabelValues(name),
		in: o.in.WithLabelValues(name), out: o.out.WithLabelValues(name)}
	got, _ := o.series.LoadOrStore(id, s)
	return got.(*apiSeries)
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
	o.maxVer = maxVersions()
	reg.MustRegister(o.requests, o.errors, o.denials, o.latency, o.in, o.out)
	return o
}

// Request counts a request, and its error when it has one.
func (o *promObserver) Request(key, version int16, code int16) {
	o.of(key, version).requests.Inc()
	if code != 0 {
		name, ver := o.labels(key, version)
		o.errors.WithLabelValues(name, ver, kafkaerr.FromInt16(code).String()).Inc()
	}
}

// AuthDenied counts a denial (the principal is not a label: unbounded).
func (o *promObserver) AuthDenied(key, version int16, _ string) {
	name, ver := o.labels(key, version)
	o.denials.WithLabelValues(name, ver).Inc()
}

// UpstreamLatency observes a forwarded request's upstream time.
func (o *promObserver) UpstreamLatency(key, version int16, d time.Duration) {
	o.of(key, version).latency.Observe(d.Seconds())
}

// BytesIn counts a request frame's bytes.
func (o *promObserver) BytesIn(key, version int16, n int) {
	o.of(key, version).in.Add(float64(n))
}

// BytesOut counts an answer frame's bytes.
func (o *promObserver) BytesOut(key, version int16, n int) {
	o.of(key, version).out.Add(float64(n))
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

// known reports whether kmsg defines API key at version.
func (o *promObserver) known(key, version int16) bool {
	return key >= 0 && int(key) < len(o.maxVer) && version >= 0 && version <= o.maxVer[key]
}

// labels are the request and version labels: a version no Kafka release
// defines for the API is "unknown", so that a client cannot make a series
// per version number.
func (o *promObserver) labels(key, version int16) (name, ver string) {
	if !o.known(key, version) {
		return apiName(key), "unknown"
	}
	return apiName(key), strconv.Itoa(int(version))
}

// seriesID keys the series cache: one entry per API key and version kmsg
// knows, and one for each key's unknown versions, one for every unknown
// key and one for frames naming none, so that what a client sends cannot
// grow it without bound.
func (o *promObserver) seriesID(key, version int16) uint32 {
	switch {
	case key < 0:
		return 0xfffffffe
	case int(key) >= len(o.maxVer) || o.maxVer[key] < 0:
		return 0xffffffff
	case !o.known(key, version):
		return uint32(key)<<16 | 0xffff
	}
	return uint32(key)<<16 | uint32(version)
}

// maxVersions is kmsg's highest version of every API key it defines (-1
// for the keys between them it does not).
func maxVersions() []int16 {
	var out []int16
	for key := int16(0); key < 1024; key++ {
		v := int16(-1)
		if req := kmsg.RequestForKey(key); req != nil {
			v = req.MaxVersion()
		}
		out = append(out, v)
	}
	for len(out) > 0 && out[len(out)-1] < 0 {
		out = out[:len(out)-1]
	}
	return out
}

// latencyBuckets are the upstream latency histogram's buckets, in seconds:
// 0.5 ms doubling to about 16 s.
func latencyBuckets() []float64 { return prometheus.ExponentialBuckets(0.0005, 2, 16) }
