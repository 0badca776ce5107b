package interop

import (
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
)

var metricsRE = regexp.MustCompile(`proxy: metrics on http://(127\.0\.0\.1:\d+)/metrics`)

// requestCounter is a franz-go hook counting, by API, the requests the
// client wrote whole and their bytes, and the bytes of the answers it read.
type requestCounter struct {
	mu                sync.Mutex
	reqs, sent, recvd map[string]int
}

func (c *requestCounter) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, n int, _, _ time.Duration, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		c.reqs[kmsg.NameForKey(key)]++
		c.sent[kmsg.NameForKey(key)] += n
	}
}

func (c *requestCounter) OnBrokerRead(_ kgo.BrokerMetadata, key int16, n int, _, _ time.Duration, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		c.recvd[kmsg.NameForKey(key)] += n
	}
}

// TestForwardMetricsFranz: examples/proxy -upstream -metrics.addr, with
// -metadata.dir following a copy of one of Kafka's log segments. franz-go
// creates a topic and produces through it; once the client is closed and
// the proxy has no connection left, /metrics is scraped: the requests by
// API (Produce, Metadata, ApiVersions, CreateTopics, …) are those the
// client wrote (franz-go's write hook), the bytes each way those it wrote
// and read, every Produce has an upstream latency observation, the view
// holds the three brokers; the loader of -metadata.dir has applied the
// segment's last offset (read from its batch headers) with an offset lag
// of 0; and the names pass client_golang's lint (testutil.GatherAndLint).
func TestForwardMetricsFranz(t *testing.T) {
	seg := sharedtest.Path(t, "vectors", "snapshots", "mv-4.0-IV0-kraft0", "__cluster_metadata-0", "00000000000000000000.log")
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(seg)), data, 0o644); err != nil {
		t.Fatal(err)
	}
	u := startUpstream(t, 3)
	// The directory's ACLs authorize every request; the client, ANONYMOUS,
	// is a super user.
	p := startForwarder(t, u, "-metrics.addr", "127.0.0.1:0", "-metadata.dir", dir, "-super.users", "User:ANONYMOUS")
	maddr := p.metricsAddr()
	rc := produceCounted(t, p, "fwd-metrics")
	fams := scrapeWhenIdle(t, maddr)
	checkRequestCounts(t, fams, rc)
	last := lastBatchOffset(t, data)
	for name, want := range map[string]float64{
		"kmeta_proxy_view_brokers":                                3,
		"kmeta_proxy_connections_open":                            0,
		"kafka_server_broker_metadata_last_applied_record_offset": float64(last),
		"kafka_server_metadata_loader_offset_lag":                 0,
		"kafka_server_metadata_loader_caught_up":                  1,
	} {
		if got := sumBy(fams, name, "", ""); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if sumBy(fams, "kmeta_proxy_view_refreshes_total", "", "") < 1 {
		t.Error("no view refresh counted")
	}
	if n := len(fams["kmeta_proxy_authorization_denials_total"].GetMetric()); n != 0 {
		t.Errorf("%d denial series for a super user", n)
	}
	lintFamilies(t, fams)
	p.stop(u)
	t.Run("denied", func(t *testing.T) { testForwardMetricsDenied(t, dir) })
}

// produceCounted creates topic and produces 5 batches of 20 records to it
// through the proxy with franz-go (acks=all), then closes the client; it
// returns what the client's hooks counted.
func produceCounted(t *testing.T, p *fwdProxy, topic string) *requestCounter {
	t.Helper()
	rc := &requestCounter{reqs: map[string]int{}, sent: map[string]int{}, recvd: map[string]int{}}
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.bootstrap), kgo.DefaultProduceTopic(topic), kgo.WithHooks(rc),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.MetadataMinAge(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 3, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		var rs []*kgo.Record
		for j := range 20 {
			rs = append(rs, &kgo.Record{Key: []byte{byte(j)}, Value: []byte{byte(i), byte(j)}})
		}
		if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	return rc
}

// checkRequestCounts: the proxy's request and byte counters by API are
// what the client wrote and read, and each Produce had an upstream
// latency observed.
func checkRequestCounts(t *testing.T, fams map[string]*dto.MetricFamily, rc *requestCounter) {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	t.Logf("franz-go wrote %v", rc.reqs)
	for _, api := range []string{"Produce", "Metadata", "ApiVersions", "CreateTopics"} {
		if rc.reqs[api] == 0 {
			t.Errorf("franz-go sent no %s request", api)
		}
	}
	for api, n := range rc.reqs {
		if got := sumBy(fams, "kmeta_proxy_requests_total", "request", api); got != float64(n) {
			t.Errorf("kmeta_proxy_requests_total{request=%q} = %v, the client wrote %d", api, got, n)
		}
		if got := sumBy(fams, "kmeta_proxy_received_bytes_total", "request", api); got != float64(rc.sent[api]) {
			t.Errorf("kmeta_proxy_received_bytes_total{request=%q} = %v, the client wrote %d bytes", api, got, rc.sent[api])
		}
		if got := sumBy(fams, "kmeta_proxy_sent_bytes_total", "request", api); got != float64(rc.recvd[api]) {
			t.Errorf("kmeta_proxy_sent_bytes_total{request=%q} = %v, the client read %d bytes", api, got, rc.recvd[api])
		}
	}
	if got := sumBy(fams, "kmeta_proxy_requests_total", "", ""); got != float64(total(rc.reqs)) {
		t.Errorf("%v requests counted in all, the client wrote %d", got, total(rc.reqs))
	}
	if got := histCount(fams, "kmeta_proxy_upstream_latency_seconds", "Produce"); got != uint64(rc.reqs["Produce"]) {
		t.Errorf("%d Produce upstream latencies observed, %d forwarded", got, rc.reqs["Produce"])
	}
}

