package image_test

import (
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/internal/benchtest"
)

// diffBenchImages are images of a simulated cluster of 6 brokers and 10 000
// partitions (RF 3): the start, the same after one ISR shrink, and after a
// broker crashed and was fenced (a third of the partitions change).
func diffBenchImages(b *testing.B) (start, shrunk, fenced *image.Image) {
	b.Helper()
	s := deltatest.MustNew(deltatest.Config{Seed: 3})
	if err := s.AddBrokers(6, "a", "b", "c"); err != nil {
		b.Fatal(err)
	}
	for _, n := range []string{"t0", "t1", "t2", "t3", "t4"} {
		s.MustCreateTopic(n, 2000, 3)
	}
	start = s.Image()
	t2, _ := start.Topics().ByName("t2")
	p, _ := t2.Partition(7)
	if err := s.ShrinkISR("t2", 7, p.ISR()[len(p.ISR())-1]); err != nil {
		b.Fatal(err)
	}
	shrunk = s.Image()
	if err := s.CrashBroker(2); err != nil {
		b.Fatal(err)
	}
	if err := s.Advance(20 * time.Second); err != nil {
		b.Fatal(err)
	}
	return start, shrunk, s.Image()
}

// BenchmarkDiff: image.Diff of two images of 10 000 partitions: the same
// image, one ISR shrink apart, a broker fencing apart (a third of the
// partitions change), and from the empty image; with Kafka's Normal
// redaction, as metadump -diff runs it. CPU time is reported beside wall
// time (benchtest).
//
//	go test ./image -run '^$' -bench BenchmarkDiff -benchtime 1s -count 3
func BenchmarkDiff(b *testing.B) {
	start, shrunk, fenced := diffBenchImages(b)
	opts := image.DiffOptions{Sensitive: redact.IsSensitive}
	for _, c := range []struct {
		name string
		a, b *image.Image
	}{
		{"Same", start, start},
		{"OneShrink", start, shrunk},
		{"BrokerFenced", shrunk, fenced},
		{"FromEmpty", nil, fenced},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
			n := 0
			for b.Loop() {
				n = len(image.Diff(c.a, c.b, opts))
			}
			b.ReportMetric(float64(n), "diffs")
		})
	}
}
