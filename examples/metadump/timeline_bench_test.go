package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/internal/benchtest"
)

// bigIncidentDir writes a log of at least records records made by the
// simulator (Kafka's controller emulation): 6 brokers and 10 000 partitions
// (RF 3); then, over and over, a broker crashes and is fenced after the
// session timeout (its partitions shrink their ISRs and move their
// leaders), comes back, a new topic of 3 000 partitions is created and the
// oldest one deleted, so that leaders keep landing on every broker. Few,
// large operations keep the simulator fast.
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
	var topics []string
	for i := range 5 {
		topics = append(topics, fmt.Sprintf("topic-%03d", i))
		s.MustCreateTopic(topics[i], 2000, 3)
	}
	for i := 0; s.NextOffset() < int64(records); i++ {
		id := int32(i%6 + 1)
		must(s.CrashBroker(id))
		must(s.Advance(12 * time.Second))
		must(s.RegisterBroker(deltatest.BrokerSpec{ID: id, Rack: string(rune('a' + int(id-1)%3))}))
		must(s.Advance(5 * time.Second))
		name := fmt.Sprintf("topic-%03d", 5+i)
		topics = append(topics, name)
		s.MustCreateTopic(name, 3000, 3)
		must(s.DeleteTopic(topics[0]))
		topics = topics[1:]
		must(s.Advance(40 * time.Second))
	}
	dir, err := s.WriteDir(tb.(interface{ TempDir() string }).TempDir(), deltatest.WriteDirOptions{SegmentBatches: 2000})
	must(err)
	return dir
}

// BenchmarkTimelineReport: the HTML report of a one-million-record log
// (-timeline.records) written by the simulator; CPU time per report is
// reported beside wall time (benchtest), and the report's size.
//
//	go test ./examples/metadump -run '^$' -bench BenchmarkTimelineReport -benchtime 3x
//	go test ./examples/metadump -run '^$' -bench BenchmarkTimelineReport -benchtime 3x -count 6 -timeline.records 100000
func BenchmarkTimelineReport(b *testing.B) {
	start := time.Now()
	dir := bigIncidentDir(b, *benchRecords)
	b.Logf("log written in %s", time.Since(start))
	tl, err := buildTimeline(dir, false)
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "report.html")
	b.ReportAllocs()
	defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
	b.ResetTimer()
	for b.Loop() {
		if err := runTimeline(dir, out, false, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	st, err := os.Stat(out)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.Size())/1e6, "MB/report")
	b.ReportMetric(float64(tl.Records), "records")
}

// benchRecords is the size of BenchmarkTimelineReport's log.
var benchRecords = flag.Int("timeline.records", 1_000_000, "records in BenchmarkTimelineReport's log")