// testForwardMetricsDenied: without -super.users the directory's ACLs do
// not let ANONYMOUS create a topic: every CreateTopics the client wrote
// is counted as an authorization denial and as an error of the code the
// client was answered with.
func testForwardMetricsDenied(t *testing.T, dir string) {
	u := startUpstream(t, 1)
	p := startForwarder(t, u, "-metrics.addr", "127.0.0.1:0", "-metadata.dir", dir)
	maddr := p.metricsAddr()
	rc := &requestCounter{reqs: map[string]int{}, sent: map[string]int{}, recvd: map[string]int{}}
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.bootstrap), kgo.WithHooks(rc))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "fwd-metrics-denied")
	if !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Fatalf("CreateTopic: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	cl.Close()
	fams := scrapeWhenIdle(t, maddr)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	n := float64(rc.reqs["CreateTopics"])
	if got := sumBy(fams, "kmeta_proxy_authorization_denials_total", "request", "CreateTopics"); got != n || n == 0 {
		t.Errorf("%v CreateTopics denials counted, the client wrote %v", got, n)
	}
	if got := sumBy(fams, "kmeta_proxy_request_errors_total", "error", "TOPIC_AUTHORIZATION_FAILED"); got != n {
		t.Errorf("%v TOPIC_AUTHORIZATION_FAILED errors counted, the client wrote %v CreateTopics", got, n)
	}
	lintFamilies(t, fams)
	p.stop(u)
}

// metricsAddr is the address of the proxy's -metrics.addr endpoint, from
// its start-up line (logged before the line startForwarder waits for).
func (p *fwdProxy) metricsAddr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.lines {
		if m := metricsRE.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	p.t.Fatalf("no metrics line in the proxy's output:\n%s", strings.Join(p.lines, "\n"))
	return ""
}

// scrapeWhenIdle scrapes addr until the proxy has no client connection
// open (every request of the closed client read and counted), for at most
// 30 s.
func scrapeWhenIdle(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		fams := scrapeText(t, addr)
		if sumBy(fams, "kmeta_proxy_connections_open", "", "") == 0 {
			return fams
		}
		if time.Now().After(deadline) {
			t.Fatal("the proxy still has client connections 30 s after the client closed")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func scrapeText(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	cl := http.Client{Timeout: 10 * time.Second}
	resp, err := cl.Get("http://" + addr + "/metrics")
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

// sumBy sums the counter or gauge values of name's series whose label
// has value (every series for label "").
func sumBy(fams map[string]*dto.MetricFamily, name, label, value string) float64 {
	sum := 0.0
	for _, m := range fams[name].GetMetric() {
		if label != "" && labelValue(m, label) != value {
			continue
		}
		sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
	}
	return sum
}

func histCount(fams map[string]*dto.MetricFamily, name, request string) uint64 {
	for _, m := range fams[name].GetMetric() {
		if labelValue(m, "request") == request {
			return m.GetHistogram().GetSampleCount()
		}
	}
	return 0
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// lintFamilies runs client_golang's metric lint over a scrape.
func lintFamilies(t *testing.T, fams map[string]*dto.MetricFamily) {
	t.Helper()
	var list []*dto.MetricFamily
	for _, f := range fams {
		list = append(list, f)
	}
	problems, err := testutil.GatherAndLint(prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) { return list, nil }))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// lastBatchOffset is the last offset of a log segment's last record batch,
// from the batch headers (baseOffset, batchLength, lastOffsetDelta at byte
// 23: Kafka's DefaultRecordBatch layout).
func lastBatchOffset(t *testing.T, seg []byte) int64 {
	t.Helper()
	last := int64(-1)
	for len(seg) >= 12 {
		n := 12 + int(binary.BigEndian.Uint32(seg[8:]))
		if n < 27 || n > len(seg) {
			t.Fatalf("a batch of %d bytes with %d left", n, len(seg))
		}
		last = int64(binary.BigEndian.Uint64(seg)) + int64(int32(binary.BigEndian.Uint32(seg[23:])))
		seg = seg[n:]
	}
	return last
}
