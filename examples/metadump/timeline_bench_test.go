package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
)

// bigIncidentDir writes a log of at least records records made by the
// simulator: 6 brokers, 10 000 partitions (RF 3), then brokers crash in turn,
// are fenced after the session timeout (their partitions shrink their ISRs and
// move their leaders), come back, and the leaders are balanced again.
func bigIncidentDir(tb testing.TB, records int) string {
	tb.Helper()
	s := deltatest.MustNew(deltatest.Config{Seed: 5, NoOpInterval: 10 * time.Second})
	must := func(err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
	must(s.AddBrokers(6, "a", "b", "c"))
	for i := range 20 {
		s.MustCreateTopic(fmt.Sprintf("topic-%02d", i), 500, 3)
	}
	for i := 0; s.NextOffset() < int64(records); i++ {
		id := int32(i%6 + 1)
		must(s.CrashBroker(id))
		must(s.Advance(12 * time.Second))
		must(s.RegisterBroker(deltatest.BrokerSpec{ID: id, Rack: string(rune('a' + int(id-1)%3))}))
		must(s.Advance(5 * time.Second))
		for p := int32(0); p < 50; p++ {
			if err := s.ExpandISR(fmt.Sprintf("topic-%02d", i%20), p, id); err != nil {
				continue
			}
		}
		must(s.BalanceLeaders())
		must(s.Advance(30 * time.Second))
	}
	dir, err := s.WriteDir(tb.(interface{ TempDir() string }).TempDir(), deltatest.DirOptions{SegmentBatches: 2000})
	must(err)
	return dir
}

// BenchmarkTimelineReport: the HTML report of a one-million-record log.
//
//	go test ./examples/metadump -run '^$' -bench BenchmarkTimelineReport -benchtime 3x
func BenchmarkTimelineReport(b *testing.B) {
	dir := bigIncidentDir(b, 1_000_000)
	out := filepath.Join(b.TempDir(), "report.html")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := runTimeline(dir, out, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	st, err := os.Stat(out)
	if err != nil {
		b.Fatal(err)
	}
	tl, err := buildTimeline(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.Size())/1e6, "MB/report")
	b.ReportMetric(float64(tl.Records), "records")
}
