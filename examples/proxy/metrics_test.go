package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
)

// TestMetricsImageMode: the image mode with -metrics.addr, following a
// directory that holds one of Kafka's log segments. /metrics is scraped
// while a client connection is open: the requests the test sent, by API
// and version (an ApiVersions at a version no release defines counted as
// "unknown", with its UNSUPPORTED_VERSION error), the bytes of every frame
// each way, the connection; the loader's last-applied offset and its
// timestamp are the segment's last batch's (read here from the batch
// headers), its offset lag 0 and caught up; and the scrape passes
// client_golang's lint (testutil.GatherAndLint).
func TestMetricsImageMode(t *testing.T) {
	seg := sharedtest.Path(t, "vectors", "snapshots", "mv-4.0-IV0-kraft0", "__cluster_metadata-0", "00000000000000000000.log")
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(seg)), data, 0o644); err != nil {
		t.Fatal(err)
	}
	lastOffset, lastTime := lastBatch(t, data)
	addr, maddr := startWithMetrics(t, "-follow", dir)

	conn, err := net.DialTimeout("tcp", addr.String(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	in, out := map[string]int{}, map[string]int{}
	send := func(req kmsg.Request) {
		frame := appendRequest(req, "metrics-test")
		in[kmsg.NameForKey(req.Key())] += len(frame)
		out[kmsg.NameForKey(req.Key())] += len(exchange(t, conn, frame))
	}
	av := kmsg.NewPtrApiVersionsRequest()
	av.Version, av.ClientSoftwareName, av.ClientSoftwareVersion = 3, "kmeta-test", "1.0"
	send(av)
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 12
	send(md)
	send(md)
	bad := kmsg.NewPtrApiVersionsRequest()
	bad.Version = 99 // answered at v0 with UNSUPPORTED_VERSION (KIP-511)
	send(bad)

	fams := scrape(t, maddr)
	want := []struct {
		name   string
		labels string
		value  float64
	}{
		{"kmeta_proxy_requests_total", "request=ApiVersions,version=3", 1},
		{"kmeta_proxy_requests_total", "request=ApiVersions,version=unknown", 1},
		{"kmeta_proxy_requests_total", "request=Metadata,version=12", 2},
		{"kmeta_proxy_request_errors_total", "error=UNSUPPORTED_VERSION,request=ApiVersions,version=unknown", 1},
		{"kmeta_proxy_received_bytes_total", "request=ApiVersions", float64(in["ApiVersions"])},
		{"kmeta_proxy_received_bytes_total", "request=Metadata", float64(in["Metadata"])},
		{"kmeta_proxy_sent_bytes_total", "request=ApiVersions", float64(out["ApiVersions"])},
		{"kmeta_proxy_sent_bytes_total", "request=Metadata", float64(out["Metadata"])},
		{"kmeta_proxy_connections_accepted_total", "", 1},
		{"kmeta_proxy_connections_open", "", 1},
		{"kafka_server_broker_metadata_last_applied_record_offset", "", float64(lastOffset)},
		{"kafka_server_broker_metadata_last_applied_record_timestamp_seconds", "", float64(lastTime) / 1000},
		{"kafka_server_metadata_loader_offset_lag", "", 0},
		{"kafka_server_metadata_loader_caught_up", "", 1},
		{"kafka_server_broker_metadata_load_errors_total", "", 0},
	}
	for _, w := range want {
		got, ok := metricValue(fams, w.name, w.labels)
		if !ok || got != w.value {
			t.Errorf("%s{%s} = %v (found %v), want %v", w.name, w.labels, got, ok, w.value)
		}
	}
	if n := len(fams["kmeta_proxy_request_errors_total"].GetMetric()); n != 1 {
		t.Errorf("%d error series, want the one UNSUPPORTED_VERSION", n)
	}
	lintScrape(t, fams)
}

// startWithMetrics runs the proxy on a free port with -metrics.addr on
// another, and returns both addresses once it serves.
func startWithMetrics(t *testing.T, args ...string) (addr, metricsAddr net.Addr) {
	t.Helper()
	ready, mready := make(chan net.Addr, 1), make(chan net.Addr, 1)
	errc := make(chan error, 1)
	args = append([]string{"-listen", "127.0.0.1:0", "-metrics.addr", "127.0.0.1:0"}, args...)
	go func() { errc <- runWith(args, ready, mready) }()
	for addr == nil {
		select {
		case metricsAddr = <-mready:
		case addr = <-ready:
		case err := <-errc:
			t.Fatal(err)
		case <-time.After(20 * time.Second):
			t.Fatal("the proxy did not start")
		}
	}
	if metricsAddr == nil {
		t.Fatal("the proxy served before its metrics endpoint")
	}
	return addr, metricsAddr
}

// exchange writes a request frame on conn and returns its answer frame,
// size prefix included.
func exchange(t *testing.T, conn net.Conn, frame []byte) []byte {
	t.Helper()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write(frame); err != nil {
		t.Fatal(err)
	}
	resp := make([]byte, 4)
	if _, err := io.ReadFull(conn, resp); err != nil {
		t.Fatal(err)
	}
	resp = append(resp, make([]byte, binary.BigEndian.Uint32(resp))...)
	if _, err := io.ReadFull(conn, resp[4:]); err != nil {
		t.Fatal(err)
	}
	return resp
}

// lastBatch reads a log segment's record batch headers (baseOffset,
// batchLength, then lastOffsetDelta at byte 23 and maxTimestamp at byte
// 35, Kafka's DefaultRecordBatch layout) and returns its last batch's last
// offset and append time.
func lastBatch(t *testing.T, seg []byte) (offset, appendTime int64) {
	t.Helper()
	offset = -1
	for len(seg) >= 12 {
		n := 12 + int(binary.BigEndian.Uint32(seg[8:]))
		if n < 43 || n > len(seg) {
			t.Fatalf("a batch of %d bytes with %d left", n, len(seg))
		}
		offset = int64(binary.BigEndian.Uint64(seg)) + int64(int32(binary.BigEndian.Uint32(seg[23:])))
		appendTime = int64(binary.BigEndian.Uint64(seg[35:]))
		seg = seg[n:]
	}
	if offset < 0 {
		t.Fatal("no batch in the segment")
	}
	return offset, appendTime
}

// scrape GETs /metrics at addr and parses Prometheus' text format.
func scrape(t *testing.T, addr net.Addr) map[string]*dto.MetricFamily {
	t.Helper()
	cl := http.Client{Timeout: 10 * time.Second}
	resp, err := cl.Get("http://" + addr.String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// metricValue is the value of the series of name whose labels, sorted by
// name and written name=value with commas, are labels.
func metricValue(fams map[string]*dto.MetricFamily, name, labels string) (float64, bool) {
	for _, m := range fams[name].GetMetric() {
		var ls []string
		for _, l := range m.GetLabel() {
			ls = append(ls, l.GetName()+"="+l.GetValue())
		}
		if strings.Join(ls, ",") != labels {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
}

// lintScrape runs client_golang's metric lint (promlint, through
// testutil.GatherAndLint) over a scrape, and checks that every name is
// the proxy's (kmeta_proxy_), the loader's (kafka_server_) or the Go
// runtime's and process's collectors'.
func lintScrape(t *testing.T, fams map[string]*dto.MetricFamily) {
	t.Helper()
	var list []*dto.MetricFamily
	for name, f := range fams {
		list = append(list, f)
		ok := false
		for _, p := range []string{"kmeta_proxy_", "kafka_server_", "go_", "process_"} {
			ok = ok || strings.HasPrefix(name, p)
		}
		if !ok {
			t.Errorf("metric %s has none of the proxy's prefixes", name)
		}
	}
	problems, err := testutil.GatherAndLint(prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) { return list, nil }))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
	if len(list) == 0 {
		t.Fatal(fmt.Errorf("an empty scrape"))
	}
}

// TestPprofFlag: net/http/pprof's handlers are on the metrics address only
// with -pprof (on the proxy's own mux: without the flag /debug/pprof/ is
// not found there), and -pprof without -metrics.addr is refused.
func TestPprofFlag(t *testing.T) {
	get := func(addr net.Addr, path string) int {
		cl := http.Client{Timeout: 10 * time.Second}
		resp, err := cl.Get("http://" + addr.String() + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	_, off := startWithMetrics(t, "-demo")
	if code := get(off, "/debug/pprof/"); code != http.StatusNotFound {
		t.Errorf("without -pprof: /debug/pprof/ answered %d", code)
	}
	_, on := startWithMetrics(t, "-demo", "-pprof")
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/heap", "/debug/pprof/goroutine?debug=1", "/debug/pprof/cmdline"} {
		if code := get(on, path); code != http.StatusOK {
			t.Errorf("with -pprof: %s answered %d", path, code)
		}
	}
	if code := get(on, "/metrics"); code != http.StatusOK {
		t.Errorf("with -pprof: /metrics answered %d", code)
	}
	err := run([]string{"-listen", "127.0.0.1:0", "-demo", "-pprof"}, nil)
	if err == nil || !strings.Contains(err.Error(), "-metrics.addr") {
		t.Errorf("-pprof without -metrics.addr: %v", err)
	}
}

// BenchmarkPromObserver is what -metrics.addr adds to one forwarded
// request: its count, its upstream latency and its bytes each way.
func BenchmarkPromObserver(b *testing.B) {
	o := newPromObserver(prometheus.NewRegistry())
	b.ReportAllocs()
	for b.Loop() {
		o.BytesIn(0, 11, 1200)
		o.Request(0, 11, 0)
		o.UpstreamLatency(0, 11, time.Millisecond)
		o.BytesOut(0, 11, 80)
	}
}

// TestPromObserverBounded: whatever API keys and versions clients send,
// the series (and their cache) are one per key and version Kafka defines,
// one per defined key for its unknown versions, one for unknown keys and
// one for frames naming none.
func TestPromObserverBounded(t *testing.T) {
	reg := prometheus.NewRegistry()
	o := newPromObserver(reg)
	for key := -3; key < 3000; key++ {
		for _, v := range []int16{-1, 0, 1, 99, 1000, 32767} {
			o.Request(int16(key), v, 0)
			o.BytesIn(int16(key), v, 1)
		}
	}
	limit := 2
	for _, mv := range o.maxVer {
		if mv >= 0 {
			limit += int(mv) + 2
		}
	}
	n := 0
	o.series.Range(func(any, any) bool { n++; return true })
	if n > limit {
		t.Errorf("%d cached series, more than the %d keys and versions can make", n, limit)
	}
	got, err := testutil.GatherAndCount(reg, "kmeta_proxy_requests_total")
	if err != nil {
		t.Fatal(err)
	}
	if got > limit {
		t.Errorf("%d request series, more than %d", got, limit)
	}
	if v := testutil.ToFloat64(o.requests.WithLabelValues("Unknown", "unknown")); v == 0 {
		t.Error("requests of unknown API keys are not counted under Unknown")
	}
	if v := testutil.ToFloat64(o.requests.WithLabelValues("Produce", "unknown")); v != 4 {
		t.Errorf("Produce at versions -1, 99, 1000 and 32767: %v under version unknown, want 4", v)
	}
}
