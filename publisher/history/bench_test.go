package history_test

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/internal/benchtest"
	"github.com/kmeta-go/kmeta/publisher/history"
)

var (
	benchOnce sync.Once
	benchDir  string
	benchRecs int64
	benchErr  error
	// benchParent holds benchDir; TestMain removes it.
	benchParent string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchParent != "" {
		os.RemoveAll(benchParent)
	}
	os.Exit(code)
}

// benchLog writes, once, a simulated log of six brokers and 1 000
// partitions (RF 3) over twelve hours: a NoOpRecord every 500 ms (Kafka's
// metadata.max.idle.interval.ms), and every 20 minutes a broker crashes,
// is fenced after the session timeout (its leaderships move) and comes
// back. About 90 000 records.
func benchLog(b *testing.B) (string, int64) {
	benchOnce.Do(func() {
		sim, err := deltatest.New(deltatest.Config{Seed: 1, NoOpInterval: 500 * time.Millisecond})
		if err != nil {
			benchErr = err
			return
		}
		if benchErr = sim.AddBrokers(6, "a", "b", "c"); benchErr != nil {
			return
		}
		for i := 0; i < 20; i++ {
			sim.MustCreateTopic(fmt.Sprintf("events-%02d", i), 50, 3)
		}
		for i := 0; i < 36; i++ {
			id := int32(i%6 + 1)
			if benchErr = sim.CrashBroker(id); benchErr != nil {
				return
			}
			if benchErr = sim.Advance(10 * time.Minute); benchErr != nil {
				return
			}
			if benchErr = sim.Heartbeat(id); benchErr != nil {
				return
			}
			if benchErr = sim.Advance(10 * time.Minute); benchErr != nil {
				return
			}
		}
		if benchParent, benchErr = os.MkdirTemp("", "history-bench"); benchErr != nil {
			return
		}
		benchDir, benchErr = sim.WriteDir(benchParent, deltatest.WriteDirOptions{SegmentBatches: 10000})
		benchRecs = sim.NextOffset()
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir, benchRecs
}

// BenchmarkRead: the whole history of the log, checks included.
func BenchmarkRead(b *testing.B) {
	dir, n := benchLog(b)
	b.ReportAllocs()
	defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
	b.ResetTimer()
	for range b.N {
		if _, err := history.Read(dir, history.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "records/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/record")
}

// BenchmarkImagesAt100: the images at 100 points spread over the log, in one
// pass through the loader.
func BenchmarkImagesAt100(b *testing.B) {
	dir, n := benchLog(b)
	pts := make([]history.Point, 100)
	for i := range pts {
		pts[i] = history.AtOffset(n * int64(i) / 100)
	}
	b.ReportAllocs()
	defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
	b.ResetTimer()
	for range b.N {
		if _, err := history.ImagesAt(dir, pts...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/record")
}
